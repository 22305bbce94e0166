/**
 * Viewing dashboards in Debian's Chromium (issue 15): the dashboard's ⋯ menu and the tile menus close
 * on Escape and on a press outside, one at a time; an empty dashboard offers "Add a report"; the home
 * page searches reports too and lists recently opened dashboards; on a phone and on narrow tiles the
 * tile title keeps at least 12 characters and the top navigation folds into a menu button; the
 * maximized tile and a sharing link's filters are in the address (Back closes a maximized tile).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { apiFetch, getStack } from './harness.ts';
import { startAsAdmin, type SessionState } from './browser-kit.ts';
import { SAMPLE_DASHBOARD_NAME } from '../db/src/seed/sample-dashboard.ts';

const STAMP = Date.now().toString(36);
const LONG_TITLE = `Revenue by sales channel and region ${STAMP}`;
const SQL = "SELECT 'web' AS channel, 42 AS orders\nUNION ALL SELECT 'shop', 17\nUNION ALL SELECT 'phone', 8";

let browser: Browser;
let origin: string;
let adminState: SessionState;
let dashboardId: string;
let emptyId: string;
const reportIds: string[] = [];
const links: string[] = [];

async function newPage(viewport = { width: 1440, height: 900 }) {
  const context = await browser.newContext({ viewport, storageState: adminState });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  return { context, page, errors };
}

async function waitForTiles(page: Page, count: number): Promise<void> {
  await page.waitForFunction(
    (n) => {
      const tiles = [...document.querySelectorAll<HTMLElement>('[data-testid^="chart-"]')];
      return tiles.length === n && tiles.every((t) => ['ready', 'empty', 'error'].includes(t.dataset.state ?? ''));
    },
    count,
    { timeout: 30_000 },
  );
}

/** For every tile at least 300 px wide: how many characters of its title are shown (fewest first). */
async function visibleTitleChars(page: Page): Promise<{ title: string; tileWidth: number; chars: number }[]> {
  return page.$$eval('section.tile', (tiles) => {
    const canvas = document.createElement('canvas').getContext('2d')!;
    return tiles
      .map((tile) => {
        const h = tile.querySelector<HTMLElement>('.tile__title')!;
        const style = getComputedStyle(h);
        canvas.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
        const text = h.textContent ?? '';
        const room = h.getBoundingClientRect().width;
        let chars = 0;
        while (chars < text.length && canvas.measureText(`${text.slice(0, chars + 1)}…`).width <= room + 0.5) chars++;
        if (canvas.measureText(text).width <= room + 0.5) chars = text.length;
        return { title: text, tileWidth: tile.getBoundingClientRect().width, chars };
      })
      .filter((t) => t.tileWidth >= 300)
      .sort((a, b) => a.chars - b.chars);
  });
}

beforeAll(async () => {
  ({ browser, origin, adminState } = await startAsAdmin());
  const ds = await apiFetch<{ data: { id: string; attributes: { name: string } }[] }>('/datasources');
  const sample = ds.body.data.find((d) => d.attributes.name === 'Sample data') ?? ds.body.data[0]!;
  const made = await apiFetch<{ data: { id: string } }>('/dashboards', { body: { data: { type: 'dashboards', attributes: { name: `Day ${STAMP}` } } } });
  expect(made.status).toBe(201);
  dashboardId = made.body.data.id;
  const empty = await apiFetch<{ data: { id: string } }>('/dashboards', { body: { data: { type: 'dashboards', attributes: { name: `Empty day ${STAMP}` } } } });
  expect(empty.status).toBe(201);
  emptyId = empty.body.data.id;
  // A narrow tile (3 of 12 columns) with a long title, and two wider ones.
  for (const [name, width] of [
    [LONG_TITLE, 3],
    [`Orders by channel ${STAMP}`, 3],
    [`Channels table ${STAMP}`, 6],
  ] as const) {
    const r = await apiFetch<{ data: { id: string } }>('/reports', {
      body: {
        data: {
          type: 'reports',
          attributes: { name, sql_query: SQL, width, height: 4 },
          relationships: { dashboard: { data: { type: 'dashboards', id: dashboardId } }, datasource: { data: { type: 'datasources', id: sample.id } } },
        },
      },
    });
    expect(r.status, r.text).toBe(201);
    reportIds.push(r.body.data.id);
  }
});

afterAll(async () => {
  for (const id of links) await apiFetch(`/dashboard_sharing_links/${id}`, { method: 'DELETE' }).catch(() => undefined);
  for (const id of [dashboardId, emptyId]) if (id) await apiFetch(`/dashboards/${id}`, { method: 'DELETE' }).catch(() => undefined);
  await browser?.close();
});

