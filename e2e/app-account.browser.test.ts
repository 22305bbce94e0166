/**
 * Personal settings and password reset in Chromium: a user renames themselves (the header shows the
 * new name), changes their password (a wrong current one is refused next to its field) and signs in
 * with the new one; "Forgot password?" sends an e-mail (read from the stack's SMTP catcher) whose link
 * sets a new password, signs the user out everywhere and works only once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { createDb } from '@cairn/db';
import { getStack } from './harness.ts';
import { message, messagesTo } from './inbox.ts';
import { insertTestUser, launchChromium, signInAt } from './browser-kit.ts';

let browser: Browser;
let origin: string;
let db: ReturnType<typeof createDb>;
const cleanup: string[] = [];

async function newPage(): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
  const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  return { context, page, errors };
}

const signIn = (page: Page, email: string, password: string) => signInAt(page, origin, email, password);

/** A user of their own for each test (the stack's admin keeps its password). */
async function makeUser(password: string): Promise<{ email: string; id: string }> {
  const user = await insertTestUser(db.sql, getStack().organization_id, { tag: 'account', password, firstname: 'Paula', lastname: 'Person' });
  cleanup.push(user.id);
  return user;
}

beforeAll(async () => {
  const stack = getStack();
  if (!stack.app) throw new Error('The stack runs without the web app.');
  origin = new URL(stack.app).origin;
  db = createDb(stack.database_url, { max: 1 });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  for (const id of cleanup) await db.sql`delete from users where id = ${id}`.catch(() => undefined);
  await db?.sql.end({ timeout: 5 });
});

describe('personal settings', () => {
  it('changes the name from the header link; the header shows it', async () => {
    const user = await makeUser('first passphrase');
    const { context, page, errors } = await newPage();
    try {
      await signIn(page, user.email, 'first passphrase');
      await page.click('[data-testid="user-chip"]');
      await page.waitForURL(`${origin}/app/account`);
      expect(await page.inputValue('[data-testid="account-email"]')).toBe(user.email);
      await expect(page.locator('[data-testid="account-session"]').count()).resolves.toBe(1);
      // The session knows the browser it was started in (the app passes its User-Agent on).
      await expect(page.locator('[data-testid="account-session"]').textContent()).resolves.toMatch(/Chrome on Linux\s*This browser/);
      await page.fill('[data-testid="account-firstname"]', 'Renata');
      await page.fill('[data-testid="account-lastname"]', 'Renamed');
      await page.click('button:has-text("Save name")');
      await page.locator('[data-testid="account-name-saved"]').waitFor();
      // The header's data is read again after the save.
      await page.locator('[data-testid="user-chip"]', { hasText: 'Renata Renamed' }).waitFor();
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('changes the password (the current one is checked) and signs in with the new one', async () => {
    const user = await makeUser('old passphrase 1');
    const { context, page, errors } = await newPage();
    const other = await newPage();
    try {
      await signIn(page, user.email, 'old passphrase 1');
      await signIn(other.page, user.email, 'old passphrase 1');
      await page.goto(`${origin}/app/account`);
      await expect(page.locator('[data-testid="account-session"]').count()).resolves.toBe(2);
      await page.fill('[data-testid="account-current-password"]', 'not my password');
      await page.fill('[data-testid="account-new-password"]', 'new passphrase 2');
      await page.fill('[data-testid="account-new-password-again"]', 'new passphrase 2');
      await page.click('button:has-text("Change password")');
      await expect(page.locator('[data-testid="error-current_password"]').textContent()).resolves.toContain('not your current password');
      await page.fill('[data-testid="account-current-password"]', 'old passphrase 1');
      await page.fill('[data-testid="account-new-password"]', 'new passphrase 2');
      await page.fill('[data-testid="account-new-password-again"]', 'new passphrase 2');
      await page.click('button:has-text("Change password")');
      await page.locator('[data-testid="account-password-saved"]').waitFor();
      // The other browser was signed out; this one stays signed in.
      await page.waitForFunction(() => document.querySelectorAll('[data-testid="account-session"]').length === 1);
      await other.page.goto(`${origin}/app/account`);
      await other.page.waitForURL(/\/app\/login/);

      const fresh = await newPage();
      try {
        await fresh.page.goto(`${origin}/app/login`);
        await fresh.page.fill('input[name="email"]', user.email);
        await fresh.page.fill('input[name="password"]', 'old passphrase 1');
        await fresh.page.click('button[type="submit"]');
        await fresh.page.locator('[data-testid="login-error"]').waitFor();
        await signIn(fresh.page, user.email, 'new passphrase 2');
      } finally {
        await fresh.context.close();
      }
      expect(errors).toEqual([]);
    } finally {
      await other.context.close();
      await context.close();
    }
  });
});

describe('password reset', () => {
  it('forgot password → e-mailed link → new password → sign in; the link works once', async () => {
    const user = await makeUser('forgotten passphrase');
    const { context, page, errors } = await newPage();
    const before = await newPage();
    try {
      await signIn(before.page, user.email, 'forgotten passphrase');
      await page.goto(`${origin}/app/login`);
      await page.click('[data-testid="forgot-link"]');
      await page.waitForURL(`${origin}/app/forgot-password`);
      await page.fill('input[name="email"]', user.email);
      await page.click('button[type="submit"]');
      const sent = await page.locator('[data-testid="forgot-sent"]').textContent();
      expect(sent).toContain('If an active Cairn account uses this address');

      const [summary] = await messagesTo(user.email);
      expect(summary?.subject).toBe('Reset your Cairn password');
      const mail = await message(summary!.id);
      const link = /(https?:\/\/\S+\/app\/reset-password\/(?:(?:eu|us)_)?[A-Za-z0-9]+)/.exec(mail.text)?.[1];
      expect(link).toBeTruthy();
      const path = new URL(link!).pathname;

      await page.goto(`${origin}${path}`);
      await expect(page.locator('[data-testid="reset-email"]').textContent()).resolves.toBe(user.email);
      await page.fill('input[name="password"]', 'short');
      await page.fill('input[name="password_again"]', 'short');
      // The browser's own minLength check would stop the short one: ask the API through the form.
      await page.$eval('form.form', (f) => f.setAttribute('novalidate', ''));
      await page.click('button[type="submit"]');
      await expect(page.locator('[data-testid="error-password"]').textContent()).resolves.toContain('at least 8');
      await page.fill('input[name="password"]', 'remembered passphrase');
      await page.fill('input[name="password_again"]', 'remembered passphrase');
      await page.click('button[type="submit"]');
      await page.waitForURL(`${origin}/app/login?reset=1`);
      await page.locator('[data-testid="login-reset"]').waitFor();
      await signIn(page, user.email, 'remembered passphrase');

      // Every session of before the reset ended; the link does not work again.
      await before.page.goto(`${origin}/app/account`);
      await before.page.waitForURL(/\/app\/login/);
      await page.goto(`${origin}${path}`);
      await expect(page.locator('[data-testid="reset-problem"]').textContent()).resolves.toContain('already used');
      await page.goto(`${origin}/app/reset-password/${'x'.repeat(56)}`);
      await expect(page.locator('[data-testid="reset-problem"]').textContent()).resolves.toContain('not valid');
      expect(errors).toEqual([]);
    } finally {
      await before.context.close();
      await context.close();
    }
  });
});
