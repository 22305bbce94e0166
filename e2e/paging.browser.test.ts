/**
 * Big results on a dashboard (issue 15): a 200,000-row table tile loads one page from the data server
 * and pages through the rest; a chart gets at most the rows it can draw and says the result was cut;
 * the browser never receives a whole large result.
 */
import postgres from 'postgres';
import type { Browser, Page, Response } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, signInAt } from './browser-kit.ts';
import { apiFetch, getStack } from './harness.ts';

const STAMP = Date.now().toString(36);
let browser: Browser;
let page: Page;
let origin: string;
let sql: postgres.Sql;
let dashboardId: string;
const ids: Record<string, string> = {};
/** Every data response the browser received: its address and body size. */
const received: { url: string; bytes: number }[] = [];

async function report(name: string, query: string, chart: object): Promise<string> {
  const ds = await apiFetch<{ data: { id: string; attributes: { name: string } }[] }>('/datasources');
  const sample = ds.body.data.find((d) => d.attributes.name === 'Sample data') ?? ds.body.data[0]!;
  const r = await apiFetch<{ data: { id: string } }>('/reports', {
    body: {
      data: {
        type: 'reports',
        attributes: { name: `${name} ${STAMP}`, sql_query: query, width: 6, height: 6 },
        relationships: { dashboard: { data: { type: 'dashboards', id: dashboardId } }, datasource: { data: { type: 'datasources', id: sample.id } } },
      },
    },
  });
  expect(r.status, r.text).toBe(201);
  await sql`update reports set chart_configuration = ${sql.json(chart as never)} where id = ${r.body.data.id}`;
  return r.body.data.id;
}

const firstCell = (reportId: string) => page.$eval(`[data-testid="chart-${reportId}"] table tbody tr td`, (td) => td.textContent?.trim() ?? '');

beforeAll(async () => {
  const stack = getStack();
  if (!stack.app) throw new Error('The stack runs without the web app (stack.app is null).');
  origin = new URL(stack.app).origin;
  sql = postgres(stack.database_url, { max: 1, onnotice: () => {} });
  const made = await apiFetch<{ data: { id: string } }>('/dashboards', { body: { data: { type: 'dashboards', attributes: { name: `Paging ${STAMP}` } } } });
  expect(made.status).toBe(201);
  dashboardId = made.body.data.id;
  ids.table = await report('Two hundred thousand', 'select g from generate_series(1, 200000) g', { type: 'table' });
  ids.line = await report('Twenty thousand points', 'select g as x, g % 97 as y from generate_series(1, 20000) g', { type: 'line', x: 'x', y: ['y'] });
  browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 1440, height: 1000 } });
  page = await context.newPage();
  page.on('response', (res: Response) => {
    if (!new URL(res.url()).pathname.startsWith('/app/data/')) return;
    void res.body().then(
      (b) => received.push({ url: res.url(), bytes: b.length }),
      () => {},
    );
  });
  await signInAt(page, origin, stack.admin.email, stack.admin.password);
  await page.goto(`${origin}/app/dashboards/${dashboardId}`);
  await page.waitForFunction(
    () => [...document.querySelectorAll<HTMLElement>('[data-testid^="chart-"]')].filter((t) => t.dataset.drawn === 'true').length === 2,
    undefined,
    { timeout: 30_000 },
  );
}, 90_000);

afterAll(async () => {
  if (dashboardId) await apiFetch(`/dashboards/${dashboardId}`, { method: 'DELETE' }).catch(() => undefined);
  await sql?.end({ timeout: 5 });
  await browser?.close();
});

describe('big results on a dashboard', () => {
  it('a table tile shows its first page and the whole row count; Next and Previous page through the result', async () => {
    const tile = page.locator(`section[data-report-id="${ids.table}"]`);
    const range = tile.getByTestId('table-range');
    await expect.poll(() => range.textContent()).toBe('Rows 1–200 of 200,000');
    expect(await firstCell(ids.table!)).toBe('1');
    await tile.getByTestId('table-next').click();
    await expect.poll(() => range.textContent()).toBe('Rows 201–400 of 200,000');
    await expect.poll(() => firstCell(ids.table!)).toBe('201');
    await tile.getByTestId('table-next').click();
    await expect.poll(() => firstCell(ids.table!)).toBe('401');
    await tile.getByTestId('table-previous').click();
    await expect.poll(() => range.textContent()).toBe('Rows 201–400 of 200,000');
    await expect.poll(() => firstCell(ids.table!)).toBe('201');
    expect(await tile.getByTestId('table-previous').isDisabled()).toBe(false);
  });

  it('a chart gets at most what it draws and says the result was cut', async () => {
    const note = page.locator(`[data-testid="chart-${ids.line}"] [data-testid="rows-cut-note"]`);
    expect(await note.textContent()).toBe('Showing the first 5,000 of 20,000 rows.');
  });

  it('a sharing link pages its table tile the same way, without a session', async () => {
    const link = await apiFetch<{ data: { id: string; attributes: { token: string } } }>('/dashboard_sharing_links', {
      body: {
        data: {
          type: 'dashboard_sharing_links',
          attributes: { name: `Paging ${STAMP}` },
          relationships: { dashboard: { data: { type: 'dashboards', id: dashboardId } } },
        },
      },
    });
    expect(link.status, link.text).toBe(201);
    const context = await browser.newContext({ viewport: { width: 1440, height: 1000 } });
    try {
      const guest = await context.newPage();
      guest.on('response', (res: Response) => {
        if (!new URL(res.url()).pathname.startsWith('/app/data/')) return;
        void res.body().then(
          (b) => received.push({ url: res.url(), bytes: b.length }),
          () => {},
        );
      });
      await guest.goto(`${origin}/s/${link.body.data.attributes.token}`);
      const tile = guest.locator(`section[data-report-id="${ids.table}"]`);
      await expect.poll(() => tile.getByTestId('table-range').textContent(), { timeout: 30_000 }).toBe('Rows 1–200 of 200,000');
      await tile.getByTestId('table-next').click();
      await expect.poll(() => tile.getByTestId('table-range').textContent()).toBe('Rows 201–400 of 200,000');
      await expect.poll(() => tile.locator('table tbody tr td').first().textContent()).toBe('201');
    } finally {
      await context.close();
    }
  });

  it('the browser never received a whole result: every data response is one page', async () => {
    await expect.poll(() => received.length).toBeGreaterThanOrEqual(4);
    for (const r of received) {
      const q = new URL(r.url).searchParams;
      expect(Number(q.get('limit')), r.url).toBeLessThanOrEqual(5_000);
      // 200,000 rows as JSON are about 1.5 MB; one page of them a few kilobytes.
      expect(r.bytes, r.url).toBeLessThan(150_000);
    }
    const tableBytes = received.filter((r) => r.url.includes(`limit=200`)).map((r) => r.bytes);
    expect(Math.max(...tableBytes)).toBeLessThan(10_000);
  });
});
