/**
 * The report tile's "⋯ More" tool in the analyst app, in Debian's Chromium: Show SQL (a read-only dialog
 * for admins and viewers alike, since the API gives both the SQL), Duplicate (analysts and admins: the
 * copy appears, draws the same chart and survives a reload; an API refusal is shown at the tile), and
 * a viewer without Duplicate.
 */
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { hashPassword, newId } from '@cairn/core';
import { apiFetch, getStack } from './harness.ts';
import { launchChromium, signInAt } from './browser-kit.ts';

const REPORT = `Orders by channel ${Date.now()}`;
const SQL = "SELECT 'web' AS channel, 42 AS orders\nUNION ALL SELECT 'shop', 17\nUNION ALL SELECT 'phone', 8";

let browser: Browser;
let origin: string;
let adminState: Awaited<ReturnType<BrowserContext['storageState']>>;
let viewerState: Awaited<ReturnType<BrowserContext['storageState']>>;
let sql: postgres.Sql;
let dashboardId: string;
let reportId: string;

const signIn = (page: Page, email: string, password: string) => signInAt(page, origin, email, password);

async function newPage(state: typeof adminState) {
  const context = await browser.newContext({ viewport: { width: 1440, height: 1000 }, storageState: state });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  return { context, page, errors };
}

/** Waits until every tile has drawn (or says why not). */
async function waitForTiles(page: Page, count: number): Promise<void> {
  await page.waitForFunction(
    (n) => {
      const tiles = [...document.querySelectorAll<HTMLElement>('[data-testid^="chart-"]')];
      return (
        tiles.length === n &&
        tiles.every((t) => t.dataset.state === 'error' || t.dataset.state === 'empty' || (t.dataset.state === 'ready' && t.dataset.drawn === 'true'))
      );
    },
    count,
    { timeout: 30_000 },
  );
}

