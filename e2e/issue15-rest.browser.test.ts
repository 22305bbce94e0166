/**
 * Issue 15, the rest, in Debian's Chromium: the report editor downloads the whole result of SQL it has
 * not saved (from the run's execution); a dashboard keeps one colour per series value (series_colors,
 * stored as its charts first show the values, the same on every tile and visit); a relative range in
 * the dashboard's default_parameters is worked out by the API when the data runs; the schedule form picks
 * its values with the dashboard's filter bar (a relative range stays a token); a sharing link draws each
 * series value in the dashboard's stored colour, without writing the map.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import postgres from 'postgres';
import { apiFetch, getStack } from './harness.ts';
import { type SessionState, startAsAdmin, writeSql } from './browser-kit.ts';

const STAMP = Date.now().toString(36);
let browser: Browser;
let origin: string;
let adminState: SessionState;
let sampleId: string;
let dashboardId: string;
const dashboards: string[] = [];

async function newPage() {
  const context = await browser.newContext({ viewport: { width: 1440, height: 1000 }, storageState: adminState });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  return { context, page, errors };
}

async function report(name: string, sql: string, chart: Record<string, unknown> | null = null) {
  const res = await apiFetch<{ data: { id: string } }>('/reports', {
    body: {
      data: {
        type: 'reports',
        attributes: { name, sql_query: sql },
        relationships: { dashboard: { data: { type: 'dashboards', id: dashboardId } }, datasource: { data: { type: 'datasources', id: sampleId } } },
      },
    },
  });
  expect(res.status, res.text).toBe(201);
  // The chart is set as the editor stores it (chart_configuration is read-only through the API).
  if (chart) {
    const db = postgres(getStack().database_url, { max: 1, onnotice: () => {} });
    try {
      await db`update reports set chart_configuration = ${db.json(chart as never)} where id = ${res.body.data.id}`;
    } finally {
      await db.end();
    }
  }
  return res.body.data.id;
}

beforeAll(async () => {
  ({ browser, origin, adminState } = await startAsAdmin());
  const ds = await apiFetch<{ data: { id: string; attributes: { is_sample?: boolean } }[] }>('/datasources');
  sampleId = (ds.body.data.find((d) => d.attributes.is_sample) ?? ds.body.data[0]!).id;
  const made = await apiFetch<{ data: { id: string } }>('/dashboards', {
    body: { data: { type: 'dashboards', attributes: { name: `Issue 15 rest ${STAMP}` } } },
  });
  expect(made.status, made.text).toBe(201);
  dashboardId = made.body.data.id;
  dashboards.push(dashboardId);
}, 120_000);

afterAll(async () => {
  for (const id of dashboards) await apiFetch(`/dashboards/${id}`, { method: 'DELETE' }).catch(() => undefined);
  await browser?.close();
});

describe('issue 15, the rest', () => {
  it('the editor downloads the whole result of SQL that is not saved', async () => {
    const { context, page, errors } = await newPage();
    try {
      await page.goto(`${origin}/app/reports/new?dashboard=${dashboardId}`);
      await page.locator('[data-testid="report-editor"]').waitFor();
      await writeSql(page, 'SELECT g AS n, g * 2 AS twice FROM generate_series(1, 2500) g ORDER BY g');
      await page.click('[data-testid="run-query"]');
      await page.waitForFunction(() => document.querySelector('[data-testid="run-status"]')?.getAttribute('data-phase') === 'done', undefined, {
        timeout: 30_000,
      });
      expect(await page.locator('[data-testid="result-page-label"]').textContent()).toBe('Rows 1–2,000 of 2,500');
      const href = await page.locator('[data-testid="result-download-csv"]').getAttribute('href');
      expect(href).toMatch(/^\/app\/reports\/executions\/exe_[A-Za-z0-9]+\/download\?format=csv&name=Query\+results$/);
      const file = await context.request.get(`${origin}${href}`);
      expect(file.status()).toBe(200);
      expect(file.headers()['content-disposition']).toContain('Query results.csv');
      const lines = (await file.text()).trim().split(/\r?\n/);
      expect(lines).toHaveLength(2501);
      expect(lines[0]).toBe('n,twice');
      expect(lines.at(-1)).toBe('2500,5000');
      const xlsx = await context.request.get(`${origin}${await page.locator('[data-testid="result-download-xlsx"]').getAttribute('href')}`);
      expect(xlsx.status()).toBe(200);
      expect(xlsx.headers()['content-type']).toContain('spreadsheetml');
      // Another user's session may not read this run: the app passes the API's 404 on.
      const stranger = await browser.newContext();
      const denied = await stranger.request.get(`${origin}${href}`, { maxRedirects: 0 });
      expect([302, 303, 401, 404]).toContain(denied.status());
      await stranger.close();
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  }, 90_000);

  it('a dashboard stores one colour per series value as its charts show them, the same on every visit', async () => {
    const pie = { type: 'pie' };
    await report(`Fruit A ${STAMP}`, "SELECT * FROM (VALUES ('apple', 3), ('pear', 2), ('plum', 1)) t(fruit, n)", pie);
    await report(`Fruit B ${STAMP}`, "SELECT * FROM (VALUES ('plum', 5), ('kiwi', 4), ('apple', 1)) t(fruit, n)", pie);
    const { context, page, errors } = await newPage();
    try {
      await page.goto(`${origin}/app/dashboards/${dashboardId}`);
      await page.waitForFunction(() => document.querySelectorAll('.dashboard-grid [data-drawn="true"]').length >= 2, undefined, { timeout: 45_000 });
      let map: Record<string, number> = {};
      for (let i = 0; i < 50 && Object.keys(map).length < 4; i++) {
        await page.waitForTimeout(200);
        map = (await apiFetch<{ data: { attributes: { series_colors: Record<string, number> } } }>(`/dashboards/${dashboardId}`)).body.data.attributes
          .series_colors;
      }
      expect(Object.keys(map).sort()).toEqual(['apple', 'kiwi', 'pear', 'plum']);
      expect(new Set(Object.values(map)).size).toBe(4);
      // A second visit draws with the stored map and adds nothing.
      await page.reload();
      await page.waitForFunction(() => document.querySelectorAll('.dashboard-grid [data-drawn="true"]').length >= 2, undefined, { timeout: 45_000 });
      await page.waitForTimeout(800);
      const again = (await apiFetch<{ data: { attributes: { series_colors: Record<string, number> } } }>(`/dashboards/${dashboardId}`)).body.data.attributes
        .series_colors;
      expect(again).toEqual(map);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  }, 120_000);

  it('a relative range in default_parameters runs as the days it names today', async () => {
    const filter = await apiFetch('/filters', {
      body: {
        data: {
          type: 'filters',
          attributes: { display_name: 'Day', variable_name: 'day', control_type: 'date_range', value_type: 'DATE' },
          relationships: { dashboards: { data: [{ type: 'dashboards', id: dashboardId }] } },
        },
      },
    });
    expect(filter.status, filter.text).toBe(201);
    const id = await report(`Bounds ${STAMP}`, 'SELECT {day.start}::text AS first_day, ({day.end}::date - 1)::text AS last_day');
    const saved = await apiFetch(`/dashboards/${dashboardId}`, {
      method: 'PATCH',
      body: {
        data: {
          type: 'dashboards',
          id: dashboardId,
          attributes: {
            time_zone_config: { type: 'fixed', fixed_time_zone: 'UTC' },
            default_parameters: { filters: [{ variable_name: 'day', selected_values: ['last_7_days'] }] },
          },
        },
      },
    });
    expect(saved.status, saved.text).toBe(200);
    const res = await apiFetch<{ data_key: string; data_access_token: string; data_url: string }>(`/reports/${id}/data`, {
      body: {},
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status, res.text).toBe(200);
    const rows = (await (await fetch(res.body.data_url, { headers: { authorization: `Data ${res.body.data_access_token}` } })).json()) as { rows: string[][] };
    const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
    expect(rows.rows[0]).toEqual([day(-6), day(0)]);
  }, 60_000);
});

/** A fresh dashboard of its own (the tests above change the shared one's filters and defaults). */
async function ownDashboard(name: string) {
  const made = await apiFetch<{ data: { id: string } }>('/dashboards', { body: { data: { type: 'dashboards', attributes: { name: `${name} ${STAMP}` } } } });
  expect(made.status, made.text).toBe(201);
  dashboards.push(made.body.data.id);
  return made.body.data.id;
}

