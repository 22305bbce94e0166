/**
 * What the browser test files share: Debian's Chromium started headless with the flags every file
 * uses, and signing in through the app's sign-in page. Every browser test file starts Chromium here.
 */
import { createRequire } from 'node:module';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type postgres from 'postgres';
import { hashPassword, newId } from '@cairn/core';
import { getStack } from './harness.ts';
import { CHROMIUM_FLAGS, CHROMIUM_PATH } from '../scripts/lib/renderer.ts';

const require = createRequire(import.meta.url);
const { chromium } = require('playwright-core') as typeof import('playwright-core');

/** Chromium as the stack's renderer starts it (one list of flags: scripts/lib/renderer.ts). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_FLAGS });
}

/**
 * Signs in on `origin`'s sign-in page and waits for the dashboard list. The first sign-in of a run may
 * meet a cold app worker, hence the generous wait.
 */
export async function signInAt(page: Page, origin: string, email: string, password: string): Promise<void> {
  await submitSignIn(page, origin, email, password);
  try {
    await page.waitForURL(`${origin}/app/`, { timeout: 45_000 });
  } catch (err) {
    // Seen twice on CI as the run's very first sign-in (cold workers beside the other lane): say what the
    // page showed, then try once more before failing.
    const shown = await page
      .locator('[role="alert"], .form-errors, [data-testid="form-errors"]')
      .allTextContents()
      .catch(() => []);
    console.warn(`sign-in of ${email} stayed on ${page.url()} for 45 s${shown.length ? `; the page said: ${shown.join(' | ')}` : ''}; trying again`);
    await submitSignIn(page, origin, email, password);
    await page.waitForURL(`${origin}/app/`, { timeout: 60_000 }).catch((again) => {
      throw new Error(`sign-in of ${email} failed twice: ${(again as Error).message}`, { cause: err });
    });
  }
}

/** Fills and sends the sign-in form, and waits for nothing: a second step (2FA, enrolment) may follow. */
export async function submitSignIn(page: Page, origin: string, email: string, password: string): Promise<void> {
  await page.goto(`${origin}/app/login`);
  await page.fill('input[name="email"]', email);
  await page.fill('input[name="password"]', password);
  await page.click('button[type="submit"]');
}

export type SessionState = Awaited<ReturnType<BrowserContext['storageState']>>;

/**
 * Chromium, the app's origin and the stack admin's signed-in state (cookies), for files that open many
 * pages as the admin: `browser.newContext({ storageState: adminState })` starts signed in.
 */
export async function startAsAdmin(): Promise<{ browser: Browser; origin: string; adminState: SessionState }> {
  const stack = getStack();
  if (!stack.app) throw new Error('The stack runs without the web app (stack.app is null).');
  const origin = new URL(stack.app).origin;
  const browser = await launchChromium();
  const context = await browser.newContext();
  try {
    await signInAt(await context.newPage(), origin, stack.admin.email, stack.admin.password);
    return { browser, origin, adminState: await context.storageState() };
  } finally {
    await context.close();
  }
}

/**
 * A user who can sign in at once (written as an accepted invitation leaves it; an analyst unless `role`
 * says otherwise), for tests that need a role of their own or change a user's password or sign-in
 * settings and so must not touch the stack's admin.
 */
export async function insertTestUser(
  sql: postgres.Sql,
  organizationId: string,
  opts: { tag: string; password: string; firstname: string; lastname: string; role?: 'viewer' | 'analyst' | 'admin' },
): Promise<{ email: string; id: string }> {
  const id = newId('user');
  const email = `${opts.tag}-${Math.random().toString(36).slice(2, 10)}@example.test`;
  await sql`insert into users (id, organization_id, email, firstname, lastname, role, password_hash, invitation_accepted_at)
    values (${id}, ${organizationId}, ${email}, ${opts.firstname}, ${opts.lastname}, ${opts.role ?? 'analyst'}, ${await hashPassword(opts.password)}, now())`;
  return { email, id };
}

/** Replaces the SQL editor's text (CodeMirror: select all, delete, type) and closes any completion list. */
export async function writeSql(page: Page, text: string): Promise<void> {
  const content = page.locator('[data-testid="sql-editor-content"]');
  await content.waitFor({ timeout: 20_000 });
  await content.click();
  await page.keyboard.press('ControlOrMeta+a');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText(text);
  await page.keyboard.press('Escape');
}