const exact = (s: string) => new RegExp(`^${s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);
const tileByTitle = (page: Page, title: string) => page.locator('section.tile', { has: page.locator('h2', { hasText: exact(title) }) });

async function openDashboard(page: Page, count: number): Promise<void> {
  await page.goto(`${origin}/app/dashboards/${dashboardId}`);
  await waitForTiles(page, count);
}

async function openMore(page: Page, title: string) {
  const tile = tileByTitle(page, title);
  await tile.hover();
  await tile.locator('[data-testid="tile-more"]').click();
  return tile;
}

/** Show SQL: the dialog holds the SQL in monospace, Escape closes it and focus returns to the ⋯ tool. */
async function checkShowSql(page: Page) {
  const tile = await openMore(page, REPORT);
  await tile.locator('[data-testid="tile-show-sql"]').click();
  const dialog = page.locator('[data-testid="sql-dialog"]');
  await dialog.waitFor();
  expect(await dialog.getAttribute('role')).toBe('dialog');
  expect(await dialog.getAttribute('aria-modal')).toBe('true');
  expect(await dialog.locator('h2').textContent()).toBe(`SQL of ${REPORT}`);
  const code = dialog.locator('[data-testid="sql-dialog-code"]');
  expect(await code.textContent()).toBe(SQL);
  expect(await code.evaluate((el) => getComputedStyle(el).fontFamily)).toMatch(/mono/i);
  await dialog.locator('[data-testid="sql-dialog-copy"]').click();
  await expect.poll(() => dialog.locator('[data-testid="sql-dialog-copy"]').textContent()).toBe('Copied');
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(SQL);
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'detached' });
  expect(await page.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset.testid)).toBe('tile-more');
  // Nothing else reacted to that Escape: the page is still the dashboard, no tile enlarged.
  expect(await page.locator('[data-maximized]').count()).toBe(0);
}

beforeAll(async () => {
  const stack = getStack();
  if (!stack.app) throw new Error('The stack runs without the web app (stack.app is null).');
  origin = new URL(stack.app).origin;
  browser = await launchChromium();

  // A viewer of the stack's organization, written as the seed writes users.
  sql = postgres(stack.database_url, { max: 1, onnotice: () => {} });
  const viewer = { email: `viewer-${Date.now()}@tile-tools.test`, password: 'viewer-password-42', id: newId('user') };
  await sql`insert into users (id, organization_id, email, firstname, lastname, role, password_hash)
    values (${viewer.id}, ${stack.organization_id}, ${viewer.email}, 'Vic', 'Viewer', 'viewer', ${await hashPassword(viewer.password)})`;
  for (const who of ['admin', 'viewer'] as const) {
    const context = await browser.newContext({ permissions: ['clipboard-read', 'clipboard-write'] });
    const page = await context.newPage();
    if (who === 'admin') await signIn(page, stack.admin.email, stack.admin.password);
    else await signIn(page, viewer.email, viewer.password);
    if (who === 'admin') adminState = await context.storageState();
    else viewerState = await context.storageState();
    await context.close();
  }

  // A dashboard every user sees, with one bar-chart report.
  const ds = await apiFetch<{ data: { id: string; attributes: { name: string } }[] }>('/datasources');
  const sample = ds.body.data.find((d) => d.attributes.name === 'Sample data') ?? ds.body.data[0]!;
  const created = await apiFetch<{ data: { id: string } }>('/dashboards', {
    body: { data: { type: 'dashboards', attributes: { name: `Tile tools ${Date.now()}` } } },
  });
  expect(created.status).toBe(201);
  dashboardId = created.body.data.id;
  expect(
    (await apiFetch(`/dashboards/${dashboardId}/share`, { body: { share_mode: 'all_users' }, headers: { 'content-type': 'application/json' } })).status,
  ).toBe(200);
  const report = await apiFetch<{ data: { id: string } }>('/reports', {
    body: {
      data: {
        type: 'reports',
        attributes: { name: REPORT, sql_query: SQL, width: 6, height: 4 },
        relationships: { dashboard: { data: { type: 'dashboards', id: dashboardId } }, datasource: { data: { type: 'datasources', id: sample.id } } },
      },
    },
  });
  expect(report.status).toBe(201);
  reportId = report.body.data.id;
  // The chart is written as the app's editor writes it: as the signed-in admin (API keys may not).
  const token = decodeURIComponent(adminState.cookies.find((c) => c.name === 'cairn_session')!.value);
  const chart = await apiFetch(`/reports/${reportId}`, {
    method: 'PATCH',
    key: null,
    headers: { authorization: `Session ${token}` },
    body: { data: { type: 'reports', id: reportId, attributes: { chart_configuration: { type: 'bar', x: 'channel', y: ['orders'] } } } },
  });
  expect(chart.status).toBe(200);
});

afterAll(async () => {
  if (dashboardId) {
    await apiFetch(`/dashboards/${dashboardId}/lock`, { method: 'DELETE' });
    await apiFetch(`/dashboards/${dashboardId}`, { method: 'DELETE' });
  }
  await browser?.close();
  await sql?.end({ timeout: 5 });
});

describe('report tile tools', () => {
  it('shows the SQL to an admin and to a viewer, who has no Duplicate', async () => {
    for (const state of [adminState, viewerState]) {
      const { context, page, errors } = await newPage(state);
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
      try {
        await openDashboard(page, 1);
        await checkShowSql(page);
        if (state === viewerState) {
          await openMore(page, REPORT);
          expect(await page.locator('[data-testid="tile-show-sql"]').count()).toBe(1);
          expect(await page.locator('[data-testid="tile-duplicate"], [data-testid="tile-edit"]').count()).toBe(0);
          // The dashboard's action refuses the viewer's duplicate with the API's answer.
          const status = await page.evaluate(
            async ({ id, report }) => {
              const body = new URLSearchParams({ intent: 'duplicate-report', report });
              const res = await fetch(`/app/dashboards/${id}`, { method: 'POST', body, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
              return res.status;
            },
            { id: dashboardId, report: reportId },
          );
          expect(status).toBe(403);
        }
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    }
  });

  it('duplicates a report: the copy draws the same chart, survives a reload, and a refusal is shown', async () => {
    const { context, page, errors } = await newPage(adminState);
    try {
      await openDashboard(page, 1);
      const tile = await openMore(page, REPORT);
      await tile.locator('[data-testid="tile-duplicate"]').click();
      const copy = tileByTitle(page, `${REPORT} (copy)`);
      await copy.waitFor();
      await waitForTiles(page, 2);
      const chartOf = async (t: ReturnType<typeof tileByTitle>) =>
        t.locator('[data-testid^="chart-"]').evaluate((el) => ({
          type: el.getAttribute('data-chart-type'),
          state: el.getAttribute('data-state'),
          bars: el.querySelectorAll('svg rect').length,
        }));
      const original = await chartOf(tileByTitle(page, REPORT));
      expect(original.type).toBe('bar');
      expect(await chartOf(copy)).toEqual(original);

      await page.reload();
      await waitForTiles(page, 2);
      expect(await chartOf(tileByTitle(page, `${REPORT} (copy)`))).toEqual(original);
      const reports = await apiFetch<{ data: { relationships: { reports: { data: { id: string }[] } } } }>(`/dashboards/${dashboardId}`);
      expect(reports.body.data.relationships.reports.data).toHaveLength(2);

      // Locked behind the page's back: the API refuses and the tile says why.
      expect((await apiFetch(`/dashboards/${dashboardId}/lock`, { method: 'POST' })).status).toBe(200);
      await openMore(page, REPORT);
      await page.locator('[data-testid="tile-duplicate"]').click();
      const error = tileByTitle(page, REPORT).locator('[data-testid="tile-duplicate-error"]');
      await error.waitFor();
      expect(await error.textContent()).toMatch(/lock/i);
      expect(await page.locator('section.tile').count()).toBe(2);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
      await apiFetch(`/dashboards/${dashboardId}/lock`, { method: 'DELETE' });
    }
  });
});
