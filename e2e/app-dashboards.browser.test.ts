/**
 * The dashboards experience in Debian's Chromium: the list (groups, search, create, duplicate, delete),
 * the sample dashboard and the chart gallery with every chart drawn, filters that change the numbers and
 * live in the URL, lock, refresh, a viewer without edit controls, and the first-chart time of a
 * 20-report dashboard. Screenshots go to .test-artifacts/dashboards/ (gitignored).
 */
import { mkdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { hashPassword, newId } from '@cairn/core';
import { CHART_GALLERY_NAME, GALLERY_REPORTS } from '../db/src/seed/chart-gallery.ts';
import { SAMPLE_DASHBOARD_NAME } from '../db/src/seed/sample-dashboard.ts';
import { apiFetch, getStack, REPO_ROOT } from './harness.ts';
import { launchChromium, signInAt } from './browser-kit.ts';

const ARTIFACTS = join(REPO_ROOT, '.test-artifacts', 'dashboards');
const JSONAPI = { 'content-type': 'application/vnd.api+json' };

/**
 * A filter change re-runs the sample's queries through the whole stack; with the workspace suites running
 * beside e2e (npm test's two lanes) on two cores that has taken more than Playwright's default 30 s, and
 * these tests chain several such steps. This file runs first in the e2e lane, while the stack is cold and
 * lane A starts its heaviest suites: the filter test failed twice in CI on a 60 s wait it passes in 15 s
 * alone. Every wait gets two minutes, and each test five.
 */
const WAIT_MS = 120_000;
vi.setConfig({ testTimeout: 300_000 });

let browser: Browser;
let origin: string;
let adminState: Awaited<ReturnType<BrowserContext['storageState']>>;
let viewerState: Awaited<ReturnType<BrowserContext['storageState']>>;
let viewer: { email: string; password: string; id: string };
let sql: postgres.Sql;
let sampleSql: postgres.Sql;

/** Signs in through the sign-in page (browser-kit: a first sign-in may meet a cold app worker). */
const signIn = (page: Page, email: string, password: string) => signInAt(page, origin, email, password);

async function newPage(state = adminState, viewport = { width: 1440, height: 1000 }) {
  const context = await browser.newContext({ viewport, storageState: state });
  context.setDefaultTimeout(WAIT_MS);
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  return { context, page, errors };
}

/** Waits until no tile is loading and every ready tile has drawn (svg/canvas content, table rows or a number). */
async function waitForTiles(page: Page, timeout = WAIT_MS): Promise<void> {
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

async function openDashboard(page: Page, name: string): Promise<string> {
  await page.goto(`${origin}/app/`);
  await page.locator('.dashboard-card', { hasText: name }).first().click();
  await page.waitForURL(/\/app\/dashboards\/dsh_/);
  await waitForTiles(page);
  return new URL(page.url()).pathname;
}

async function tileStates(page: Page) {
  return page.$$eval('[data-testid^="chart-"]', (els) =>
    els.map((e) => ({
      title: e.closest('section')?.querySelector('h2')?.textContent ?? '',
      type: e.getAttribute('data-chart-type')!,
      state: e.getAttribute('data-state')!,
      drawn: Boolean(e.querySelector('svg *, canvas, tbody tr, [data-testid="number-value"]')),
      error: e.querySelector('[data-testid="report-error"], [data-testid="chart-note"]')?.textContent ?? null,
    })),
  );
}

const tileByTitle = (page: Page, title: string) => page.locator('section.tile', { has: page.locator('h2', { hasText: title }) }).first();
const numberIn = async (page: Page, title: string) => (await tileByTitle(page, title).locator('[data-testid="number-value"]').textContent())?.trim() ?? '';

beforeAll(async () => {
  const stack = getStack();
  if (!stack.app) throw new Error('The stack runs without the web app (stack.app is null).');
  origin = new URL(stack.app).origin;
  mkdirSync(ARTIFACTS, { recursive: true });
  browser = await launchChromium();

  // A viewer of the stack's organization, written as the seed writes users (there is no password-setting API call for tests).
  sql = postgres(stack.database_url, { max: 1, onnotice: () => {} });
  // The sample shop lives in a database of its own (ARCHITECTURE D32), read here as the sample role.
  sampleSql = postgres(stack.sample_database_url, { max: 1, onnotice: () => {} });
  viewer = { email: `viewer-${Date.now()}@dashboards.test`, password: 'viewer-password-42', id: newId('user') };
  await sql`insert into users (id, organization_id, email, firstname, lastname, role, password_hash)
    values (${viewer.id}, ${stack.organization_id}, ${viewer.email}, 'Vera', 'Viewer', 'viewer', ${await hashPassword(viewer.password)})`;

  for (const who of ['admin', 'viewer'] as const) {
    const context = await browser.newContext();
    const page = await context.newPage();
    if (who === 'admin') await signIn(page, stack.admin.email, stack.admin.password);
    else await signIn(page, viewer.email, viewer.password);
    if (who === 'admin') adminState = await context.storageState();
    else viewerState = await context.storageState();
    await context.close();
  }
});

afterAll(async () => {
  await browser?.close();
  await sql?.end({ timeout: 5 });
  await sampleSql?.end({ timeout: 5 });
});

describe('dashboard list', () => {
  it('groups, searches, creates, duplicates and deletes dashboards', async () => {
    const group = await apiFetch('/dashboard_groups', {
      body: { data: { type: 'dashboard_groups', attributes: { name: `Showcase ${Date.now()}` } } },
    });
    expect(group.status).toBe(201);
    const dashboards = await apiFetch<{ data: { id: string; attributes: { name: string } }[] }>('/dashboards?page[size]=200');
    const gallery = dashboards.body.data.find((d) => d.attributes.name === CHART_GALLERY_NAME)!;
    const linked = await apiFetch(`/dashboard_groups/${group.body.data.id}`, {
      method: 'PATCH',
      headers: JSONAPI,
      body: { data: { type: 'dashboard_groups', id: group.body.data.id, relationships: { dashboards: { data: [{ type: 'dashboards', id: gallery.id }] } } } },
    });
    expect(linked.status).toBe(200);

    const { context, page, errors } = await newPage();
    try {
      await page.goto(`${origin}/app/`);
      const sections = page.locator('[data-testid="dashboard-group"]');
      const titles = await sections.locator('h2').allTextContents();
      expect(titles.some((t) => t.startsWith('Showcase'))).toBe(true);
      expect(titles.at(-1)).toMatch(/^Other dashboards/);
      const showcase = sections.filter({ hasText: 'Showcase' }).first();
      expect(await showcase.locator('.dashboard-card').allTextContents()).toEqual([expect.stringContaining(CHART_GALLERY_NAME)]);

      await page.fill('[data-testid="dashboard-search"]', 'gallery');
      expect(await page.locator('.dashboard-card', { hasText: SAMPLE_DASHBOARD_NAME }).count()).toBe(0);
      expect(await page.locator('.dashboard-card', { hasText: CHART_GALLERY_NAME }).count()).toBeGreaterThan(0);
      await page.fill('[data-testid="dashboard-search"]', 'no such dashboard');
      await page.locator('[data-testid="dashboards-no-match"]').waitFor();

      const name = `E2E board ${Date.now()}`;
      await page.fill('[data-testid="dashboard-search"]', '');
      await page.click('[data-testid="new-dashboard"]');
      await page.fill('[data-testid="new-dashboard-name"]', name);
      await page.click('[data-testid="new-dashboard-create"]');
      await page.waitForURL(/\/app\/dashboards\/dsh_/);
      // Client-side navigation: the URL may change before the new page is drawn.
      await page.locator('h1', { hasText: name }).waitFor();
      const id = page.url().split('/').pop()!;

      await page.goto(`${origin}/app/`);
      const card = page.locator('.dashboard-tile', { hasText: name }).first();
      await card.hover();
      await card.locator('[data-testid="dashboard-card-duplicate"]').click();
      await page
        .locator('.dashboard-card', { hasText: `${name} (copy)` })
        .first()
        .waitFor();

      page.on('dialog', (d) => void d.accept());
      for (const n of [`${name} (copy)`, name]) {
        const c = page.locator('.dashboard-tile').filter({ has: page.locator('h3', { hasText: new RegExp(`^${n.replace(/[()]/g, '\\$&')}$`) }) });
        await c.hover();
        await c.locator('[data-testid="dashboard-card-delete"]').click();
        await c.waitFor({ state: 'detached' });
      }
      expect(await page.locator('.dashboard-card', { hasText: name }).count()).toBe(0);
      expect((await apiFetch(`/dashboards/${id}`)).status).toBe(404);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
      await apiFetch(`/dashboard_groups/${group.body.data.id}`, { method: 'DELETE' });
    }
  });
});

describe('dashboard view', () => {
  it('draws every chart of the sample dashboard', async () => {
    const { context, page, errors } = await newPage();
    try {
      await openDashboard(page, SAMPLE_DASHBOARD_NAME);
      const tiles = await tileStates(page);
      expect(tiles.length).toBeGreaterThanOrEqual(5);
      expect(tiles.filter((t) => t.state !== 'ready' || !t.drawn || t.error)).toEqual([]);
      expect(await page.locator('[data-testid="tile-age"]').first().textContent()).toMatch(/updated/);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('draws every chart type of the chart gallery, in light and dark mode', async () => {
    const { context, page, errors } = await newPage();
    try {
      await openDashboard(page, CHART_GALLERY_NAME);
      const tiles = await tileStates(page);
      expect(tiles).toHaveLength(GALLERY_REPORTS.length);
      expect(tiles.filter((t) => t.state !== 'ready' || !t.drawn || t.error)).toEqual([]);
      expect(new Set(tiles.map((t) => t.type))).toEqual(
        new Set(['table', 'pivot', 'multi_pivot', 'number', 'pie', 'line', 'bar', 'map', 'gauge', 'xy_bubble', 'word_cloud', 'histogram', 'hierarchy']),
      );
      // Spot checks that each chart drew its data, not just a frame.
      expect(await tileByTitle(page, 'Revenue by category').locator('svg path').count()).toBeGreaterThanOrEqual(8);
      expect(await tileByTitle(page, 'Customers by city (map)').locator('[data-testid="map-points"] circle').count()).toBeGreaterThan(10);
      expect(await tileByTitle(page, 'Revenue by country (map)').locator('svg path').count()).toBeGreaterThan(100);
      expect(Number(await tileByTitle(page, 'Cities by customers').locator('svg').getAttribute('data-words'))).toBeGreaterThan(20);
      expect(Number(await tileByTitle(page, 'Order totals').locator('[data-bins]').getAttribute('data-bins'))).toBe(40);
      expect(await tileByTitle(page, 'Countries by sessions and conversion').locator('[data-testid="trend-line"]').count()).toBe(1);
      expect(await tileByTitle(page, 'Conversion rate').locator('[data-testid="gauge-target"]').count()).toBe(1);
      expect(await tileByTitle(page, 'Customer retention').locator('tbody tr th').first().textContent()).toMatch(/^2025-11/);
      // The aggregation built-in appears because a report uses it, preset by the dashboard's default.
      expect(await page.inputValue('[data-testid="filter-aggregation"]')).toBe('month');

      // Sorting the table by a header reverses the order.
      const table = tileByTitle(page, 'Latest orders');
      const firstId = async () => (await table.locator('tbody tr:not([aria-hidden]) td').first().textContent())?.trim();
      const before = await firstId();
      await table.locator('[data-testid="sort-order_id"]').click();
      expect(await firstId()).not.toBe(before);

      await page.screenshot({ path: join(ARTIFACTS, 'chart-gallery-light.png'), fullPage: true });
      await page.click('[data-testid="theme-toggle"]');
      expect(await page.getAttribute('html', 'data-theme')).toBe('dark');
      await page.reload();
      await waitForTiles(page);
      await page.screenshot({ path: join(ARTIFACTS, 'chart-gallery-dark.png'), fullPage: true });
      await page.click('[data-testid="theme-toggle"]');
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('changes the numbers with filters, keeps them in the URL and restores them on reload', async () => {
    const { context, page, errors } = await newPage();
    try {
      const path = await openDashboard(page, SAMPLE_DASHBOARD_NAME);
      const total = await numberIn(page, 'Total revenue');
      const bar = tileByTitle(page, 'Revenue by country');
      expect(await bar.textContent()).toContain('France');

      // One country from the country dropdown (its manual options).
      await page.click('[data-testid="filter-country"]');
      await page.click('[data-testid="filter-country-option-DE"]');
      await page.keyboard.press('Escape');
      await page.waitForURL(/f\.country=DE/);
      await page.waitForFunction((before) => {
        const el = [...document.querySelectorAll('section.tile')].find((s) => s.querySelector('h2')?.textContent === 'Total revenue');
        return el?.querySelector('[data-testid="number-value"]')?.textContent?.trim() !== before && !el?.querySelector('.is-updating');
      }, total);
      await waitForTiles(page);
      const germany = await numberIn(page, 'Total revenue');
      expect(germany).not.toBe(total);
      expect(await bar.textContent()).toContain('Germany');
      expect(await bar.textContent()).not.toContain('France');

      // March 2025 through the range picker: the URL holds both days as unix seconds.
      await page.click('[data-testid="filter-order_date"]');
      await page.click('[data-testid="filter-order_date-mode-between"]');
      await page.fill('[data-testid="filter-order_date-start"]', '2025-03-01');
      await page.fill('[data-testid="filter-order_date-end"]', '2025-03-31');
      await page.click('[data-testid="filter-order_date-set"]');
      await page.waitForURL(/f\.order_date=/);
      expect(new URL(page.url()).searchParams.get('f.order_date')).toBe(`${Date.UTC(2025, 2, 1) / 1000}~${Date.UTC(2025, 2, 31) / 1000}`);
      await page.waitForFunction((before) => {
        const el = [...document.querySelectorAll('section.tile')].find((s) => s.querySelector('h2')?.textContent === 'Total revenue');
        return el?.querySelector('[data-testid="number-value"]')?.textContent?.trim() !== before;
      }, germany);
      await waitForTiles(page);
      const march = await numberIn(page, 'Total revenue');
      expect(Number(march.replace(/[^\d.]/g, ''))).toBeLessThan(Number(germany.replace(/[^\d.]/g, '')));

      // A reload restores the view from the URL alone.
      const url = page.url();
      await page.reload();
      await waitForTiles(page);
      expect(page.url()).toBe(url);
      expect(await numberIn(page, 'Total revenue')).toBe(march);
      expect(await page.locator('[data-testid="filter-country"]').textContent()).toContain('Germany');
      expect(await page.locator('[data-testid="filter-order_date"]').textContent()).toContain('Mar 1, 2025');

      // A relative range after the sample data ends: every report shows its no-data message.
      await page.click('[data-testid="filter-order_date"]');
      await page.click('[data-testid="filter-order_date-mode-relative"]');
      await page.click('[data-testid="filter-order_date-preset-today"]');
      await page.waitForURL(/f\.order_date=today/);
      await page.waitForFunction(() => document.querySelectorAll('[data-testid="report-empty"]').length > 0, undefined, { timeout: WAIT_MS });
      expect(await page.locator('[data-testid="report-empty"]').first().textContent()).toBe('No data for these filters.');

      // A malformed value is reported, not sent; Reset clears the URL.
      await page.goto(`${origin}${path}?f.order_date=soon`);
      await expect(page.locator('.filter-bar__problems').textContent()).resolves.toContain('Date');
      await page.click('[data-testid="filter-reset"]');
      await page.waitForURL(`${origin}${path}`);
      await waitForTiles(page);
      expect(await numberIn(page, 'Total revenue')).toBe(total);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('refreshes on demand, shows the lock and hides edit controls while locked', async () => {
    const { context, page, errors } = await newPage();
    try {
      const path = await openDashboard(page, CHART_GALLERY_NAME);
      const id = path.split('/').pop()!;
      const statusCalls: boolean[] = [];
      page.on('request', (r) => {
        if (r.url().endsWith(`/app/dashboards/${id}/status`)) statusCalls.push(JSON.parse(r.postData() ?? '{}').refresh_data === true);
      });
      await page.click('[data-testid="dashboard-refresh"]');
      await page.waitForFunction(() => document.querySelector('[aria-busy="true"]') !== null || true);
      await expect.poll(() => statusCalls.includes(true)).toBe(true);
      await waitForTiles(page);

      expect(await page.locator('[data-testid="tile-edit"]').count()).toBe(GALLERY_REPORTS.length);
      await page.click('[data-testid="dashboard-menu"]');
      expect(await page.locator('[data-testid="dashboard-edit"]').count()).toBe(1);
      await page.click('[data-testid="dashboard-lock"]');
      await page.locator('[data-testid="locked-badge"]').waitFor();
      // Locked: no edit controls at all, only the way to unlock.
      expect(await page.locator('[data-testid="tile-edit"]').count()).toBe(0);
      await page.click('[data-testid="dashboard-menu"]');
      expect(await page.locator('[data-testid="dashboard-delete"], [data-testid="dashboard-edit"], [data-testid="dashboard-add-report"]').count()).toBe(0);
      expect(await page.locator('[data-testid="dashboard-unlock"]').count()).toBe(1);
      expect((await apiFetch(`/dashboards/${id}`)).body.data.attributes.is_locked).toBe(true);
      await page.click('[data-testid="dashboard-unlock"]');
      await page.locator('[data-testid="locked-badge"]').waitFor({ state: 'detached' });
      expect((await apiFetch(`/dashboards/${id}`)).body.data.attributes.is_locked).toBe(false);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('lays tiles in one column on a narrow screen', async () => {
    const { context, page } = await newPage(adminState, { width: 420, height: 900 });
    try {
      await openDashboard(page, SAMPLE_DASHBOARD_NAME);
      const boxes = await page.$$eval('section.tile', (els) =>
        els.map((e) => e.getBoundingClientRect()).map((r) => ({ x: Math.round(r.x), w: Math.round(r.width), y: r.y })),
      );
      expect(new Set(boxes.map((b) => b.x)).size).toBe(1);
      for (let i = 1; i < boxes.length; i++) expect(boxes[i]!.y).toBeGreaterThan(boxes[i - 1]!.y);
      await page.screenshot({ path: join(ARTIFACTS, 'sample-dashboard-narrow.png'), fullPage: true });
    } finally {
      await context.close();
    }
  });
});

describe('filter settings', () => {
  it('waits for a required query-driven dropdown, applies on Apply and offers the time zones', async () => {
    const ds = await apiFetch<{ data: { id: string; attributes: { name: string } }[] }>('/datasources');
    const sample = ds.body.data.find((d) => d.attributes.name === 'Sample data') ?? ds.body.data[0]!;
    const created = await apiFetch<{ data: { id: string } }>('/dashboards', {
      body: {
        data: {
          type: 'dashboards',
          attributes: {
            name: `Filter settings ${Date.now()}`,
            filters_configuration: { apply_immediately: false },
            time_zone_config: { type: 'input', fixed_time_zone: 'Europe/Berlin', allowed_time_zones: ['Europe/Berlin', 'America/New_York'] },
          },
        },
      },
    });
    expect(created.status, created.text).toBe(201);
    const id = created.body.data.id;
    try {
      const filter = await apiFetch('/filters', {
        body: {
          data: {
            type: 'filters',
            attributes: {
              display_name: 'Shop country',
              variable_name: 'shop_country',
              control_type: 'dropdown_multi',
              value_type: 'TEXT',
              sql_query: 'SELECT code, name FROM countries ORDER BY name',
              required: true,
            },
            relationships: { datasource: { data: { type: 'datasources', id: sample.id } }, dashboards: { data: [{ type: 'dashboards', id }] } },
          },
        },
      });
      expect(filter.status, filter.text).toBe(201);
      const report = await apiFetch<{ data: { id: string } }>('/reports', {
        body: {
          data: {
            type: 'reports',
            attributes: { name: 'Orders', sql_query: 'SELECT count(*) AS orders FROM orders o WHERE {[o.country]=shop_country}', width: 4, height: 3 },
            relationships: { dashboard: { data: { type: 'dashboards', id } }, datasource: { data: { type: 'datasources', id: sample.id } } },
          },
        },
      });
      expect(report.status, report.text).toBe(201);
      await sql`update reports set chart_configuration = ${sql.json({ type: 'number', value: 'orders' })} where id = ${report.body.data.id}`;

      const { context, page, errors } = await newPage();
      try {
        await page.goto(`${origin}/app/dashboards/${id}`);
        await page.locator('[data-testid="report-waiting"]').waitFor();
        expect(await page.locator('[data-testid="report-waiting"]').textContent()).toContain('Shop country');

        // The options come from the filter's query, through the status call and the data server.
        await page.click('[data-testid="filter-shop_country"]');
        await page.locator('[data-testid="filter-shop_country-option-DE"]').waitFor({ timeout: 60_000 });
        expect(await page.locator('.dropdown-panel__option', { hasText: 'Germany' }).count()).toBe(1);
        await page.click('[data-testid="filter-shop_country-option-DE"]');
        await page.keyboard.press('Escape');
        await page.selectOption('[data-testid="filter-tz"]', 'America/New_York');
        // Nothing is applied before Apply.
        expect(page.url()).not.toContain('f.shop_country');
        expect(await page.locator('[data-testid="report-waiting"]').count()).toBe(1);
        await page.click('[data-testid="filter-apply"]');
        await page.waitForURL(/f\.shop_country=DE/);
        expect(new URL(page.url()).searchParams.get('tz')).toBe('America/New_York');
        await waitForTiles(page);
        const germany = Number((await numberIn(page, 'Orders')).replace(/\D/g, ''));
        expect(germany).toBeGreaterThan(0);

        // A second country, applied: more orders.
        await page.click('[data-testid="filter-shop_country"]');
        await page.click('[data-testid="filter-shop_country-option-FR"]');
        await page.keyboard.press('Escape');
        await page.click('[data-testid="filter-apply"]');
        await page.waitForURL(/f\.shop_country=DE,FR/);
        await page.waitForFunction(
          (before) => {
            const v = document.querySelector('[data-testid="number-value"]')?.textContent?.replace(/\D/g, '');
            return v && Number(v) > before;
          },
          germany,
          { timeout: 60_000 },
        );
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    } finally {
      await apiFetch(`/dashboards/${id}`, { method: 'DELETE' });
    }
  });
});

describe('the report menu, time zones and the editor link', () => {
  it('downloads the filtered rows as CSV, shows date-times in the dashboard zone and opens the editor with the filters', async () => {
    const ds = await apiFetch<{ data: { id: string; attributes: { name: string } }[] }>('/datasources');
    const sample = ds.body.data.find((d) => d.attributes.name === 'Sample data') ?? ds.body.data[0]!;
    const zone = 'America/New_York';
    const created = await apiFetch<{ data: { id: string } }>('/dashboards', {
      body: {
        data: { type: 'dashboards', attributes: { name: `Orders in New York time ${Date.now()}`, time_zone_config: { type: 'fixed', fixed_time_zone: zone } } },
      },
    });
    expect(created.status, created.text).toBe(201);
    const id = created.body.data.id;
    try {
      const filter = await apiFetch('/filters', {
        body: {
          data: {
            type: 'filters',
            attributes: {
              display_name: 'Shop country',
              variable_name: 'shop_country',
              control_type: 'dropdown_multi_manual',
              value_type: 'TEXT',
              values: ['DE', 'FR'],
              value_names: ['Germany', 'France'],
            },
            relationships: { datasource: { data: { type: 'datasources', id: sample.id } }, dashboards: { data: [{ type: 'dashboards', id }] } },
          },
        },
      });
      expect(filter.status, filter.text).toBe(201);
      const name = 'Latest orders by country';
      const report = await apiFetch<{ data: { id: string } }>('/reports', {
        body: {
          data: {
            type: 'reports',
            attributes: {
              name,
              width: 12,
              height: 5,
              sql_query:
                'SELECT o.id AS order_id, o.ordered_at, o.country FROM orders o WHERE {[o.country]=shop_country} ORDER BY o.ordered_at DESC, o.id DESC LIMIT 5',
            },
            relationships: { dashboard: { data: { type: 'dashboards', id } }, datasource: { data: { type: 'datasources', id: sample.id } } },
          },
        },
      });
      expect(report.status, report.text).toBe(201);
      const reportId = report.body.data.id;
      // What the table must show: the newest German order's time on the New York wall clock.
      const [newest] = await sampleSql<{ order_id: number; ordered_at: Date }[]>`
        select id as order_id, ordered_at from sample_shop.orders where country = 'DE' order by ordered_at desc, id desc limit 1`;
      const wall = (d: Date, tz: string) => {
        const p = Object.fromEntries(
          new Intl.DateTimeFormat('en-CA', {
            timeZone: tz,
            year: 'numeric',
            month: '2-digit',
            day: '2-digit',
            hour: '2-digit',
            minute: '2-digit',
            second: '2-digit',
            hourCycle: 'h23',
          })
            .formatToParts(d)
            .map((x) => [x.type, x.value]),
        );
        return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}${p.second === '00' ? '' : `:${p.second}`}`;
      };
      const inNewYork = wall(newest!.ordered_at, zone);
      expect(inNewYork).not.toBe(wall(newest!.ordered_at, 'UTC'));

      const { context, page, errors } = await newPage();
      try {
        await page.goto(`${origin}/app/dashboards/${id}?f.shop_country=DE`);
        await waitForTiles(page);
        const tile = tileByTitle(page, name);
        const firstRow = tile.locator('[data-testid="table-view"] tbody tr:not(.table-view__pad)').first();
        expect(await firstRow.locator('td').nth(0).textContent()).toBe(String(newest!.order_id));
        expect(await firstRow.locator('td').nth(1).textContent()).toBe(inNewYork);
        // The data age names the dashboard's zone too.
        expect(await tile.locator('[data-testid="tile-age"]').getAttribute('title')).toContain(`(${zone})`);

        // CSV from the tile's menu: the rows the tile shows, with the dashboard's filter values.
        await tile.hover();
        await tile.locator('[data-testid="tile-downloads"]').click();
        const [download] = await Promise.all([page.waitForEvent('download'), tile.locator('[data-testid="download-csv"]').click()]);
        expect(download.suggestedFilename()).toBe(`${name}.csv`);
        const csv = (await readFile((await download.path())!, 'utf8'))
          .replace(/^\uFEFF/, '')
          .trim()
          .split(/\r?\n/);
        expect(csv[0]).toMatch(/order_id.*ordered_at.*country/i);
        expect(csv).toHaveLength(6);
        expect(csv.slice(1).every((line) => line.split(',').at(-1)?.replace(/"/g, '') === 'DE')).toBe(true);
        expect(csv[1]!.startsWith(String(newest!.order_id))).toBe(true);

        // Maximize and restore.
        await tile.locator('[data-testid="tile-maximize"]').click();
        await page.locator('section.tile[data-maximized="true"]').waitFor();
        await page.keyboard.press('Escape');
        await page.locator('section.tile[data-maximized="true"]').waitFor({ state: 'detached' });

        // The editor opened from the filtered dashboard keeps the filter value: Run uses it.
        await tile.hover();
        await tile.locator('[data-testid="tile-edit"]').click();
        await page.waitForURL((u) => u.pathname === `/app/reports/${reportId}`);
        expect(new URL(page.url()).searchParams.get('f.shop_country')).toBe('DE');
        expect(await page.locator('[data-testid="filter-shop_country"]').textContent()).toContain('Germany');
        await page.click('[data-testid="run-query"]');
        await page.waitForFunction(() => document.querySelector('[data-testid="run-status"]')?.getAttribute('data-phase') === 'done', undefined, {
          timeout: 30_000,
        });
        const result = page.locator('[data-testid="result-table"] tbody tr:not(.table-view__pad)');
        await result.first().waitFor();
        const countries = await result.evaluateAll((rows) => rows.map((r) => r.querySelectorAll('td')[2]?.textContent ?? ''));
        expect(countries).toEqual(['DE', 'DE', 'DE', 'DE', 'DE']);
        expect(await result.first().locator('td').nth(1).textContent()).toBe(inNewYork);
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    } finally {
      await apiFetch(`/dashboards/${id}`, { method: 'DELETE' });
    }
  });
});

describe('drill-downs', () => {
  it('are set in the editor, and a click on a bar or a table row opens the target filtered by that row', async () => {
    const sample = (await apiFetch<{ data: { id: string; attributes: { is_sample?: boolean } }[] }>('/datasources')).body.data.find(
      (d) => d.attributes.is_sample,
    )!;
    const board = async (name: string) => {
      const res = await apiFetch<{ data: { id: string } }>('/dashboards', { body: { data: { type: 'dashboards', attributes: { name } } }, headers: JSONAPI });
      expect(res.status, res.text).toBe(201);
      return res.body.data.id;
    };
    const report = async (dashboard: string, name: string, sqlQuery: string, chart: Record<string, unknown>) => {
      const res = await apiFetch<{ data: { id: string } }>('/reports', {
        headers: JSONAPI,
        body: {
          data: {
            type: 'reports',
            attributes: { name, sql_query: sqlQuery, width: 6, height: 4 },
            relationships: { dashboard: { data: { type: 'dashboards', id: dashboard } }, datasource: { data: { type: 'datasources', id: sample.id } } },
          },
        },
      });
      expect(res.status, res.text).toBe(201);
      await sql`update reports set chart_configuration = ${sql.json(chart as never)} where id = ${res.body.data.id}`;
      return res.body.data.id;
    };
    const tag = Date.now();
    const target = await board(`Country detail ${tag}`);
    const filter = await apiFetch('/filters', {
      headers: JSONAPI,
      body: {
        data: {
          type: 'filters',
          attributes: { display_name: 'Country', variable_name: 'drill_country', control_type: 'input_multi', value_type: 'TEXT' },
          relationships: { dashboards: { data: [{ type: 'dashboards', id: target }] } },
        },
      },
    });
    expect(filter.status, filter.text).toBe(201);
    await report(target, 'Orders of the country', 'SELECT count(*) AS orders FROM orders o WHERE {[o.country]=drill_country}', {
      type: 'number',
      value: 'orders',
    });
    const source = await board(`Drill source ${tag}`);
    const byCountry = 'SELECT o.country, count(*) AS orders FROM orders o GROUP BY 1 ORDER BY 1';
    const bars = await report(source, 'Orders by country', byCountry, { type: 'bar', x: 'country', y: ['orders'] });
    await report(source, 'Orders table', byCountry, {
      type: 'table',
      drilldown: { dashboard_id: target, mapping: [{ column: 'country', variable: 'drill_country' }], keep_filters: false },
    });

    const { context, page, errors } = await newPage();
    try {
      // The editor: choose the target, map its filter to a column, save.
      await page.goto(`${origin}/app/reports/${bars}`);
      // The mapping offers the result's columns: run the query first.
      await page.click('[data-testid="run-query"]');
      await page.locator('[data-testid="run-status"][data-status="success"]').waitFor({ timeout: 30_000 });
      await page.click('[data-testid="tab-chart"]');
      await page.selectOption('[data-testid="drilldown-dashboard"]', target);
      await page.selectOption('[data-testid="drilldown-map-drill_country"]', 'country');
      await page.click('[data-testid="save-report"]');
      await page.waitForURL(new RegExp(`/app/dashboards/${source}`));
      const [saved] = await sql<{ chart_configuration: { drilldown?: unknown } }[]>`select chart_configuration from reports where id = ${bars}`;
      expect(saved!.chart_configuration.drilldown).toEqual({ dashboard_id: target, mapping: [{ variable: 'drill_country', column: 'country' }] });

      // A click on a bar opens the target with that bar's country; the viewer's time zone comes along.
      await page.goto(`${origin}/app/dashboards/${source}?tz=UTC`);
      await waitForTiles(page);
      const barTile = tileByTitle(page, 'Orders by country');
      expect(await barTile.locator('[data-drill]').count()).toBe(1);
      await barTile.locator('svg rect[fill]:not([fill="transparent"])').first().click();
      await page.waitForURL(new RegExp(`/app/dashboards/${target}\\?`));
      const opened = new URL(page.url());
      const country = opened.searchParams.get('f.drill_country');
      expect(country).toMatch(/^[A-Z]{2}$/);
      expect(opened.searchParams.get('tz')).toBe('UTC');
      await waitForTiles(page);
      const one = Number((await numberIn(page, 'Orders of the country')).replace(/\D/g, ''));
      const [count] = await sampleSql<{ n: number }[]>`select count(*)::int as n from sample_shop.orders where country = ${country}`;
      expect(one).toBe(count!.n);

      // A table row drills too (here without the viewer's filters).
      await page.goto(`${origin}/app/dashboards/${source}`);
      await waitForTiles(page);
      const row = tileByTitle(page, 'Orders table').locator('[data-testid="drill-row"]').nth(1);
      const rowCountry = (await row.locator('td').first().textContent())!.trim();
      await row.click();
      await page.waitForURL(new RegExp(`/app/dashboards/${target}\\?f\\.drill_country=${rowCountry}$`));
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});

describe('notes under a chart', () => {
  it('shows the attribution, and names set filters a report does not use when it asks for the warning', async () => {
    const sample = (await apiFetch<{ data: { id: string; attributes: { is_sample?: boolean } }[] }>('/datasources')).body.data.find(
      (d) => d.attributes.is_sample,
    )!;
    const dash = await apiFetch<{ data: { id: string } }>('/dashboards', {
      headers: JSONAPI,
      body: { data: { type: 'dashboards', attributes: { name: `Notes ${Date.now()}` } } },
    });
    const id = dash.body.data.id;
    const filter = await apiFetch('/filters', {
      headers: JSONAPI,
      body: {
        data: {
          type: 'filters',
          attributes: { display_name: 'Order status', variable_name: 'note_status', control_type: 'input_multi', value_type: 'TEXT' },
          relationships: { dashboards: { data: [{ type: 'dashboards', id }] } },
        },
      },
    });
    expect(filter.status, filter.text).toBe(201);
    const add = async (name: string, sqlQuery: string, extra: Record<string, unknown>) => {
      const res = await apiFetch<{ data: { id: string } }>('/reports', {
        headers: JSONAPI,
        body: {
          data: {
            type: 'reports',
            attributes: { name, sql_query: sqlQuery, width: 6, height: 3, ...extra },
            relationships: { dashboard: { data: { type: 'dashboards', id } }, datasource: { data: { type: 'datasources', id: sample.id } } },
          },
        },
      });
      expect(res.status, res.text).toBe(201);
    };
    await add('Filtered', 'SELECT count(*) AS n FROM orders o WHERE {[o.status]=note_status}', {
      unused_filters_warning_enabled: true,
      attribution: 'Source: shop database',
    });
    await add('Unfiltered', 'SELECT count(*) AS n FROM orders o', { unused_filters_warning_enabled: true });
    await add('Quiet', 'SELECT count(*) AS n FROM orders o', {});

    const { context, page, errors } = await newPage();
    try {
      await page.goto(`${origin}/app/dashboards/${id}`);
      await waitForTiles(page);
      // No filter set: no warning anywhere; the attribution is there.
      expect(await page.locator('[data-testid="tile-unused-filters"]').count()).toBe(0);
      expect(await tileByTitle(page, 'Filtered').locator('[data-testid="tile-attribution"]').textContent()).toBe('Source: shop database');
      await page.goto(`${origin}/app/dashboards/${id}?f.note_status=paid`);
      await waitForTiles(page);
      expect(await tileByTitle(page, 'Unfiltered').locator('[data-testid="tile-unused-filters"]').textContent()).toContain('Order status');
      expect(await tileByTitle(page, 'Filtered').locator('[data-testid="tile-unused-filters"]').count()).toBe(0);
      expect(await tileByTitle(page, 'Quiet').locator('[data-testid="tile-unused-filters"]').count()).toBe(0);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});

describe('viewers', () => {
  it('see dashboards without any edit control, and the API refuses their edits', async () => {
    const { context, page, errors } = await newPage(viewerState);
    try {
      await page.goto(`${origin}/app/`);
      await page.locator('.dashboard-card', { hasText: SAMPLE_DASHBOARD_NAME }).first().waitFor();
      expect(await page.locator('[data-testid="new-dashboard"]').count()).toBe(0);
      expect(await page.locator('[data-testid="dashboard-card-duplicate"], [data-testid="dashboard-card-delete"]').count()).toBe(0);

      await openDashboard(page, SAMPLE_DASHBOARD_NAME);
      expect(await page.locator('[data-testid="dashboard-menu"], [data-testid="tile-edit"]').count()).toBe(0);
      expect((await tileStates(page)).every((t) => t.state === 'ready')).toBe(true);

      const token = decodeURIComponent((await context.cookies(origin)).find((c) => c.name === 'cairn_session')!.value);
      const api = getStack().regions.eu.api;
      const create = await fetch(new URL('/dashboards', api), {
        method: 'POST',
        headers: { authorization: `Session ${token}`, ...JSONAPI },
        body: JSON.stringify({ data: { type: 'dashboards', attributes: { name: 'Not allowed' } } }),
      });
      expect(create.status).toBe(403);
      // The app's own action answers with the API's refusal too.
      const form = await page.evaluate(async () => {
        const body = new URLSearchParams({ intent: 'create', name: 'Not allowed either' });
        const res = await fetch('/app/', { method: 'POST', body, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
        return res.status;
      });
      expect(form).toBe(403);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});

describe('large results', () => {
  it('scrolls a page of a 100,000-row table with only the visible rows in the page', async () => {
    const ds = await apiFetch<{ data: { id: string; attributes: { name: string } }[] }>('/datasources');
    const sample = ds.body.data.find((d) => d.attributes.name === 'Sample data') ?? ds.body.data[0]!;
    const created = await apiFetch<{ data: { id: string } }>('/dashboards', {
      body: { data: { type: 'dashboards', attributes: { name: `Big table ${Date.now()}` } } },
    });
    const id = created.body.data.id;
    try {
      const report = await apiFetch('/reports', {
        body: {
          data: {
            type: 'reports',
            attributes: {
              name: 'A hundred thousand rows',
              sql_query: "SELECT g AS n, 'row ' || g AS label, g * 1.5 AS amount FROM generate_series(1, 100000) g",
              width: 12,
              height: 6,
            },
            relationships: { dashboard: { data: { type: 'dashboards', id } }, datasource: { data: { type: 'datasources', id: sample.id } } },
          },
        },
      });
      expect(report.status, report.text).toBe(201);
      const { context, page, errors } = await newPage();
      try {
        await page.goto(`${origin}/app/dashboards/${id}`);
        await waitForTiles(page, 120_000);
        // The tile holds one page of the result (issue 15) and counts the whole result in its pager.
        expect(await page.getByTestId('table-range').textContent()).toBe('Rows 1–200 of 100,000');
        const scroller = page.locator('.table-view__scroll');
        const rendered = await page.locator('.table-view tbody tr:not([aria-hidden])').count();
        expect(rendered).toBeLessThan(100);
        // Scroll to the end in steps and time the frames.
        const frames = await scroller.evaluate(async (el) => {
          const times: number[] = [];
          for (let i = 1; i <= 20; i++) {
            const t = performance.now();
            el.scrollTop = (el.scrollHeight * i) / 20;
            await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
            times.push(performance.now() - t);
          }
          return times;
        });
        await page.locator('.table-view tbody td', { hasText: /^200$/ }).waitFor();
        expect(await page.locator('.table-view tbody tr:not([aria-hidden])').count()).toBeLessThan(100);
        const median = [...frames].sort((a, b) => a - b)[10]!;
        console.log(`[bench] 100k-row table: median ${Math.round(median)} ms per scroll step (two frames), max ${Math.round(Math.max(...frames))} ms`);
        expect(median).toBeLessThan(200);
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    } finally {
      await apiFetch(`/dashboards/${id}`, { method: 'DELETE' });
    }
  });
});

describe('a dashboard of 20 reports', () => {
  it('draws its first chart soon after its data arrives, without waiting for the other tiles', async () => {
    const ds = await apiFetch<{ data: { id: string; attributes: { name: string } }[] }>('/datasources');
    const sample = ds.body.data.find((d) => d.attributes.name === 'Sample data') ?? ds.body.data[0]!;
    const created = await apiFetch<{ data: { id: string } }>('/dashboards', {
      body: { data: { type: 'dashboards', attributes: { name: `Twenty reports ${Date.now()}` } } },
    });
    expect(created.status).toBe(201);
    const dashboardId = created.body.data.id;
    try {
      const specs = Array.from({ length: 20 }, (_, i) => GALLERY_REPORTS[i % GALLERY_REPORTS.length]!);
      // Without the sample dashboard's filters the date conditions use the built-in timerange.
      for (const [i, r] of specs.entries()) {
        const res = await apiFetch('/reports', {
          body: {
            data: {
              type: 'reports',
              attributes: { name: `${r.name} #${i + 1}`, sql_query: r.sql.replaceAll('=order_date', '=timerange'), width: 4, height: 4 },
              relationships: { dashboard: { data: { type: 'dashboards', id: dashboardId } }, datasource: { data: { type: 'datasources', id: sample.id } } },
            },
          },
        });
        expect(res.status, res.text).toBe(201);
        // chart_configuration is read-only in the API: the seed-like shape is written as the report editor will.
        await sql`update reports set chart_configuration = ${sql.json(r.chart as never)} where id = ${(res.body as { data: { id: string } }).data.id}`;
      }
      const measure = async () => {
        const { context, page } = await newPage();
        try {
          await page.goto(`${origin}/app/dashboards/${dashboardId}`);
          await waitForTiles(page, 120_000);
          const undrawn = (await tileStates(page)).filter((t) => !t.drawn || t.state !== 'ready');
          expect(undrawn).toEqual([]);
          return await page.evaluate(() => {
            const marks = performance.getEntriesByType('mark');
            const at = (prefix: string) => marks.filter((m) => m.name.startsWith(prefix)).map((m) => ({ id: m.name.slice(prefix.length), t: m.startTime }));
            const data = at('cairn:data:'),
              drawn = at('cairn:drawn:');
            const firstDrawn = drawn.reduce((a, b) => (b.t < a.t ? b : a));
            const dataOfFirst = data.find((d) => d.id === firstDrawn.id)!;
            return {
              reports: drawn.length,
              firstDataMs: Math.round(Math.min(...data.map((d) => d.t))),
              firstChartMs: Math.round(firstDrawn.t),
              firstChartAfterItsDataMs: Math.round(firstDrawn.t - dataOfFirst.t),
              lastChartMs: Math.round(Math.max(...drawn.map((d) => d.t))),
              worstChartAfterItsDataMs: Math.round(Math.max(...drawn.map((d) => d.t - (data.find((x) => x.id === d.id)?.t ?? d.t)))),
            };
          });
        } finally {
          await context.close();
        }
      };
      const cold = await measure();
      const warm = await measure();
      console.log(`[bench] 20-report dashboard, first chart: ${JSON.stringify({ cold, warm })}`);
      for (const run of [cold, warm]) {
        expect(run.reports).toBe(20);
        // The goal is a second (logged above as [bench]); on a loaded CI machine the test holds only that the
        // first chart is not held back behind the other tiles (a timing goal is a benchmark's, not a test's).
        expect(run.firstChartAfterItsDataMs).toBeLessThan(15_000);
      }
    } finally {
      await apiFetch(`/dashboards/${dashboardId}`, { method: 'DELETE' });
    }
  });
});