describe('menus', () => {
  it('the dashboard ⋯ menu closes on Escape and on a click outside; one menu is open at a time', async () => {
    const { context, page, errors } = await newPage();
    try {
      await page.goto(`${origin}/app/dashboards/${dashboardId}`);
      await waitForTiles(page, 3);
      const panel = page.locator('.page-header .menu__panel');
      await page.click('[data-testid="dashboard-menu"]');
      await panel.waitFor();
      await page.keyboard.press('Escape');
      await panel.waitFor({ state: 'detached' });
      await page.click('[data-testid="dashboard-menu"]');
      await panel.waitFor();
      await page.click('h1');
      await panel.waitFor({ state: 'detached' });
      // A tile's ⋯ More opened while the dashboard menu is open: the dashboard menu closes.
      await page.click('[data-testid="dashboard-menu"]');
      await panel.waitFor();
      const tile = page.locator('section.tile').nth(2);
      await tile.hover();
      await tile.locator('[data-testid="tile-more"]').click();
      await tile.locator('.menu__panel').waitFor();
      expect(await panel.count()).toBe(0);
      // Opened from the keyboard (no press outside), the dashboard menu still closes the tile's menu.
      await page.focus('[data-testid="dashboard-menu"]');
      await page.keyboard.press('Enter');
      await panel.waitFor();
      expect(await page.locator('section.tile .menu__panel').count()).toBe(0);
      await page.keyboard.press('Escape');
      await panel.waitFor({ state: 'detached' });
      expect(await page.locator('.menu__panel').count()).toBe(0);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});

describe('getting around', () => {
  it('an empty dashboard offers "Add a report"; the home page lists recent dashboards and finds reports', async () => {
    const { context, page, errors } = await newPage();
    try {
      await page.goto(`${origin}/app/dashboards/${emptyId}`);
      const add = page.locator('[data-testid="dashboard-empty-add-report"]');
      await add.waitFor();
      expect(await add.textContent()).toBe('Add a report');
      expect(await add.getAttribute('href')).toBe(`/app/reports/new?dashboard=${emptyId}`);
      // The visit is remembered once the page has hydrated (an effect): the link above is drawn before that.
      const remembered = (id: string) =>
        page.waitForFunction(
          (d) => Object.keys(localStorage).some((k) => k.startsWith('cairn:recent-dashboards:') && (localStorage.getItem(k) ?? '').includes(d)),
          id,
        );
      await remembered(emptyId);
      await page.goto(`${origin}/app/dashboards/${dashboardId}`);
      await waitForTiles(page, 3);
      await remembered(dashboardId);

      await page.goto(`${origin}/app/`);
      const recent = page.locator('[data-testid="recent-dashboard"]');
      await recent.first().waitFor();
      expect((await recent.allTextContents()).slice(0, 2)).toEqual([`Day ${STAMP}`, `Empty day ${STAMP}`]);
      // Kept per user: under a storage key of the signed-in user's.
      const keys = await page.evaluate(() => Object.keys(localStorage).filter((k) => k.startsWith('cairn:recent-dashboards:')));
      expect(keys).toEqual([`cairn:recent-dashboards:${getStack().admin.email}`]);

      // The search finds reports by name and opens their dashboard with the tile maximized.
      await page.fill('[data-testid="dashboard-search"]', `sales channel and region ${STAMP}`);
      const match = page.locator('[data-testid="report-match"]');
      await match.first().waitFor();
      expect(await match.allTextContents()).toEqual([LONG_TITLE]);
      expect(await page.locator('[data-testid="recent-dashboards"]').count()).toBe(0);
      await match.first().click();
      await page.waitForURL(`${origin}/app/dashboards/${dashboardId}?tile=${reportIds[0]}`);
      await page.locator(`section.tile[data-report-id="${reportIds[0]}"][data-maximized]`).waitFor();
      await page.goBack();
      await page.fill('[data-testid="dashboard-search"]', `no report is called this ${STAMP}`);
      await page.locator('[data-testid="report-matches"]', { hasText: 'No report matches' }).waitFor();
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});

describe('phone and narrow tiles', () => {
  for (const viewport of [
    { width: 390, height: 844 },
    { width: 1440, height: 900 },
  ]) {
    it(`at ${viewport.width}×${viewport.height} no tile title of a tile ≥ 300 px shows fewer than 12 characters`, async () => {
      const { context, page, errors } = await newPage(viewport);
      try {
        await page.goto(`${origin}/app/dashboards/${dashboardId}`);
        await waitForTiles(page, 3);
        const titles = await visibleTitleChars(page);
        expect(titles.length).toBeGreaterThanOrEqual(viewport.width < 768 ? 3 : 1);
        for (const t of titles) expect(t.chars, `${t.title} in a ${Math.round(t.tileWidth)} px tile`).toBeGreaterThanOrEqual(12);
        const menuButton = page.locator('[data-testid="topbar-menu-button"]');
        const nav = page.locator('[data-testid="topbar-nav"]');
        if (viewport.width < 768) {
          expect(await nav.isVisible()).toBe(false);
          await menuButton.click();
          await nav.locator('a', { hasText: 'Datasources' }).waitFor({ state: 'visible' });
          await page.keyboard.press('Escape');
          await nav.waitFor({ state: 'hidden' });
          // The narrow tile's tools are behind its ⋮ button; the download menu opens from there.
          const tile = page.locator(`section.tile[data-report-id="${reportIds[0]}"]`);
          expect(await tile.locator('[data-testid="tile-refresh"]').isVisible()).toBe(false);
          await tile.locator('[data-testid="tile-tools-toggle"]').click();
          await tile.locator('[data-testid="tile-downloads"]').click();
          await tile.locator('.tile__tools-panel .menu__panel').waitFor();
          await page.keyboard.press('Escape');
        } else {
          expect(await menuButton.isVisible()).toBe(false);
          expect(await nav.locator('a', { hasText: 'Datasources' }).isVisible()).toBe(true);
          // The 6-column report shows its tools in a row; the 3-column one (about 330 px) folds them.
          const wide = page.locator(`section.tile[data-report-id="${reportIds[2]}"]`);
          expect(await wide.locator('[data-testid="tile-tools-toggle"]').isVisible()).toBe(false);
          await wide.hover();
          expect(await wide.locator('[data-testid="tile-maximize"]').isVisible()).toBe(true);
          expect(await page.locator(`section.tile[data-report-id="${reportIds[0]}"] [data-testid="tile-tools-toggle"]`).isVisible()).toBe(true);
        }
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    });
  }
});

describe('the address', () => {
  it('keeps the maximized tile: Back closes it, Forward and the link open it again', async () => {
    const { context, page, errors } = await newPage();
    try {
      await page.goto(`${origin}/app/dashboards/${dashboardId}`);
      await waitForTiles(page, 3);
      const tile = page.locator(`section.tile[data-report-id="${reportIds[2]}"]`);
      await tile.hover();
      await tile.locator('[data-testid="tile-maximize"]').click();
      await page.waitForURL(`${origin}/app/dashboards/${dashboardId}?tile=${reportIds[2]}`);
      await page.locator(`section.tile[data-report-id="${reportIds[2]}"][data-maximized="true"]`).waitFor();
      await page.goBack();
      await page.waitForURL(`${origin}/app/dashboards/${dashboardId}`);
      await page.locator('[data-maximized]').waitFor({ state: 'detached' });
      await page.goForward();
      await page.locator(`section.tile[data-report-id="${reportIds[2]}"][data-maximized]`).waitFor();
      // Escape restores it and goes back to the address without the tile.
      await page.keyboard.press('Escape');
      await page.waitForURL(`${origin}/app/dashboards/${dashboardId}`);
      await page.locator('[data-maximized]').waitFor({ state: 'detached' });
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('a sharing link keeps its filters and the maximized tile in the hash', async () => {
    const list = await apiFetch('/dashboards?page[size]=200');
    const sampleId = list.body.data.find((d: { attributes: { name: string } }) => d.attributes.name === SAMPLE_DASHBOARD_NAME).id;
    const made = await apiFetch('/dashboard_sharing_links', {
      body: {
        data: {
          type: 'dashboard_sharing_links',
          attributes: { name: `day ${STAMP}`, toolbar_enabled: true, parameters_enabled: true, filter_bar_enabled: true },
          relationships: { dashboard: { data: { type: 'dashboards', id: sampleId } } },
        },
      },
    });
    expect(made.status, made.text).toBe(201);
    links.push(made.body.data.id);
    const url = `${origin}/s/${made.body.data.attributes.token}`;
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    try {
      await page.goto(url);
      await page.locator('[data-testid="filter-bar"]').waitFor();
      await page.click('[data-testid="filter-country"]');
      await page.click('[data-testid="filter-country-option-DE"]');
      await page.keyboard.press('Escape');
      await expect.poll(() => new URL(page.url()).hash).toMatch(/f\.country=.*DE/);
      const shared = page.url();
      expect(new URL(shared).search).toBe('');

      const other = await context.newPage();
      await other.goto(shared);
      await expect.poll(() => other.locator('[data-testid="filter-country"]').textContent()).toContain('Germany');
      const tile = other.locator('section.tile', { has: other.locator('[data-testid="tile-maximize"]') }).last();
      await tile.hover();
      // A narrow report keeps its tools behind ⋮.
      if (await tile.locator('[data-testid="tile-tools-toggle"]').isVisible()) await tile.locator('[data-testid="tile-tools-toggle"]').click();
      await tile.locator('[data-testid="tile-maximize"]').click();
      await expect.poll(() => new URL(other.url()).hash).toMatch(/tile=/);
      expect(new URL(other.url()).hash).toMatch(/f\.country=.*DE/);
      await other.goBack();
      await other.locator('[data-maximized]').waitFor({ state: 'detached' });
      expect(new URL(other.url()).hash).toMatch(/f\.country=.*DE/);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
