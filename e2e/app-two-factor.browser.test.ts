/**
 * Two-factor authentication in Chromium: a user sets up an authenticator app in personal settings
 * (codes computed with core's TOTP from the key the page shows; a wrong first code is refused next to
 * its field), gets ten recovery codes, signs out, signs in with password + code, then with password +
 * recovery code, and turns two-factor authentication off with the password and another recovery code.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { totpCode } from '@cairn/core';
import { createDb } from '@cairn/db';
import { getStack } from './harness.ts';
import { insertTestUser, launchChromium, submitSignIn } from './browser-kit.ts';

const PASSWORD = 'two factor passphrase';

let browser: Browser;
let origin: string;
let db: ReturnType<typeof createDb>;
const cleanup: string[] = [];

async function makeUser(): Promise<{ email: string; id: string }> {
  const user = await insertTestUser(db.sql, getStack().organization_id, { tag: 'two-factor', password: PASSWORD, firstname: 'Tove', lastname: 'Factor' });
  cleanup.push(user.id);
  return user;
}

const passwordStep = (page: Page, email: string) => submitSignIn(page, origin, email, PASSWORD);

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

describe('two-factor authentication', () => {
  it('enables it, then signs in with a code and with a recovery code, and turns it off', async () => {
    const user = await makeUser();
    const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    try {
      await passwordStep(page, user.email);
      await page.waitForURL(`${origin}/app/`);
      await page.goto(`${origin}/app/account`);
      await expect(page.locator('[data-testid="two-factor-status"]').textContent()).resolves.toContain('Off');
      await page.click('[data-testid="two-factor-start"]');
      const shown = (await page.locator('[data-testid="two-factor-secret"]').textContent())!;
      expect(shown).toMatch(/^([A-Z2-7]{4} ){7}[A-Z2-7]{4}$/);
      const secret = shown.replace(/\s/g, '');
      const uri = (await page.locator('[data-testid="two-factor-uri"]').textContent())!;
      expect(uri).toContain(`secret=${secret}`);
      expect(await page.getAttribute('[data-testid="two-factor-uri-link"]', 'href')).toBe(uri);

      // A wrong code is refused next to the field, and the key stays on the page.
      const now = await totpCode(secret);
      await page.fill('[data-testid="two-factor-confirm-code"]', now === '000000' ? '111111' : '000000');
      await page.click('button:has-text("Turn on")');
      await expect(page.locator('[data-testid="error-code"]').textContent()).resolves.toContain('not the current code');
      expect((await page.locator('[data-testid="two-factor-secret"]').textContent())!.replace(/\s/g, '')).toBe(secret);
      await page.fill('[data-testid="two-factor-confirm-code"]', now);
      await page.click('button:has-text("Turn on")');
      await page.locator('[data-testid="two-factor-recovery"]').waitFor();
      const recovery = await page.locator('[data-testid="two-factor-recovery-code"]').allTextContents();
      expect(recovery).toHaveLength(10);
      await expect(page.locator('[data-testid="two-factor-left"]').textContent()).resolves.toBe('10 recovery codes left.');
      const [row] = await db.sql`select otp_app_enabled, otp_secret_encrypted from users where id = ${user.id}`;
      expect(row).toMatchObject({ otp_app_enabled: true });
      expect(String(row!.otp_secret_encrypted)).not.toContain(secret);

      // Sign out; the password alone no longer signs in: the code step follows.
      await page.click('form[action="/app/logout"] button');
      await page.waitForURL(/\/app\/login/);
      await passwordStep(page, user.email);
      await page.locator('[data-testid="login-code-step"]').waitFor();
      expect(page.url()).toContain('/app/login');
      await page.fill('[data-testid="login-code"]', '12345x');
      await page.click('button:has-text("Verify")');
      await expect(page.locator('[data-testid="error-code"]').textContent()).resolves.toContain('not the current code');
      // The code of enrolment was used; the next step's code is new.
      await page.fill('[data-testid="login-code"]', await totpCode(secret, Date.now() + 30_000));
      await page.click('button:has-text("Verify")');
      await page.waitForURL(`${origin}/app/`);

      // With a recovery code instead.
      await page.click('form[action="/app/logout"] button');
      await page.waitForURL(/\/app\/login/);
      await passwordStep(page, user.email);
      await page.click('[data-testid="login-toggle"]');
      await page.fill('[data-testid="login-recovery-code"]', recovery[0]!);
      await page.click('button:has-text("Verify")');
      await page.waitForURL(`${origin}/app/`);

      // Turning it off needs the password and a code; a used recovery code is refused.
      await page.goto(`${origin}/app/account`);
      await expect(page.locator('[data-testid="two-factor-left"]').textContent()).resolves.toBe('9 recovery codes left.');
      await page.fill('[data-testid="two-factor-disable-password"]', PASSWORD);
      await page.click('[data-testid="two-factor-disable-toggle"]');
      await page.fill('[data-testid="two-factor-disable-recovery-code"]', recovery[0]!);
      await page.click('[data-testid="two-factor-disable"]');
      await expect(page.locator('[data-testid="error-recovery_code"]').textContent()).resolves.toContain('not one of your unused recovery codes');
      await page.fill('[data-testid="two-factor-disable-password"]', PASSWORD);
      await page.fill('[data-testid="two-factor-disable-recovery-code"]', recovery[1]!);
      await page.click('[data-testid="two-factor-disable"]');
      await page.locator('[data-testid="two-factor-saved"]').waitFor();
      await expect(page.locator('[data-testid="two-factor-status"]').textContent()).resolves.toContain('Off');
      const [after] = await db.sql`select otp_app_enabled, otp_secret_encrypted from users where id = ${user.id}`;
      expect(after).toMatchObject({ otp_app_enabled: false, otp_secret_encrypted: null });
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
