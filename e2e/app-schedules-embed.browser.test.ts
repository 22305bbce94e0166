/**
 * A dashboard's scheduled e-mails, embedding events and table links in Chromium: a schedule made on the
 * dashboard's Scheduled e-mails page (the API's 422 shown at its field) is sent with "Send now" and the
 * stack's SMTP catcher receives it; a column header renamed in the report editor shows in the table;
 * a page embedding a sharing link receives the versioned `cairn:loaded` message; a cell holding an
 * http(s) address is a link that opens in a new tab, while a javascript: value stays text.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext } from 'playwright-core';
import { apiFetch, getStack } from './harness.ts';
import { message, messagesTo } from './inbox.ts';
import { launchChromium } from './browser-kit.ts';

const JSONAPI = { 'content-type': 'application/vnd.api+json' };
const URL_SQL = "SELECT 'Docs' AS title, 'https://example.com/docs?a=1' AS link, 'javascript:alert(1)' AS trap";

let browser: Browser;
let origin: string;
let adminState: Awaited<ReturnType<BrowserContext['storageState']>>;
let sql: postgres.Sql;
let dashboardId: string;
let reportId: string;
const tag = Math.random().toString(36).slice(2, 8);

async function newPage(state?: typeof adminState) {
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
  sql = postgres(stack.database_url, { max: 1 });
  const sample = (await apiFetch<{ data: { id: string; attributes: { is_sample?: boolean } }[] }>('/datasources')).body.data.find(
    (d) => d.attributes.is_sample,
  )!;
  const dash = await apiFetch<{ data: { id: string } }>('/dashboards', {
    headers: JSONAPI,
    body: { data: { type: 'dashboards', attributes: { name: `Links ${tag}` } } },
  });
  expect(dash.status, dash.text).toBe(201);
  dashboardId = dash.body.data.id;
  const report = await apiFetch<{ data: { id: string } }>('/reports', {
    headers: JSONAPI,
    body: {
      data: {
        type: 'reports',
        attributes: { name: 'Useful links', sql_query: URL_SQL, width: 12, height: 3 },
        relationships: { dashboard: { data: { type: 'dashboards', id: dashboardId } }, datasource: { data: { type: 'datasources', id: sample.id } } },
      },
    },
  });
  expect(report.status, report.text).toBe(201);
  reportId = report.body.data.id;
  await sql`update reports set chart_configuration = ${sql.json({ type: 'table' })} where id = ${reportId}`;

  browser = await launchChromium();
  const { context, page } = await newPage();
  await page.goto(`${origin}/app/login`);
  await page.fill('input[name="email"]', stack.admin.email);
  await page.fill('input[name="password"]', stack.admin.password);
  await page.click('button[type="submit"]');
  await page.waitForURL(`${origin}/app/`);
  adminState = await context.storageState();
  await context.close();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  if (dashboardId) await apiFetch(`/dashboards/${dashboardId}`, { method: 'DELETE' }).catch(() => undefined);
  await sql?.end({ timeout: 5 });
});

describe('scheduled e-mails of a dashboard', () => {
  it('are created from the share page, refused at the field, and Send now delivers to the inbox', async () => {
    const address = `sched-${tag}@example.test`;
    const { context, page, errors } = await newPage(adminState);
    try {
      await page.goto(`${origin}/app/dashboards/${dashboardId}/share`);
      await page.click('[data-testid="open-schedules"]');
      await page.waitForURL(new RegExp(`/app/dashboards/${dashboardId}/schedules$`));
      await page.click('[data-testid="new-schedule"]');
      // The spec's defaults are in the form.
      expect(await page.textContent('[data-testid="schedule-string"]')).toBe('weekly;0;08:00');
      expect(await page.inputValue('[data-testid="schedule-frequency"]')).toBe('weekly');
      expect(await page.inputValue('[data-testid="field-send_via"]')).toBe('email');
      expect(await page.isChecked('[data-testid="attach-pdf"]')).toBe(true);
      await page.fill('[data-testid="field-name"]', `Links weekly ${tag}`);
      await page.uncheck('[data-testid="attach-pdf"]');
      await page.check('[data-testid="attach-csv"]');
      await page.fill('[data-testid="field-subject_text"]', `Your links ${tag}`);
      // Mondays and Fridays at 08:00, from the pickers.
      await page.check('[data-testid="schedule-weekday-4"]');
      expect(await page.textContent('[data-testid="schedule-string"]')).toBe('weekly;0,4;08:00');
      // An address that is not one: the API's 422 shows at the field.
      await page.fill('[data-testid="field-emails"]', 'not an address');
      await page.click('[data-testid="schedule-save"]');
      await page.locator('[data-testid="error-emails"]').waitFor();
      await page.fill('[data-testid="field-emails"]', address);
      await page.click('[data-testid="schedule-save"]');
      const row = page.locator(`[data-testid="schedule-Links weekly ${tag}"]`);
      await row.waitFor();
      expect(await row.textContent()).toMatch(/weekly on Mon, Fri at 0?8:00/);
      const [stored] = await sql<
        { attach_as: string; schedule: string; send_via: string; page_width: number | null }[]
      >`select attach_as, schedule, send_via, page_width from dashboard_schedules where dashboard_id = ${dashboardId}`;
      expect(stored).toMatchObject({ attach_as: 'csv', schedule: 'weekly;0,4;08:00', send_via: 'email', page_width: null });

      await row.locator('[data-testid="send-now"]').click();
      const result = row.locator('[data-testid="send-now-result"]');
      await result.waitFor({ timeout: 45_000 });
      expect(await result.textContent()).toMatch(/^Sent to 1 recipient with .+\.zip\./);
      const [caught] = await messagesTo(address);
      expect(caught).toBeDefined();
      const mail = await message(caught!.id);
      expect(mail.subject).toBe(`Your links ${tag}`);

      // Edit, then delete.
      await row.locator('[data-testid="edit-schedule"]').click();
      // The stored string reads back into the pickers; pausing is a frequency.
      expect(await page.textContent('[data-testid="schedule-string"]')).toBe('weekly;0,4;08:00');
      await page.selectOption('[data-testid="schedule-frequency"]', 'disabled');
      expect(await page.textContent('[data-testid="schedule-string"]')).toBe('disabled');
      await page.click('[data-testid="schedule-save"]');
      await row.locator('text=disabled').first().waitFor();
      await row.locator('[data-testid="delete-schedule"]').click();
      await row.locator('[data-testid="confirm-delete-schedule"]').click();
      await row.waitFor({ state: 'detached' });
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  }, 90_000);
});

describe('tables and embedding', () => {
  it('a header renamed in the editor shows; the embedding page gets cairn:loaded; URLs are links', async () => {
    const { context, page, errors } = await newPage(adminState);
    try {
      await page.goto(`${origin}/app/reports/${reportId}`);
      await page.click('[data-testid="run-query"]');
      await page.locator('[data-testid="run-status"][data-status="success"]').waitFor({ timeout: 30_000 });
      await page.click('[data-testid="tab-chart"]');
      await page.fill('[data-testid="chart-labels-link"]', 'Address');
      await page.click('[data-testid="save-report"]');
      await page.waitForURL(new RegExp(`/app/dashboards/${dashboardId}`));
      const [saved] = await sql<{ chart_configuration: { labels?: unknown } }[]>`select chart_configuration from reports where id = ${reportId}`;
      expect(saved!.chart_configuration.labels).toEqual({ link: 'Address' });
    } finally {
      await context.close();
    }

    const link = await apiFetch('/dashboard_sharing_links', {
      headers: JSONAPI,
      body: {
        data: {
          type: 'dashboard_sharing_links',
          attributes: { name: `embed ${tag}` },
          relationships: { dashboard: { data: { type: 'dashboards', id: dashboardId } } },
        },
      },
    });
    expect(link.status, link.text).toBe(201);
    const src = `${origin}/s/${link.body.data.attributes.token}`;
    const embed = await newPage();
    let host: Server | null = null;
    try {
      // The embedding site: a tiny page on another origin (a loopback server of its own, so Chromium's
      // local-network checks and frame-ancestors * both let it frame the link).
      host = createServer((_req, res) => {
        res.setHeader('content-type', 'text/html');
        res.end(`<!doctype html><title>Host</title>
          <script>window.events = []; window.addEventListener('message', (e) => window.events.push(e.data));</script>
          <iframe id="cairn" src="${src}" width="1200" height="700"></iframe>`);
      });
      await new Promise<void>((resolve) => host!.listen(0, '127.0.0.1', () => resolve()));
      await embed.page.goto(`http://127.0.0.1:${(host.address() as AddressInfo).port}/`);
      const loaded = await embed.page.waitForFunction(
        () => (window as unknown as { events: { type?: string }[] }).events.find((e) => e && e.type === 'cairn:loaded'),
        undefined,
        { timeout: 45_000 },
      );
      const event = (await loaded.jsonValue()) as Record<string, unknown>;
      expect(event).toEqual({
        source: 'cairn',
        version: 1,
        type: 'cairn:loaded',
        dashboard_id: dashboardId,
        reports: { total: 1, ready: 1, empty: 0, error: 0, waiting: 0 },
      });
      expect(JSON.stringify(event)).not.toContain(link.body.data.attributes.token);

      const frame = embed.page.frameLocator('#cairn');
      const header = frame.locator('th', { hasText: 'Address' });
      await header.waitFor();
      const anchor = frame.locator('a.table-link');
      expect(await anchor.count()).toBe(1);
      expect(await anchor.getAttribute('href')).toBe('https://example.com/docs?a=1');
      expect(await anchor.getAttribute('target')).toBe('_blank');
      expect(await anchor.getAttribute('rel')).toBe('noopener noreferrer');
      expect(await frame.locator('td', { hasText: 'javascript:alert(1)' }).locator('a').count()).toBe(0);
      expect(embed.errors).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await embed.context.close();
      host?.close();
      await apiFetch(`/dashboard_sharing_links/${link.body.data.id}`, { method: 'DELETE' }).catch(() => undefined);
    }
  }, 90_000);
});
