/**
 * Dashboard settings in the analyst app, in Debian's Chromium: the settings page (name, fixed time zone
 * and colour scheme applied on the dashboard; the API's 422 messages at their fields; read-only while
 * locked), "Save as default" for the filter values, and backup download + restore from the list.
 */
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { apiFetch, getStack } from './harness.ts';
import { launchChromium } from './browser-kit.ts';

const JSONAPI = { 'content-type': 'application/vnd.api+json' };

let browser: Browser;
let origin: string;
let adminState: Awaited<ReturnType<BrowserContext['storageState']>>;
let sampleId: string;

async function newPage() {
  const context = await browser.newContext({ viewport: { width: 1440, height: 1000 }, storageState: adminState, acceptDownloads: true });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('dialog', (d) => void d.accept());
  return { context, page, errors };
}

async function waitForTiles(page: Page, timeout = 30_000): Promise<void> {
  await page.waitForSelector('[data-testid^="chart-"]');
  await page.waitForFunction(
    () => {
      const tiles = [...document.querySelectorAll<HTMLElement>('[data-testid^="chart-"]')];
      return (
        tiles.length > 0 &&
        tiles.every(
          (t) =>
            t.dataset.state === 'error' ||
            t.dataset.state === 'empty' ||
            t.dataset.state === 'waiting' ||
            (t.dataset.state === 'ready' && t.dataset.drawn === 'true'),
        )
      );
    },
    undefined,
    { timeout },
  );
}

/** A dashboard with an order-status filter and two reports on the sample datasource. */
async function makeDashboard(name: string): Promise<string> {
  const dash = await apiFetch<{ data: { id: string } }>('/dashboards', { headers: JSONAPI, body: { data: { type: 'dashboards', attributes: { name } } } });
  expect(dash.status, dash.text).toBe(201);
  const id = dash.body.data.id;
  const filter = await apiFetch('/filters', {
    headers: JSONAPI,
    body: {
      data: {
        type: 'filters',
        attributes: { display_name: 'Order status', variable_name: 'set_status', control_type: 'input_multi', value_type: 'TEXT' },
        relationships: { dashboards: { data: [{ type: 'dashboards', id }] } },
      },
    },
  });
  expect([200, 201]).toContain(filter.status);
  for (const [report, sqlQuery] of [
    ['Orders by status', 'SELECT count(*) AS n FROM orders o WHERE {[o.status]=set_status}'],
    ['All orders', 'SELECT count(*) AS n FROM orders o'],
  ]) {
    const res = await apiFetch('/reports', {
      headers: JSONAPI,
      body: {
        data: {
          type: 'reports',
          attributes: { name: report, sql_query: sqlQuery, width: 6, height: 3 },
          relationships: { dashboard: { data: { type: 'dashboards', id } }, datasource: { data: { type: 'datasources', id: sampleId } } },
        },
      },
    });
    expect(res.status, res.text).toBe(201);
  }
  return id;
}

const cellOf = async (page: Page, title: string) =>
  (
    await page
      .locator('section.tile', { has: page.locator('h2', { hasText: title }) })
      .first()
      .locator('tbody td')
      .first()
      .textContent()
  )?.trim() ?? '';

async function openMenuItem(page: Page, testId: string) {
  await page.click('[data-testid="dashboard-menu"]');
  await page.click(`[data-testid="${testId}"]`);
}

