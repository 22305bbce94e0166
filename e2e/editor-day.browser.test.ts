/**
 * The report editor in Debian's Chromium (issue 15): its filter bar loads a query-driven dropdown's
 * options; a variable that is not a filter of the dashboard is named (with the filter it probably
 * meant) before running or saving; the Data tab pages past the first 2,000 rows and downloads the whole
 * result; `/app/reports/new` without a dashboard is a standalone SQL editor that saves onto a new
 * dashboard; a dropdown's options SQL is edited in the SQL editor with Run and a preview.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { apiFetch } from './harness.ts';
import { type SessionState, startAsAdmin, writeSql } from './browser-kit.ts';

const STAMP = Date.now().toString(36);
let browser: Browser;
let origin: string;
let adminState: SessionState;
let sampleId: string;
let dashboardId: string;
let bigReportId: string;
const dashboards: string[] = [];

async function newPage() {
  const context = await browser.newContext({ viewport: { width: 1440, height: 1000 }, storageState: adminState });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  return { context, page, errors };
}

async function runAndWait(page: Page) {
  await page.click('[data-testid="run-query"]');
  await page.waitForFunction(() => document.querySelector('[data-testid="run-status"]')?.getAttribute('data-phase') === 'done', undefined, { timeout: 30_000 });
}

beforeAll(async () => {
  ({ browser, origin, adminState } = await startAsAdmin());
  const ds = await apiFetch<{ data: { id: string; attributes: { name: string; is_sample?: boolean } }[] }>('/datasources');
  sampleId = (ds.body.data.find((d) => d.attributes.is_sample) ?? ds.body.data[0]!).id;
  const made = await apiFetch<{ data: { id: string } }>('/dashboards', { body: { data: { type: 'dashboards', attributes: { name: `Editor day ${STAMP}` } } } });
  expect(made.status, made.text).toBe(201);
  dashboardId = made.body.data.id;
  dashboards.push(dashboardId);
  const filter = await apiFetch('/filters', {
    body: {
      data: {
        type: 'filters',
        attributes: {
          display_name: 'Order status',
          variable_name: 'shop_status',
          control_type: 'dropdown_multi',
          value_type: 'TEXT',
          sql_query: "SELECT v, initcap(v) FROM (VALUES ('paid'), ('open'), ('shipped')) t(v)",
        },
        relationships: { datasource: { data: { type: 'datasources', id: sampleId } }, dashboards: { data: [{ type: 'dashboards', id: dashboardId }] } },
      },
    },
  });
  expect(filter.status, filter.text).toBe(201);
  const report = await apiFetch<{ data: { id: string } }>('/reports', {
    body: {
      data: {
        type: 'reports',
        attributes: { name: `Numbers ${STAMP}`, sql_query: 'SELECT g AS n FROM generate_series(1, 4500) g ORDER BY g' },
        relationships: { dashboard: { data: { type: 'dashboards', id: dashboardId } }, datasource: { data: { type: 'datasources', id: sampleId } } },
      },
    },
  });
  expect(report.status, report.text).toBe(201);
  bigReportId = report.body.data.id;
}, 120_000);

afterAll(async () => {
  for (const id of dashboards) await apiFetch(`/dashboards/${id}`, { method: 'DELETE' }).catch(() => undefined);
  await browser?.close();
});

describe('the report editor', () => {
  it('loads the dropdown options of its filter bar and names a variable that is not a filter before running', async () => {
    const { context, page, errors } = await newPage();
    try {
      await page.goto(`${origin}/app/reports/new?dashboard=${dashboardId}`);
      await page.locator('[data-testid="report-editor"]').waitFor();
      await page.click('[data-testid="filter-shop_status"]');
      await page.locator('[data-testid="filter-shop_status-option-paid"]').waitFor({ timeout: 30_000 });
      expect(await page.locator('.dropdown-panel__option').allTextContents()).toEqual(['Paid', 'Open', 'Shipped']);
      expect(await page.locator('.dropdown-panel__hint').allTextContents()).not.toContain('Loading the options…');
      await page.keyboard.press('Escape');

      await writeSql(page, 'SELECT count(*) FROM orders o WHERE {[o.status]=shop_stauts}');
      const notice = page.locator('[data-testid="unknown-variables"]');
      await notice.waitFor();
      expect(await notice.textContent()).toMatch(/\{shop_stauts\} is not a filter of “Editor day .*saving creates it/);
      expect(await page.locator('[data-testid="unknown-variable-shop_stauts"]').textContent()).toContain('Did you mean {shop_status}');
      await writeSql(page, 'SELECT count(*) FROM orders o WHERE {[o.status]=shop_status}');
      await notice.waitFor({ state: 'detached' });
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  }, 60_000);

  it('pages past the first 2,000 rows and downloads the whole result of the run, saved or not', async () => {
    const { context, page, errors } = await newPage();
    try {
      await page.goto(`${origin}/app/reports/${bigReportId}`);
      await page.locator('[data-testid="sql-editor-content"]').waitFor({ timeout: 20_000 });
      await runAndWait(page);
      const label = page.locator('[data-testid="result-page-label"]');
      expect(await label.textContent()).toBe('Rows 1–2,000 of 4,500');
      await page.click('[data-testid="result-next"]');
      await page.waitForFunction(() => document.querySelector('[data-testid="result-table"]')?.getAttribute('data-offset') === '2000');
      expect(await label.textContent()).toBe('Rows 2,001–4,000 of 4,500');
      await page.click('[data-testid="result-next"]');
      await page.waitForFunction(() => document.querySelector('[data-testid="result-table"]')?.getAttribute('data-offset') === '4000');
      expect(await label.textContent()).toBe('Rows 4,001–4,500 of 4,500');
      expect(await page.locator('[data-testid="result-next"]').isDisabled()).toBe(true);

      const href = await page.locator('[data-testid="result-download-csv"]').getAttribute('href');
      expect(href).toMatch(/^\/app\/reports\/executions\/exe_[A-Za-z0-9]+\/download\?format=csv/);
      const file = await context.request.get(`${origin}${href}`);
      expect(file.status()).toBe(200);
      const lines = (await file.text()).trim().split(/\r?\n/);
      expect(lines).toHaveLength(4501);
      expect(lines.at(-1)).toBe('4500');

      // Changed SQL, not saved: the download is the result of this run.
      await writeSql(page, 'SELECT 41 + 1 AS n');
      await runAndWait(page);
      expect(await label.textContent()).toBe('Rows 1–1 of 1');
      const unsaved = await context.request.get(`${origin}${await page.locator('[data-testid="result-download-csv"]').getAttribute('href')}`);
      expect(unsaved.status()).toBe(200);
      expect((await unsaved.text()).trim().split(/\r?\n/)).toEqual(['n', '42']);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  }, 90_000);

  it('without a dashboard is a standalone SQL editor that runs and saves onto a new dashboard', async () => {
    const { context, page, errors } = await newPage();
    try {
      await page.goto(`${origin}/app/reports/new`);
      await page.locator('[data-testid="report-editor"]').waitFor();
      expect(await page.locator('[data-testid="report-datasource"]').inputValue()).toBe(sampleId);
      expect(await page.locator('[data-testid="save-report"]').isDisabled()).toBe(true);
      await writeSql(page, "SELECT 'north' AS region, 3 AS orders WHERE {[region]=zone}");
      expect(await page.locator('[data-testid="unknown-variables"]').textContent()).toMatch(/\{zone\} is not a filter of a dashboard yet/);
      await runAndWait(page);
      await page.locator('[data-testid="result-table"] tbody tr').first().waitFor();
      await page.fill('[data-testid="report-name"]', `Standalone ${STAMP}`);
      await page.selectOption('[data-testid="save-target"]', '__new__');
      await page.fill('[data-testid="save-target-name"]', `From the SQL editor ${STAMP}`);
      await page.click('[data-testid="save-report"]');
      await page.waitForURL(/\/app\/dashboards\/[^/?]+$/, { timeout: 20_000 });
      const id = new URL(page.url()).pathname.split('/').at(-1)!;
      dashboards.push(id);
      const board = await apiFetch<{ data: { attributes: { name: string } }; included?: { type: string; attributes: { name: string } }[] }>(
        `/dashboards/${id}?include=reports`,
      );
      expect(board.body.data.attributes.name).toBe(`From the SQL editor ${STAMP}`);
      expect((board.body.included ?? []).filter((r) => r.type === 'reports').map((r) => r.attributes.name)).toEqual([`Standalone ${STAMP}`]);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  }, 60_000);
});

describe('the filter form', () => {
  it('edits a dropdown’s options SQL in the SQL editor, runs it and previews the options', async () => {
    const { context, page, errors } = await newPage();
    try {
      await page.goto(`${origin}/app/dashboards/${dashboardId}/edit/filters`);
      await page.click('[data-testid="edit-filter-shop_status"]');
      await page.locator('[data-testid="filter-sql"]').waitFor();
      await writeSql(page, "SELECT v, upper(v) FROM (VALUES ('a'), ('b'), ('a')) t(v)");
      await page.click('[data-testid="filter-sql-run"]');
      await page.locator('[data-testid="filter-sql-preview"]').waitFor({ timeout: 30_000 });
      expect(await page.locator('[data-testid="filter-sql-preview"] p').first().textContent()).toMatch(/^2 options/);
      expect(await page.locator('[data-testid="filter-sql-option"]').allTextContents()).toEqual(['A a', 'B b']);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  }, 60_000);
});
