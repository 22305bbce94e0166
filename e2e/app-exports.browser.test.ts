/**
 * Exports in the analyst app, in Debian's Chromium against the stack's real renderer: the dashboard's
 * Download menu (PDF with the filter values, all reports' data as a CSV zip, "nothing to download" when
 * no report has rows) and a report tile's PNG and "Full CSV (all rows)" (offered only when the report's
 * unlimited_csv_export_enabled is on). The browser only talks to the app's routes.
 */
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Download, Page } from 'playwright-core';
import { apiFetch, getStack } from './harness.ts';
import { launchChromium, signInAt } from './browser-kit.ts';

let browser: Browser;
let origin: string;
let adminState: Awaited<ReturnType<BrowserContext['storageState']>>;
let datasourceId: string;
const dashboards: string[] = [];

const signIn = (page: Page, email: string, password: string) => signInAt(page, origin, email, password);

async function newPage() {
  const context = await browser.newContext({ viewport: { width: 1440, height: 1000 }, storageState: adminState, acceptDownloads: true });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  return { context, page, errors };
}

async function createDashboard(
  name: string,
  reports: { name: string; sql: string; attributes?: Record<string, unknown> }[],
): Promise<{ id: string; reports: string[] }> {
  const created = await apiFetch<{ data: { id: string } }>('/dashboards', { body: { data: { type: 'dashboards', attributes: { name } } } });
  expect(created.status, created.text).toBe(201);
  const id = created.body.data.id;
  dashboards.push(id);
  const ids: string[] = [];
  for (const r of reports) {
    const res = await apiFetch<{ data: { id: string } }>('/reports', {
      body: {
        data: {
          type: 'reports',
          attributes: { name: r.name, sql_query: r.sql, width: 6, height: 4, ...r.attributes },
          relationships: { dashboard: { data: { type: 'dashboards', id } }, datasource: { data: { type: 'datasources', id: datasourceId } } },
        },
      },
    });
    expect(res.status, res.text).toBe(201);
    ids.push(res.body.data.id);
  }
  return { id, reports: ids };
}

async function bytesOf(download: Download): Promise<Buffer> {
  return readFile((await download.path())!);
}

const tileByTitle = (page: Page, title: string) => page.locator('section.tile', { has: page.locator('h2', { hasText: title }) }).first();

beforeAll(async () => {
  const stack = getStack();
  if (!stack.app) throw new Error('The stack runs without the web app (stack.app is null).');
  origin = new URL(stack.app).origin;
  browser = await launchChromium();
  const context = await browser.newContext();
  const page = await context.newPage();
  await signIn(page, stack.admin.email, stack.admin.password);
  adminState = await context.storageState();
  await context.close();
  const ds = await apiFetch<{ data: { id: string; attributes: { name: string } }[] }>('/datasources');
  datasourceId = (ds.body.data.find((d) => d.attributes.name === 'Sample data') ?? ds.body.data[0]!).id;
});

afterAll(async () => {
  await browser?.close();
  for (const id of dashboards) await apiFetch(`/dashboards/${id}`, { method: 'DELETE' }).catch(() => null);
});