beforeAll(async () => {
  const stack = getStack();
  if (!stack.app) throw new Error('The stack runs without the web app (stack.app is null).');
  origin = new URL(stack.app).origin;
  browser = await launchChromium();
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${origin}/app/login`);
  await page.fill('input[name="email"]', stack.admin.email);
  await page.fill('input[name="password"]', stack.admin.password);
  await page.click('button[type="submit"]');
  await page.waitForURL(`${origin}/app/`);
  adminState = await context.storageState();
  await context.close();
  const ds = await apiFetch<{ data: { id: string; attributes: { is_sample?: boolean } }[] }>('/datasources');
  sampleId = ds.body.data.find((d) => d.attributes.is_sample)!.id;
});

afterAll(async () => {
  await browser?.close();
});

describe('dashboard settings page', () => {
  it('changes name, fixed time zone and colour scheme, and the dashboard shows them', async () => {
    const id = await makeDashboard(`Settings ${Date.now()}`);
    const { context, page, errors } = await newPage();
    try {
      await page.goto(`${origin}/app/dashboards/${id}`);
      await waitForTiles(page);
      await openMenuItem(page, 'dashboard-settings');
      await page.waitForURL(`${origin}/app/dashboards/${id}/settings`);
      const name = `Renamed ${Date.now()}`;
      await page.fill('[data-testid="field-name"]', name);
      await page.selectOption('[data-testid="field-tzType"]', 'fixed');
      await page.selectOption('[data-testid="field-fixedZone"]', 'Europe/Berlin');
      await page.check('[data-testid="scheme-scheme_2"]');
      await page.click('[data-testid="settings-save"]');
      await page.waitForURL(`${origin}/app/dashboards/${id}`);
      await page.locator('h1', { hasText: name }).waitFor();
      expect(await page.getAttribute('[data-testid="dashboard-page"]', 'data-color-scheme')).toBe('scheme_2');
      expect(await page.textContent('[data-testid="dashboard-zone"]')).toContain('Europe/Berlin');
      const stored = await apiFetch<{ data: { attributes: Record<string, unknown> } }>(`/dashboards/${id}`);
      expect(stored.body.data.attributes).toMatchObject({
        name,
        color_scheme: 'scheme_2',
        time_zone_config: { type: 'fixed', fixed_time_zone: 'Europe/Berlin' },
      });
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("shows the API's 422 at the field, and is read-only while the dashboard is locked", async () => {
    const id = await makeDashboard(`Settings errors ${Date.now()}`);
    const { context, page, errors } = await newPage();
    try {
      await page.goto(`${origin}/app/dashboards/${id}/settings`);
      await page.selectOption('[data-testid="field-tzType"]', 'fixed');
      await page.click('[data-testid="settings-save"]');
      await page.locator('[data-testid="error-fixedZone"]').waitFor();
      expect(await page.textContent('[data-testid="error-fixedZone"]')).toContain('required');
      expect(page.url()).toBe(`${origin}/app/dashboards/${id}/settings`);

      await page.selectOption('[data-testid="field-tzType"]', 'organization');
      await page.fill('[data-testid="field-anchorTime"]', '25:00');
      await page.click('[data-testid="settings-save"]');
      await page.locator('[data-testid="error-anchorTime"]').waitFor();
      expect(await page.textContent('[data-testid="error-anchorTime"]')).toContain('HH:MM');
      expect(await page.locator('[data-testid="error-fixedZone"]').count()).toBe(0);

      expect((await apiFetch(`/dashboards/${id}/lock`, { method: 'POST' })).status).toBeLessThan(300);
      await page.goto(`${origin}/app/dashboards/${id}/settings`);
      await page.locator('[data-testid="settings-locked"]').waitFor();
      expect(await page.locator('[data-testid="settings-save"]').count()).toBe(0);
      expect(await page.isDisabled('[data-testid="field-name"]')).toBe(true);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});

describe('save filter values as defaults', () => {
  it('stores the values in effect; the dashboard then opens with them without f.* in the address', async () => {
    const id = await makeDashboard(`Defaults ${Date.now()}`);
    const { context, page, errors } = await newPage();
    try {
      await page.goto(`${origin}/app/dashboards/${id}?f.set_status=paid`);
      await waitForTiles(page);
      const paid = await cellOf(page, 'Orders by status');
      const all = await cellOf(page, 'All orders');
      expect(paid).not.toBe(all);
      await page.click('[data-testid="filter-save-defaults"]');
      await page.locator('[data-testid="defaults-saved"]').waitFor();
      await page.waitForURL(`${origin}/app/dashboards/${id}`);
      const stored = await apiFetch<{ data: { attributes: { default_parameters: unknown } } }>(`/dashboards/${id}`);
      expect(stored.body.data.attributes.default_parameters).toEqual({ filters: [{ variable_name: 'set_status', selected_values: ['paid'] }] });

      await page.goto(`${origin}/app/dashboards/${id}`);
      await waitForTiles(page);
      expect(await page.inputValue('[data-testid="filter-set_status"]')).toBe('paid');
      expect(await cellOf(page, 'Orders by status')).toBe(paid);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});

describe('backup and restore', () => {
  it('downloads a backup and restores it as a new dashboard with the same reports', async () => {
    const name = `Backup ${Date.now()}`;
    const id = await makeDashboard(name);
    const { context, page, errors } = await newPage();
    try {
      await page.goto(`${origin}/app/dashboards/${id}`);
      await waitForTiles(page);
      const [download] = await Promise.all([page.waitForEvent('download'), openMenuItem(page, 'dashboard-backup')]);
      expect(download.suggestedFilename()).toMatch(/^Backup-\d+-backup-\d{4}-\d{2}-\d{2}\.json$/);
      const file = await download.path();
      const backup = JSON.parse(await readFile(file!, 'utf8')) as { format: string; datasources: { id: string }[]; reports: unknown[] };
      expect(backup.format).toBe('cairn.dashboard-backup');
      expect(backup.reports).toHaveLength(2);

      // A backup from an organization whose datasource this one lacks: the API's message is shown.
      await page.goto(`${origin}/app/`);
      await page.click('[data-testid="restore-open"]');
      const broken = JSON.stringify(backup).replaceAll(backup.datasources[0]!.id, 'dsr_missing_one');
      await page.setInputFiles('[data-testid="restore-file"]', { name: 'broken.json', mimeType: 'application/json', buffer: Buffer.from(broken) });
      await page.click('[data-testid="restore-submit"]');
      await page.locator('[data-testid="restore-errors"]').waitFor();
      expect(await page.textContent('[data-testid="restore-errors"]')).toContain('dsr_missing_one');

      await page.setInputFiles('[data-testid="restore-file"]', file!);
      await page.click('[data-testid="restore-submit"]');
      await page.waitForURL((u) => /\/app\/dashboards\/dsh_/.test(u.pathname) && !u.pathname.endsWith(id));
      await waitForTiles(page);
      const titles = await page.$$eval('section.tile h2', (els) => els.map((e) => e.textContent?.trim()).sort());
      expect(titles).toEqual(['All orders', 'Orders by status']);
      await page.locator('h1', { hasText: name }).waitFor();
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
