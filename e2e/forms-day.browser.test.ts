/**
 * The forms an analyst expects (issue 15), in Debian's Chromium: the datasource form tests what is in
 * it (before the first save too), gives up after 10 s with a plain message and hides the previous
 * result while a test runs, and marks types and modes that cannot run yet; scheduled e-mails are
 * picked (frequency, days, times, a searchable time zone) and parsed back, and "Send me a test" sends
 * the form to the signed-in user only; the organization's time zone uses the same picker; the
 * administration pages confirm what they saved.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { apiFetch, getStack } from './harness.ts';
import { launchChromium, signInAt } from './browser-kit.ts';
import { messagesTo, message } from './inbox.ts';

const STAMP = Date.now().toString(36);

let browser: Browser;
let context: BrowserContext;
let page: Page;
let origin: string;
let adminEmail: string;
let silent: Server;
let silentPort: number;
const sockets: Socket[] = [];
const errors: string[] = [];
let dashboardId: string;
const cleanup: string[] = [];

beforeAll(async () => {
  const stack = getStack();
  if (!stack.app) throw new Error('The stack runs without the web app (stack.app is null).');
  origin = new URL(stack.app).origin;
  adminEmail = stack.admin.email;
  // A port that accepts connections and never says a word (what a firewall or a wrong service looks like).
  silent = createServer((s) => {
    sockets.push(s);
    s.on('error', () => {});
  });
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', () => r()));
  silentPort = (silent.address() as { port: number }).port;
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  page = await context.newPage();
  page.on('pageerror', (e) => errors.push(e.message));
  await signInAt(page, origin, stack.admin.email, stack.admin.password);
  const made = await apiFetch<{ data: { id: string } }>('/dashboards', { body: { data: { type: 'dashboards', attributes: { name: `Forms ${STAMP}` } } } });
  expect(made.status).toBe(201);
  dashboardId = made.body.data.id;
});

afterAll(async () => {
  for (const path of cleanup) await apiFetch(path, { method: 'DELETE' }).catch(() => undefined);
  if (dashboardId) await apiFetch(`/dashboards/${dashboardId}`, { method: 'DELETE' }).catch(() => undefined);
  await browser?.close();
  for (const s of sockets) s.destroy();
  await new Promise((r) => silent?.close(r));
});

const result = () => page.locator('[data-testid="test-result"]');

describe('datasource form', () => {
  it('marks types and connection modes that cannot run yet, and cannot create one', async () => {
    await page.goto(`${origin}/app/datasources/new`);
    const type = page.locator('[data-testid="field-database_type"]');
    await type.waitFor();
    const options = await type
      .locator('option')
      .evaluateAll((os) => os.map((o) => ({ value: (o as HTMLOptionElement).value, text: o.textContent, disabled: (o as HTMLOptionElement).disabled })));
    expect(options.find((o) => o.value === 'postgres')).toMatchObject({ disabled: false, text: 'PostgreSQL' });
    expect(options.find((o) => o.value === 'mysql')?.disabled).toBe(false);
    expect(options.find((o) => o.value === 'mongodb')).toMatchObject({ disabled: true, text: expect.stringContaining('not available yet') });
    // Oracle runs through an agent only (D50/D60): offered, and the note says how.
    expect(options.find((o) => o.value === 'oracle')?.disabled).toBe(false);
    for (const runs of ['snowflake', 'bigquery', 'databricks', 'athena']) expect(options.find((o) => o.value === runs)?.disabled).toBe(false);
    const modes = await page
      .locator('[data-testid="field-connection_mode"] option')
      .evaluateAll((os) => os.map((o) => [(o as HTMLOptionElement).value, (o as HTMLOptionElement).disabled]));
    // PostgreSQL runs directly, through SSH tunnels (D51) and through agents (D50).
    expect(modes).toEqual([
      ['direct', false],
      ['ssh_tunnel', false],
      ['agent', false],
    ]);
    expect(await page.textContent('[data-testid="database_type-note"]')).toMatch(/cannot run queries in Cairn yet/);
    await page.selectOption('[data-testid="field-database_type"]', 'oracle');
    expect(await page.textContent('[data-testid="database_type-note"]')).toMatch(/runs through a Cairn agent only/);
    await page.selectOption('[data-testid="field-database_type"]', 'postgres');
  });

  it('tests the unsaved form: a plain message for a closed port, and no answer within 10 s clears the old result while it runs', async () => {
    await page.goto(`${origin}/app/datasources/new`);
    await page.fill('[data-testid="field-host"]', '127.0.0.1');
    await page.fill('[data-testid="field-port"]', '1');
    await page.click('[data-testid="test-connection"]');
    await result().waitFor();
    expect(await result().getAttribute('data-status')).toBe('error');
    const closed = await page.textContent('[data-testid="test-error"]');
    expect(closed).toContain('127.0.0.1:1');
    expect(closed).not.toMatch(/proxy/i);
    // The port that never answers: the old result goes away at once, the new one comes within the 10 s bound.
    await page.fill('[data-testid="field-port"]', String(silentPort));
    const t0 = Date.now();
    await page.click('[data-testid="test-connection"]');
    await page.locator('[data-testid="test-running"]').waitFor();
    expect(await result().count()).toBe(0);
    await result().waitFor({ timeout: 15_000 });
    expect(Date.now() - t0).toBeLessThan(13_000);
    expect(await page.textContent('[data-testid="test-error"]')).toMatch(new RegExp(`127\\.0\\.0\\.1:${silentPort}.*no answer within 10 s`));
    // Nothing was saved by testing.
    const list = await apiFetch<{ data: { attributes: { port: number } }[] }>('/datasources');
    expect(list.body.data.some((d) => d.attributes.port === silentPort)).toBe(false);
  }, 30_000);

  it('on a saved datasource, tests the edits in the form rather than the stored settings', async () => {
    const made = await apiFetch<{ data: { id: string } }>('/datasources', {
      body: {
        data: { type: 'datasources', attributes: { name: `Stored ${STAMP}`, database_type: 'mysql', connection_mode: 'direct', host: '127.0.0.1', port: 1 } },
      },
    });
    expect(made.status, made.text).toBe(201);
    cleanup.push(`/datasources/${made.body.data.id}`);
    await page.goto(`${origin}/app/datasources/${made.body.data.id}`);
    await page.fill('[data-testid="field-port"]', '2');
    await page.click('[data-testid="test-connection"]');
    await result().waitFor();
    expect(await page.textContent('[data-testid="test-error"]')).toContain('127.0.0.1:2');
  });
});

describe('scheduled e-mails', () => {
  it('builds the schedule from the pickers, with a searchable time zone, and reads it back', async () => {
    await page.goto(`${origin}/app/dashboards/${dashboardId}/schedules`);
    await page.click('[data-testid="new-schedule"]');
    await page.locator('[data-testid="schedule-form"]').waitFor();
    expect(await page.textContent('[data-testid="schedule-string"]')).toBe('weekly;0;08:00');
    await page.check('[data-testid="schedule-weekday-4"]');
    await page.fill('[data-testid="schedule-time-0"]', '17:30');
    await page.click('[data-testid="schedule-add-time"]');
    await page.fill('[data-testid="schedule-time-1"]', '07:15');
    expect(await page.textContent('[data-testid="schedule-string"]')).toBe('weekly;0,4;07:15,17:30');
    await page.fill('[data-testid="time_zone-search"]', 'tokyo');
    await page.click('[data-testid="zone-choice-Asia/Tokyo"]');
    expect(await page.textContent('[data-testid="time_zone-value"]')).toBe('Asia/Tokyo');
    await page.fill('[data-testid="field-name"]', `Weekly ${STAMP}`);
    await page.fill('[data-testid="field-emails"]', `team-${STAMP}@example.com`);
    await page.click('[data-testid="schedule-save"]');
    await page.locator('[data-testid="schedule-saved"]').waitFor();
    expect(await page.textContent('[data-testid="schedule-saved"]')).toBe('Scheduled e-mail created.');
    const list = await apiFetch<{ data: { id: string; attributes: { name: string; schedule: string; time_zone: string } }[] }>(
      '/dashboard_schedules?page[size]=100',
    );
    const mine = list.body.data.find((s) => s.attributes.name === `Weekly ${STAMP}`)!;
    cleanup.push(`/dashboard_schedules/${mine.id}`);
    expect(mine.attributes).toMatchObject({ schedule: 'weekly;0,4;07:15,17:30', time_zone: 'Asia/Tokyo' });
    // A stored 12-hour monthly string comes back into the pickers.
    const patched = await apiFetch(`/dashboard_schedules/${mine.id}`, {
      method: 'PATCH',
      body: { data: { type: 'dashboard_schedules', id: mine.id, attributes: { schedule: 'monthly;1,15;6:30 pm' } } },
    });
    expect(patched.status, patched.text).toBe(200);
    await page.reload();
    await page.click(`[data-testid="schedule-Weekly ${STAMP}"] [data-testid="edit-schedule"]`);
    await page.locator('[data-testid="schedule-form"]').waitFor();
    expect(await page.inputValue('[data-testid="schedule-frequency"]')).toBe('monthly');
    expect(await page.isChecked('[data-testid="schedule-monthday-15"]')).toBe(true);
    expect(await page.isChecked('[data-testid="schedule-monthday-2"]')).toBe(false);
    expect(await page.inputValue('[data-testid="schedule-time-0"]')).toBe('18:30');
    expect(await page.textContent('[data-testid="time_zone-value"]')).toBe('Asia/Tokyo');
    await page.check('[data-testid="schedule-monthday-2"]');
    await page.click('[data-testid="schedule-save"]');
    await page.locator('[data-testid="schedule-saved"]').waitFor();
    expect(await page.textContent('[data-testid="schedule-saved"]')).toBe('Scheduled e-mail saved.');
    expect((await apiFetch(`/dashboard_schedules/${mine.id}`)).body.data.attributes.schedule).toBe('monthly;1,2,15;18:30');
    expect(errors).toEqual([]);
  });

  it('"Send me a test" sends the unsaved form to the signed-in user only', async () => {
    await page.goto(`${origin}/app/dashboards/${dashboardId}/schedules`);
    await page.click('[data-testid="new-schedule"]');
    await page.locator('[data-testid="schedule-form"]').waitFor();
    const others = `others-${STAMP}@example.com`;
    await page.fill('[data-testid="field-emails"]', others);
    await page.fill('[data-testid="field-subject_text"]', `Trial ${STAMP}`);
    await page.uncheck('[data-testid="attach-pdf"]');
    await page.check('[data-testid="attach-csv"]');
    const before = (await messagesTo(adminEmail, 0)).length;
    await page.click('[data-testid="schedule-send-test"]');
    const answer = page.locator('[data-testid="send-test-result"]');
    await answer.waitFor({ timeout: 30_000 });
    expect(await answer.textContent()).toContain(`Test sent to you (${adminEmail})`);
    const mails = await messagesTo(adminEmail, before + 1);
    const mail = await message(mails.find((m) => m.subject?.includes(`Trial ${STAMP}`))!.id);
    expect(mail.subject).toBe(`[Test] Trial ${STAMP}`);
    expect(mail.envelope.to).toEqual([adminEmail]);
    expect(await messagesTo(others, 0)).toEqual([]);
    // Nothing was saved.
    const list = await apiFetch<{ data: { attributes: { emails: string } }[] }>('/dashboard_schedules?page[size]=100');
    expect(list.body.data.some((s) => s.attributes.emails === others)).toBe(false);
  }, 40_000);
});

describe('administration', () => {
  it('the organization time zone is picked by searching, and saving says so', async () => {
    const org = await apiFetch<{ data: { id: string; attributes: { time_zone: string } } }>('/organization');
    const original = org.body.data?.attributes.time_zone;
    await page.goto(`${origin}/app/administration/organization`);
    await page.fill('[data-testid="time_zone-search"]', 'los ang');
    await page.click('[data-testid="zone-choice-America/Los_Angeles"]');
    await page.click('form[aria-label="Organization settings"] button[type="submit"]');
    await page.locator('[data-testid="organization-saved"]').waitFor();
    expect(await page.textContent('[data-testid="time_zone-value"]')).toBe('America/Los_Angeles');
    const after = await apiFetch<{ data: { attributes: { time_zone: string } } }>('/organization');
    expect(after.body.data.attributes.time_zone).toBe('America/Los_Angeles');
    if (original) {
      await apiFetch('/organization', {
        method: 'PATCH',
        body: { data: { type: 'organizations', id: org.body.data.id, attributes: { time_zone: original } } },
      });
    }
  });

  it('creating a group, editing and disabling an API key confirm what was saved', async () => {
    await page.goto(`${origin}/app/administration/groups`);
    await page.fill('[data-testid="group-name"]', `Group ${STAMP}`);
    await page.click('[data-testid="group-create"]');
    await page.locator('[data-testid="group-created"]').waitFor();
    expect(await page.textContent('[data-testid="group-created"]')).toContain(`Group “Group ${STAMP}” created`);
    const groups = await apiFetch<{ data: { id: string; attributes: { name: string } }[] }>('/user_groups?page[size]=100');
    const group = groups.body.data.find((g) => g.attributes.name === `Group ${STAMP}`);
    if (group) cleanup.push(`/user_groups/${group.id}`);

    // API keys are managed in the app only (an API key cannot manage keys).
    await page.goto(`${origin}/app/administration/api-keys`);
    await page.fill('[data-testid="key-name"]', `Key ${STAMP}`);
    await page.check('[data-testid="perm-view_dashboards"]');
    await page.click('[data-testid="key-create"]');
    await page.locator('[data-testid="new-key"]').waitFor();
    const row = page.locator(`[data-testid="key-Key ${STAMP}"]`);
    await row.locator('[data-testid="key-edit"]').click();
    await page.fill(`[data-testid="key-edit-Key ${STAMP}"] [data-testid="key-edit-name"]`, `Key ${STAMP} renamed`);
    await page.click(`[data-testid="key-edit-Key ${STAMP}"] [data-testid="key-save"]`);
    const renamed = page.locator(`[data-testid="key-Key ${STAMP} renamed"]`);
    await renamed.locator('[data-testid="key-saved"]').waitFor();
    expect(await renamed.locator('[data-testid="key-saved"]').textContent()).toBe('Changes saved.');
    await renamed.locator('button', { hasText: 'Disable' }).click();
    await renamed.locator('[data-testid="key-row-ok"]').waitFor();
    expect(await renamed.locator('[data-testid="key-row-ok"]').textContent()).toMatch(/^Key disabled/);
    expect(await renamed.locator('[data-testid="key-status"]').textContent()).toBe('disabled');
    await renamed.locator('button', { hasText: 'Delete' }).click();
    await renamed.locator('button', { hasText: 'Delete key' }).click();
    await renamed.waitFor({ state: 'detached' });
  });
});
