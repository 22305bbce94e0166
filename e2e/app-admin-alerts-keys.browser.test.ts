/**
 * SQL alerts and API key editing in Chromium: an admin creates an alert on the sample datasource whose
 * condition holds, runs it now (the result is shown and the stack's SMTP catcher receives the alert
 * e-mail), edits it, sees a 422 at its field, and deletes it; an API key is renamed and its permissions
 * changed, which the API then applies to that key.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { apiFetch, getStack } from './harness.ts';
import { message, messagesTo } from './inbox.ts';
import { launchChromium } from './browser-kit.ts';

let browser: Browser;
let origin: string;
let adminState: Awaited<ReturnType<BrowserContext['storageState']>>;
let sampleId: string;
const alertsMade: string[] = [];

const unique = (tag: string) => `${tag}-${Math.random().toString(36).slice(2, 10)}`;

async function newPage(state?: typeof adminState): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
  const context = await browser.newContext({ viewport: { width: 1400, height: 1000 }, ...(state ? { storageState: state } : {}) });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  return { context, page, errors };
}

beforeAll(async () => {
  const stack = getStack();
  if (!stack.app) throw new Error('The stack runs without the web app.');
  origin = new URL(stack.app).origin;
  const ds = await apiFetch<{ data: { id: string; attributes: { is_sample?: boolean } }[] }>('/datasources');
  sampleId = ds.body.data.find((d) => d.attributes.is_sample)!.id;
  browser = await launchChromium();
  const { context, page } = await newPage();
  await page.goto(`${origin}/app/login`);
  await page.fill('input[name="email"]', stack.admin.email);
  await page.fill('input[name="password"]', stack.admin.password);
  await page.click('button[type="submit"]');
  // The first sign-in of a run may meet a cold app worker: give it time.
  await page.waitForURL(`${origin}/app/`, { timeout: 60_000 });
  adminState = await context.storageState();
  await context.close();
});

afterAll(async () => {
  await browser?.close();
  for (const id of alertsMade) await apiFetch(`/sql_alerts/${id}`, { method: 'DELETE' }).catch(() => undefined);
});

describe('SQL alerts in the app', () => {
  it('creates an alert, runs it now (result shown, e-mail caught), edits it, shows a 422 at its field, deletes it', async () => {
    const { context, page, errors } = await newPage(adminState);
    const name = unique('orders-alert');
    const to = `${unique('ops')}@example.test`;
    try {
      await page.goto(`${origin}/app/administration/alerts`);
      await page.click('[data-testid="alert-new"]');
      await page.waitForURL(`${origin}/app/administration/alerts/new`);
      await page.fill('[data-testid="alert-name"]', name);
      await page.selectOption('[data-testid="alert-datasource"]', sampleId);
      await page.fill('[data-testid="alert-sql"]', 'SELECT count(*) AS orders FROM orders');
      await page.selectOption('[data-testid="alert-condition"]', 'greater_than');
      await page.fill('[data-testid="alert-value"]', '0');
      await page.selectOption('[data-testid="alert-email-condition"]', 'triggered');
      await page.fill('[data-testid="alert-emails"]', to);
      await page.click('[data-testid="alert-save"]');
      await page.locator('[data-testid="alert-created"]').waitFor();
      const id = decodeURIComponent(new URL(page.url()).pathname.split('/').pop()!);
      alertsMade.push(id);
      const stored = await apiFetch(`/sql_alerts/${id}?include=datasource`);
      expect(stored.status).toBe(200);
      expect(stored.body.data.attributes).toMatchObject({
        name,
        sql_query: 'SELECT count(*) AS orders FROM orders',
        run_schedule: 'disabled',
        trigger_condition: 'greater_than',
        trigger_value: 0,
        email_condition: 'triggered',
        emails: to,
        attach_as: null,
      });
      expect(stored.body.data.relationships.datasource.data.id).toBe(sampleId);

      // Run now: evaluated on the sample datasource, triggered, the alert e-mail goes out.
      await page.click('[data-testid="alert-run"]');
      await page.locator('[data-testid="alert-run-result"]').waitFor({ timeout: 30_000 });
      expect(await page.locator('[data-testid="alert-run-headline"]').textContent()).toMatch(/triggered: the condition is met/);
      expect(await page.locator('[data-testid="alert-run-mail"]').textContent()).toBe(`E-mail sent to ${to}.`);
      const mails = await messagesTo(to);
      expect(mails.length).toBe(1);
      expect((await message(mails[0]!.id)).subject).toContain(name);
      await page.reload();
      expect(await page.locator('[data-testid="alert-last-status"]').textContent()).toBe('alert triggered');
      expect(await page.locator('[data-testid="alert-results"] tbody tr').count()).toBe(1);

      // Edit: a daily schedule and a new name.
      await page.fill('[data-testid="alert-name"]', `${name}-daily`);
      await page.selectOption('[data-testid="alert-schedule"]', 'at');
      await page.fill('[data-testid="alert-run-at"]', '07:30, 2pm');
      await page.click('[data-testid="alert-save"]');
      await page.locator('[data-testid="alert-saved"]').waitFor();
      const edited = await apiFetch(`/sql_alerts/${id}`);
      expect(edited.body.data.attributes).toMatchObject({ name: `${name}-daily`, run_schedule: 'at', run_at: '07:30,14:00', trigger_value: 0 });
      expect(edited.body.data.attributes.next_run_at).not.toBeNull();

      // The API's 422s appear at their fields; nothing is changed.
      await page.fill('[data-testid="alert-cc"]', 'not-an-address');
      await page.fill('[data-testid="alert-run-at"]', '25:99');
      await page.click('[data-testid="alert-save"]');
      await page.locator('[data-testid="error-cc_emails"]').waitFor();
      expect(await page.locator('[data-testid="error-cc_emails"]').textContent()).toContain('"not-an-address" is not an e-mail address');
      expect(await page.locator('[data-testid="error-run_at"]').textContent()).toContain('"25:99" is not a time of day');
      expect(await page.locator('[data-field="cc_emails"] [data-testid="error-cc_emails"]').count()).toBe(1);
      expect((await apiFetch(`/sql_alerts/${id}`)).body.data.attributes).toMatchObject({ cc_emails: null, run_at: '07:30,14:00' });

      // A query that fails: Run now shows the query's error.
      // Filled only once the page has hydrated: a field filled before then ended up holding the old query too (seen in CI).
      await page.reload({ waitUntil: 'networkidle' });
      await page.fill('[data-testid="alert-sql"]', 'SELECT count(*) FROM no_such_table');
      expect(await page.inputValue('[data-testid="alert-sql"]')).toBe('SELECT count(*) FROM no_such_table');
      await page.click('[data-testid="alert-save"]');
      await page.locator('[data-testid="alert-saved"]').waitFor();
      await page.click('[data-testid="alert-run"]');
      await page.locator('[data-testid="alert-run-result"]').waitFor({ timeout: 30_000 });
      expect(await page.locator('[data-testid="alert-run-headline"]').textContent()).toBe('The query failed.');
      expect(await page.locator('[data-testid="alert-run-error"]').textContent()).toContain('no_such_table');

      // The list links to it; delete asks once more and goes back to the list.
      await page.goto(`${origin}/app/administration/alerts`);
      await page.locator(`[data-testid="alert-${name}-daily"] [data-testid="alert-link"]`).click();
      await page.waitForURL(`${origin}/app/administration/alerts/${encodeURIComponent(id)}`);
      await page.locator('[data-testid="alert-delete-form"] button', { hasText: 'Delete alert' }).click();
      await page.locator('[data-testid="alert-delete-form"] button', { hasText: /^Delete$/ }).click();
      await page.waitForURL(`${origin}/app/administration/alerts`);
      expect(await page.locator(`[data-testid="alert-${name}-daily"]`).count()).toBe(0);
      expect((await apiFetch(`/sql_alerts/${id}`)).status).toBe(404);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});

describe('API key editing', () => {
  it('renames a key and changes its permissions; the API applies them to the key; a 422 shows at the permissions', async () => {
    const { context, page, errors } = await newPage(adminState);
    const name = unique('etl');
    const renamed = `${name}-renamed`;
    try {
      await page.goto(`${origin}/app/administration/api-keys`);
      await page.fill('[data-testid="key-name"]', name);
      await page.check('[data-testid="perm-view_dashboards"]');
      await page.click('[data-testid="key-create"]');
      const secret = (await page.locator('[data-testid="new-key-secret"]').textContent())!.trim();
      expect((await apiFetch('/dashboards', { key: secret })).status).toBe(200);
      expect((await apiFetch('/users', { key: secret })).status).toBe(403);

      await page.locator(`[data-testid="key-${name}"] [data-testid="key-edit"]`).click();
      const form = page.locator(`[data-testid="key-edit-${name}"]`);
      expect(await form.locator('[data-testid="edit-perm-view_dashboards"]').isChecked()).toBe(true);
      // No permission at all: the API refuses, and says so at the permissions.
      await form.locator('[data-testid="edit-perm-view_dashboards"]').uncheck();
      await form.locator('[data-testid="key-save"]').click();
      await form.locator('[data-testid="key-edit-permissions-error"]').waitFor();
      expect((await apiFetch('/dashboards', { key: secret })).status).toBe(200);

      await form.locator('[data-testid="key-edit-name"]').fill(renamed);
      await form.locator('[data-testid="edit-perm-view_users"]').check();
      await form.locator('[data-testid="edit-perm-view_alerts"]').check();
      await form.locator('[data-testid="key-save"]').click();
      const row = page.locator(`[data-testid="key-${renamed}"]`);
      await row.waitFor();
      await page.locator(`[data-testid="key-edit-${name}"]`).waitFor({ state: 'detached' });
      expect(await row.textContent()).toContain('View Users');
      expect(await row.textContent()).not.toContain('View Dashboards');
      expect(await page.locator(`[data-testid="key-${name}"]`).count()).toBe(0);

      // The key now has exactly the new permissions.
      expect((await apiFetch('/users', { key: secret })).status).toBe(200);
      expect((await apiFetch('/sql_alerts', { key: secret })).status).toBe(200);
      expect((await apiFetch('/dashboards', { key: secret })).status).toBe(403);
      // And the new name holds after a reload.
      await page.reload();
      await page.locator(`[data-testid="key-${renamed}"]`).waitFor();

      await page.locator(`[data-testid="key-${renamed}"] button`, { hasText: 'Delete' }).click();
      await page.locator(`[data-testid="key-${renamed}"] button`, { hasText: 'Delete key' }).click();
      await page.locator(`[data-testid="key-${renamed}"]`).waitFor({ state: 'detached' });
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