describe('dashboard and report exports in the app', () => {
  it("downloads the dashboard as PDF and every report's data as a CSV zip, and says when there is nothing to download", async () => {
    const board = await createDashboard(`Exports ${Date.now()}`, [
      { name: 'Orders by country', sql: 'SELECT country, count(*) AS orders FROM orders GROUP BY country ORDER BY country' },
      { name: 'Latest orders', sql: 'SELECT id, country FROM orders ORDER BY id DESC LIMIT 5' },
    ]);
    const empty = await createDashboard(`Exports empty ${Date.now()}`, [{ name: 'No rows', sql: 'SELECT 1 AS x WHERE 1 = 0' }]);
    const { context, page, errors } = await newPage();
    try {
      await page.goto(`${origin}/app/dashboards/${board.id}`);
      await tileByTitle(page, 'Orders by country').locator('[data-state="ready"]').waitFor({ timeout: 30_000 });

      // PDF: a job the app polls ("Preparing PDF…"), then the file of the renderer.
      await page.click('[data-testid="dashboard-downloads"]');
      const pdfDownload = page.waitForEvent('download', { timeout: 60_000 });
      await page.click('[data-testid="dashboard-download-pdf"]');
      await page.locator('[data-testid="dashboard-export-status"]', { hasText: 'Preparing PDF…' }).waitFor();
      const pdf = await pdfDownload;
      expect(pdf.suggestedFilename()).toMatch(/\.pdf$/);
      expect((await bytesOf(pdf)).subarray(0, 4).toString('latin1')).toBe('%PDF');
      await page.locator('[data-testid="dashboard-export-status"]', { hasText: 'Downloaded the PDF.' }).waitFor();

      // All reports' data: one zip of CSV files.
      await page.click('[data-testid="dashboard-downloads"]');
      const [zip] = await Promise.all([page.waitForEvent('download', { timeout: 30_000 }), page.click('[data-testid="dashboard-download-csv-zip"]')]);
      expect(zip.suggestedFilename()).toMatch(/\.zip$/);
      const zipBytes = await bytesOf(zip);
      expect(zipBytes.subarray(0, 2).toString('latin1')).toBe('PK');
      expect(zipBytes.includes(Buffer.from('Orders by country'))).toBe(true);

      // A dashboard whose reports have no rows: the API answers 204, the app says so.
      await page.goto(`${origin}/app/dashboards/${empty.id}`);
      await page.click('[data-testid="dashboard-downloads"]');
      await page.click('[data-testid="dashboard-download-csv-zip"]');
      await page.locator('[data-testid="dashboard-export-status"]', { hasText: 'Nothing to download' }).waitFor({ timeout: 30_000 });
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('downloads a report as PNG, and offers the full CSV only when the report allows it', async () => {
    const board = await createDashboard(`Report exports ${Date.now()}`, [
      { name: 'Countries', sql: 'SELECT country, count(*) AS orders FROM orders GROUP BY country ORDER BY country' },
      { name: 'All orders', sql: 'SELECT id, country FROM orders ORDER BY id', attributes: { unlimited_csv_export_enabled: true } },
    ]);
    const { context, page, errors } = await newPage();
    try {
      await page.goto(`${origin}/app/dashboards/${board.id}`);
      const countries = tileByTitle(page, 'Countries');
      const all = tileByTitle(page, 'All orders');
      await countries.locator('[data-state="ready"]').waitFor({ timeout: 30_000 });

      await countries.hover();
      await countries.locator('[data-testid="tile-downloads"]').click();
      expect(await countries.locator('[data-testid="download-csv"]').count()).toBe(1);
      expect(await countries.locator('[data-testid="download-full-csv"]').count()).toBe(0);
      const pngDownload = page.waitForEvent('download', { timeout: 60_000 });
      await countries.locator('[data-testid="download-png"]').click();
      await countries.locator('[data-testid="tile-export-status"]', { hasText: 'Preparing PNG…' }).waitFor();
      const png = await pngDownload;
      expect(png.suggestedFilename()).toMatch(/\.png$/);
      expect((await bytesOf(png)).subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));

      // Full CSV: only on the report with unlimited_csv_export_enabled; a repeat within 10 minutes gets the same job.
      await all.hover();
      await all.locator('[data-testid="tile-downloads"]').click();
      expect(await all.locator('[data-testid="download-full-csv"]').textContent()).toBe('Full CSV (all rows)');
      const [csv] = await Promise.all([page.waitForEvent('download', { timeout: 60_000 }), all.locator('[data-testid="download-full-csv"]').click()]);
      expect(csv.suggestedFilename()).toMatch(/\.csv$/);
      expect(
        (await bytesOf(csv))
          .toString('utf8')
          .replace(/^\uFEFF/, '')
          .split(/\r?\n/)[0],
      ).toBe('id,country');
      await all.locator('[data-testid="tile-export-status"]', { hasText: 'Downloaded the full CSV.' }).waitFor();

      await all.locator('[data-testid="tile-downloads"]').click();
      const [again] = await Promise.all([page.waitForEvent('download', { timeout: 30_000 }), all.locator('[data-testid="download-full-csv"]').click()]);
      expect(again.suggestedFilename()).toMatch(/\.csv$/);
      await all.locator('[data-testid="tile-export-status"]', { hasText: 'started in the last 10 minutes' }).waitFor();
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