/** The legend symbol colour of each series label in one tile (svg charts). */
function legendColours(page: Page, reportId: string): Promise<Record<string, string>> {
  return page.$eval(`[data-testid="chart-${reportId}"]`, (tile) => {
    const out: Record<string, string> = {};
    for (const text of tile.querySelectorAll('svg text')) {
      const g = text.parentElement;
      const symbol = [...(g?.querySelectorAll('rect[fill], circle[fill], path[fill]') ?? [])].find(
        (e) => !['transparent', 'none'].includes(e.getAttribute('fill')!),
      );
      const label = text.textContent?.trim();
      if (label && symbol && g!.querySelectorAll('text').length === 1) out[label] = symbol.getAttribute('fill')!;
    }
    return out;
  });
}

type Schedule = {
  id: string;
  attributes: { name: string; parameters: { timerange?: string; filters?: { variable_name: string; selected_values: unknown[] }[] } | null };
};

describe('issue 15, the last items', () => {
  it("the schedule form uses the dashboard's filter bar; a relative range is saved as its token", async () => {
    const board = await ownDashboard('Schedule filters');
    const filter = (attributes: Record<string, unknown>, datasource = false) =>
      apiFetch('/filters', {
        body: {
          data: {
            type: 'filters',
            attributes,
            relationships: {
              dashboards: { data: [{ type: 'dashboards', id: board }] },
              ...(datasource ? { datasource: { data: { type: 'datasources', id: sampleId } } } : {}),
            },
          },
        },
      });
    const period = await filter({ display_name: 'Period', variable_name: 'period', control_type: 'date_range', value_type: 'DATE' });
    expect(period.status, period.text).toBe(201);
    const region = await filter(
      {
        display_name: 'Region',
        variable_name: 'region',
        control_type: 'dropdown',
        value_type: 'TEXT',
        sql_query: "SELECT * FROM (VALUES ('north'), ('south')) t(region)",
      },
      true,
    );
    expect(region.status, region.text).toBe(201);
    const name = `Filtered ${STAMP}`;
    const { context, page, errors } = await newPage();
    try {
      await page.goto(`${origin}/app/dashboards/${board}/schedules`);
      await page.click('[data-testid="new-schedule"]');
      const form = page.locator('[data-testid="schedule-form"]');
      await form.waitFor();
      expect(await form.locator('[data-testid="field-parameters"]').count()).toBe(0);
      await page.fill('[data-testid="field-name"]', name);
      await page.fill('[data-testid="field-emails"]', 'team@example.com');
      const bar = form.locator('[data-testid="schedule-filters"]');
      await bar.locator('[data-testid="filter-period"]').click();
      await bar.locator('[data-testid="filter-period-preset-last_7_days"]').click();
      await bar.locator('[data-testid="filter-region"]').click();
      // The options come from the filter's query, as on the dashboard.
      await bar.locator('[data-testid="filter-region-option-south"]').click({ timeout: 30_000 });
      await page.click('[data-testid="schedule-save"]');
      await page.locator('[data-testid="schedule-saved"]').waitFor();
      const list = await apiFetch<{ data: Schedule[] }>('/dashboard_schedules?page[size]=100');
      const mine = list.body.data.find((s) => s.attributes.name === name)!;
      expect(mine, list.text).toBeTruthy();
      const pick = (v: string) => mine.attributes.parameters?.filters?.find((f) => f.variable_name === v)?.selected_values;
      expect(pick('period')).toEqual(['last_7_days']);
      expect(pick('region')).toEqual(['south']);

      // Read back into the same controls; a change keeps the other value as it was.
      await page.click(`[data-testid="schedule-${name}"] [data-testid="edit-schedule"]`);
      await form.waitFor();
      expect(await bar.locator('[data-testid="filter-period"]').textContent()).toContain('Last 7 days');
      await bar.locator('[data-testid="filter-period"]').click();
      await bar.locator('[data-testid="filter-period-preset-previous_month"]').click();
      await page.click('[data-testid="schedule-save"]');
      await page.locator('[data-testid="schedule-saved"]').waitFor();
      const again = (await apiFetch<{ data: Schedule }>(`/dashboard_schedules/${mine.id}`)).body.data.attributes.parameters!;
      expect(again.filters).toEqual(
        expect.arrayContaining([
          { variable_name: 'period', selected_values: ['previous_month'] },
          { variable_name: 'region', selected_values: ['south'] },
        ]),
      );
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  }, 120_000);

  it("a sharing link draws each series value in the dashboard's stored colour and stores nothing", async () => {
    const board = await ownDashboard('Link colours');
    const res = await apiFetch<{ data: { id: string } }>('/reports', {
      body: {
        data: {
          type: 'reports',
          attributes: { name: `Fruit ${STAMP}`, sql_query: "SELECT * FROM (VALUES ('apple', 3), ('pear', 2), ('plum', 1)) t(fruit, n)" },
          relationships: { dashboard: { data: { type: 'dashboards', id: board } }, datasource: { data: { type: 'datasources', id: sampleId } } },
        },
      },
    });
    expect(res.status, res.text).toBe(201);
    const reportId = res.body.data.id;
    // A map other than the order of first sight (which would give apple the first colour).
    const stored = { plum: 0, pear: 1, apple: 2 };
    const db = postgres(getStack().database_url, { max: 1, onnotice: () => {} });
    try {
      await db`update reports set chart_configuration = ${db.json({ type: 'pie', label: 'fruit', value: 'n', legend: 'right' } as never)} where id = ${reportId}`;
      await db`update dashboards set series_colors = ${db.json(stored as never)} where id = ${board}`;
    } finally {
      await db.end();
    }
    const link = await apiFetch<{ data: { id: string; attributes: { token: string } } }>('/dashboard_sharing_links', {
      body: {
        data: {
          type: 'dashboard_sharing_links',
          attributes: { name: `colours ${STAMP}` },
          relationships: { dashboard: { data: { type: 'dashboards', id: board } } },
        },
      },
    });
    expect(link.status, link.text).toBe(201);
    const drawn = (page: Page) =>
      page.waitForFunction((id) => document.querySelector(`[data-testid="chart-${id}"]`)?.getAttribute('data-drawn') === 'true', reportId, { timeout: 45_000 });
    const { context, page, errors } = await newPage();
    const anonymous = await browser.newContext({ viewport: { width: 1440, height: 1000 } });
    try {
      await page.goto(`${origin}/app/dashboards/${board}`);
      await drawn(page);
      const onDashboard = await legendColours(page, reportId);
      expect(Object.keys(onDashboard).sort()).toEqual(['apple', 'pear', 'plum']);
      const shared = await anonymous.newPage();
      await shared.goto(`${origin}/s/${link.body.data.attributes.token}`);
      await drawn(shared);
      const onLink = await legendColours(shared, reportId);
      expect(onLink).toEqual(onDashboard);
      // Drawn in the order of first sight, apple (the first row) would have taken plum's colour.
      expect(new Set(Object.values(onLink)).size).toBe(3);
      // The report editor's chart preview draws the same values in the same colours (it reads the map too).
      await page.goto(`${origin}/app/reports/${reportId}`);
      await page.locator('[data-testid="sql-editor-content"]').waitFor({ timeout: 30_000 });
      await page.locator('[data-testid="sql-editor-content"]').click();
      await page.keyboard.press('ControlOrMeta+Enter');
      await page.waitForFunction(() => document.querySelector('[data-testid="run-status"]')?.getAttribute('data-phase') === 'done', undefined, {
        timeout: 45_000,
      });
      await page.locator('[data-testid="tab-chart"]').click();
      await page.waitForFunction(() => document.querySelector('[data-testid="chart-preview-chart"]')?.getAttribute('data-drawn') === 'true', undefined, {
        timeout: 45_000,
      });
      expect(await legendColours(page, 'preview-chart')).toEqual(onDashboard);
      await shared.waitForTimeout(800);
      const after = (await apiFetch<{ data: { attributes: { series_colors: Record<string, number> } } }>(`/dashboards/${board}`)).body.data.attributes
        .series_colors;
      expect(after).toEqual(stored);
      expect(errors).toEqual([]);
    } finally {
      await anonymous.close();
      await context.close();
      await apiFetch(`/dashboard_sharing_links/${link.body.data.id}`, { method: 'DELETE' }).catch(() => undefined);
    }
  }, 120_000);
});
