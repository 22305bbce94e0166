/**
 * What the browser test files share: Debian's Chromium started headless with the flags every file
 * uses, and signing in through the app's sign-in page. (Older files still carry their own copies.)
 */
import { createRequire } from 'node:module';
import type { Browser, Page } from 'playwright-core';

const require = createRequire(import.meta.url);
const { chromium } = require('playwright-core') as typeof import('playwright-core');

export const CHROMIUM_FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_FLAGS });
}

/**
 * Signs in on `origin`'s sign-in page and waits for the dashboard list. The first sign-in of a run may
 * meet a cold app worker, hence the generous wait.
 */
export async function signInAt(page: Page, origin: string, email: string, password: string): Promise<void> {
  await page.goto(`${origin}/app/login`);
  await page.fill('input[name="email"]', email);
  await page.fill('input[name="password"]', password);
  await page.click('button[type="submit"]');
  await page.waitForURL(`${origin}/app/`, { timeout: 60_000 });
}
