/**
 * Sharing in Chromium: the share dialog sets who in the organization sees a dashboard; a sharing link
 * made in the app with a password opens signed out only with the right password; a link whose IP
 * allow-list leaves out this client is refused; a link that requires a sharing secret opens only with
 * an address signed as the embedding docs describe; the link's colour mode and toolbar switches apply;
 * downloads follow the link's switch; on a phone, tiles below the fold are drawn when scrolled to.
 */
import { readFile } from 'node:fs/promises';
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { SAMPLE_DASHBOARD_NAME } from '../db/src/seed/sample-dashboard.ts';
import { apiFetch, getStack } from './harness.ts';
import { launchChromium } from './browser-kit.ts';

let browser: Browser;
let origin: string;
let adminState: Awaited<ReturnType<BrowserContext['storageState']>>;
let dashboardId: string;
const links: string[] = [];

const unique = (tag: string) => `${tag} ${Math.random().toString(36).slice(2, 8)}`;

async function newPage(state?: typeof adminState): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
  const context = await browser.newContext({ viewport: { width: 1400, height: 1000 }, ...(state ? { storageState: state } : {}) });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  return { context, page, errors };
}

/** A link made through the API (for the cases whose subject is the public page, not the editor). */
async function apiLink(attributes: Record<string, unknown>): Promise<{ id: string; token: string }> {
  const res = await apiFetch('/dashboard_sharing_links', {
    body: {
      data: {
        type: 'dashboard_sharing_links',
        attributes: { name: unique('e2e'), ...attributes },
        relationships: { dashboard: { data: { type: 'dashboards', id: dashboardId } } },
      },
    },
  });
  expect(res.status, res.text).toBe(201);
  links.push(res.body.data.id);
  return { id: res.body.data.id, token: res.body.data.attributes.token };
}

/** Waits until every tile has data drawn (or says it has none). */
async function waitForTiles(page: Page): Promise<number> {
  await page.waitForSelector('[data-testid^="chart-"]');
  await page.waitForFunction(
    () => {
      const tiles = [...document.querySelectorAll<HTMLElement>('[data-testid^="chart-"]')];
      return tiles.length > 0 && tiles.every((t) => ['ready', 'empty', 'error'].includes(t.dataset.state ?? ''));
    },
    undefined,
    { timeout: 45_000 },
  );
  const states = await page.$$eval('[data-testid^="chart-"]', (els) => els.map((e) => e.getAttribute('data-state')));
  expect(states.filter((s) => s === 'error')).toEqual([]);
  return states.length;
}

beforeAll(async () => {
  const stack = getStack();
  if (!stack.app) throw new Error('The stack runs without the web app.');
  origin = new URL(stack.app).origin;
  const list = await apiFetch('/dashboards?page[size]=200');
  dashboardId = list.body.data.find((d: { attributes: { name: string } }) => d.attributes.name === SAMPLE_DASHBOARD_NAME).id;
  browser = await launchChromium();
  const { context, page } = await newPage();
  await page.goto(`${origin}/app/login`);
  await page.fill('input[name="email"]', stack.admin.email);
  await page.fill('input[name="password"]', stack.admin.password);
  await page.click('button[type="submit"]');
  await page.waitForURL(`${origin}/app/`);
  adminState = await context.storageState();
  await context.close();
});

afterAll(async () => {
  await browser?.close();
  for (const id of links) await apiFetch(`/dashboard_sharing_links/${id}`, { method: 'DELETE' }).catch(() => undefined);
});

describe('sharing', () => {
  it('sets the share mode through the share dialog', async () => {
    const { context, page } = await newPage(adminState);
    try {
      const before = (await apiFetch(`/dashboards/${dashboardId}`)).body.data.attributes.share_mode;
      await page.goto(`${origin}/app/dashboards/${dashboardId}/share`);
      await page.check('[data-testid="share-all_analysts"]');
      await page.click('[data-testid="share-save"]');
      await page.locator('[data-testid="share-saved"]').waitFor();
      expect((await apiFetch(`/dashboards/${dashboardId}`)).body.data.attributes.share_mode).toBe('all_analysts');
      // Custom without a group is refused by the API, and the dialog says why.
      await page.check('[data-testid="share-custom"]');
      await page.click('[data-testid="share-save"]');
      await expect(page.locator('[data-testid="share-form"] .row-error').textContent()).resolves.toContain('user_group_ids');
      await page.check(`[data-testid="share-${before}"]`);
      await page.click('[data-testid="share-save"]');
      await page.locator('[data-testid="share-saved"]').waitFor();
      expect((await apiFetch(`/dashboards/${dashboardId}`)).body.data.attributes.share_mode).toBe(before);
    } finally {
      await context.close();
    }
  });

  it('creates a link with a password in the app; signed out, a wrong password is refused and the right one shows the dashboard', async () => {
    const admin = await newPage(adminState);
    const name = unique('Partner');
    let url: string;
    try {
      await admin.page.goto(`${origin}/app/dashboards/${dashboardId}/share`);
      await admin.page.click('[data-testid="new-link"]');
      await admin.page.fill('[data-testid="link-name"]', name);
      // The filter bar needs the toolbar and parameters: greyed out until both are on.
      expect(await admin.page.isDisabled('[data-testid="opt-filter_bar_enabled"]')).toBe(true);
      await admin.page.check('[data-testid="opt-parameters_enabled"]');
      expect(await admin.page.isDisabled('[data-testid="opt-filter_bar_enabled"]')).toBe(false);
      await admin.page.check('[data-testid="opt-filter_bar_enabled"]');
      await admin.page.check('[data-testid="link-password-set"]');
      await admin.page.fill('[data-testid="link-password"]', 'open sesame 7');
      await admin.page.click('[data-testid="link-save"]');
      await admin.page.waitForURL(/\/share\/links\/lnk_/);
      links.push(new URL(admin.page.url()).pathname.split('/').pop()!);
      url = (await admin.page.locator('[data-testid="public-url"]').textContent())!.trim();
      expect(url).toMatch(new RegExp(`^${origin}/s/[A-Za-z0-9_-]{22,}$`));
      // The link is listed on the share page with its protections.
      await admin.page.goto(`${origin}/app/dashboards/${dashboardId}/share`);
      expect(await admin.page.locator(`[data-testid="link-${name}"]`).textContent()).toContain('password');
    } finally {
      await admin.context.close();
    }

    const visitor = await newPage();
    try {
      const first = await visitor.page.goto(url);
      expect(first?.status()).toBe(200);
      expect(await visitor.page.locator('h1').textContent()).toContain('protected');
      expect(await visitor.page.locator('[data-testid^="chart-"]').count()).toBe(0);
      await visitor.page.fill('[data-testid="link-password-input"]', 'open barley');
      await visitor.page.click('button[type="submit"]');
      const error = visitor.page.locator('[data-testid="link-password-error"]');
      await error.waitFor();
      expect(await error.textContent()).toContain('not correct');
      expect((await visitor.context.cookies(url)).find((c) => c.name.startsWith('cairn_link'))).toBeUndefined();

      await visitor.page.fill('[data-testid="link-password-input"]', 'open sesame 7');
      await visitor.page.click('button[type="submit"]');
      await visitor.page.locator('[data-testid="public-dashboard"]').waitFor();
      expect(await waitForTiles(visitor.page)).toBeGreaterThanOrEqual(3);
      expect(await visitor.page.locator('[data-testid="public-toolbar"] h1').textContent()).toBe(SAMPLE_DASHBOARD_NAME);
      // The filter bar is there (the link allows it); no app navigation, no session.
      expect(await visitor.page.locator('.filter-bar').count()).toBe(1);
      expect(await visitor.page.locator('nav[aria-label="App"]').count()).toBe(0);
      const cookies = await visitor.context.cookies(url);
      expect(cookies.find((c) => c.name === 'cairn_session')).toBeUndefined();
      const grant = cookies.find((c) => c.name.startsWith('cairn_link_'));
      expect(grant).toMatchObject({ httpOnly: true, path: '/s', sameSite: 'Lax' });
      // A reload keeps the grant; the page never shows the password form again.
      await visitor.page.reload();
      await visitor.page.locator('[data-testid="public-dashboard"]').waitFor();
      expect(visitor.errors).toEqual([]);
    } finally {
      await visitor.context.close();
    }
  }, 120_000);

  it('refuses a link whose IP allow-list leaves this client out, and opens one that includes it', async () => {
    const excluded = await apiLink({ ip_whitelist: '203.0.113.7, 198.51.100.0/24' });
    const { context, page } = await newPage();
    try {
      const res = await page.goto(`${origin}/s/${excluded.token}`);
      expect(res?.status()).toBe(403);
      expect(await page.locator('main.error-page').getAttribute('data-reason')).toBe('ip_not_allowed');
      expect(await page.locator('h1').textContent()).toContain('network');
      // The status call is refused as well: the page is not the only door.
      const status = await page.request.post(`${origin}/s/${excluded.token}/status`, { data: { query: '' }, headers: { Origin: origin } });
      expect(status.status()).toBe(403);

      const included = await apiLink({ ip_whitelist: '127.0.0.1, ::1' });
      expect((await page.goto(`${origin}/s/${included.token}`))?.status()).toBe(200);
      await waitForTiles(page);
    } finally {
      await context.close();
    }
  }, 90_000);

  it('answers 404 for an unknown link', async () => {
    const { context, page } = await newPage();
    try {
      const res = await page.goto(`${origin}/s/thisLinkDoesNotExist0123456789`);
      expect(res?.status()).toBe(404);
      expect(await page.locator('h1').textContent()).toContain('does not exist');
    } finally {
      await context.close();
    }
  });

  it('draws the link in its colour mode, without a toolbar when it is off, and lets any site frame it', async () => {
    const dark = await apiLink({ color_mode: 'dark', toolbar_enabled: false });
    const { context, page } = await newPage();
    try {
      const res = await page.goto(`${origin}/s/${dark.token}`);
      expect(res?.headers()['content-security-policy']).toContain('frame-ancestors *');
      await waitForTiles(page);
      expect(await page.getAttribute('html', 'data-theme')).toBe('dark');
      expect(await page.locator('[data-testid="public-toolbar"]').count()).toBe(0);
    } finally {
      await context.close();
    }
  }, 90_000);

  it('on a phone draws the tiles near the viewport first and the others when they are scrolled to', async () => {
    const link = await apiLink({});
    const context = await browser.newContext({ viewport: { width: 412, height: 823 }, isMobile: true });
    try {
      const page = await context.newPage();
      await page.goto(`${origin}/s/${link.token}`);
      await waitForTiles(page);
      // The first chart is drawn; the table at the bottom has its data but not its picture (no code, no rows).
      const frames = page.locator('[data-testid^="chart-"][data-chart-type]');
      await frames.first().and(page.locator('[data-drawn="true"]')).waitFor({ timeout: 20_000 });
      const table = page.locator('section.tile--table [data-testid^="chart-"]');
      expect(await table.getAttribute('data-state')).toBe('ready');
      expect(await table.getAttribute('data-drawn')).toBeNull();
      expect(await table.locator('table tbody tr').count()).toBe(0);
      await table.scrollIntoViewIfNeeded();
      await page.waitForFunction(
        () => document.querySelector('section.tile--table [data-testid^="chart-"]')?.getAttribute('data-drawn') === 'true',
        undefined,
        {
          timeout: 20_000,
        },
      );
      expect(await table.locator('table tbody tr').count()).toBeGreaterThan(0);
    } finally {
      await context.close();
    }
  }, 90_000);

  it('opens a link that requires a sharing secret only with an address signed as documented', async () => {
    const link = await apiLink({ sharing_secret_required: true, parameters_enabled: true });
    const { context, page } = await newPage(adminState);
    try {
      // The secret is generated and shown in the link editor.
      await page.goto(`${origin}/app/dashboards/${dashboardId}/share/links/${link.id}`);
      await page.click('[data-testid="roll-secret"]');
      const secretEl = page.locator('[data-testid="sharing-secret"]');
      await secretEl.waitFor();
      const secret = (await secretEl.textContent())!.trim();
      expect(secret).toMatch(/^[0-9A-Za-z]{48}$/);

      const path = `/s/${link.token}`;
      const sign = (params: URLSearchParams) => {
        // message = path + "\n" + the query without `signature`, RFC 3986-encoded, sorted by name then value.
        const enc = (s: string) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
        const canonical = [...params]
          .filter(([k]) => k !== 'signature')
          .map(([k, v]) => [enc(k), enc(v)])
          .sort((a, b) => (a[0] === b[0] ? (a[1]! < b[1]! ? -1 : 1) : a[0]! < b[0]! ? -1 : 1))
          .map(([k, v]) => `${k}=${v}`)
          .join('&');
        return createHmac('sha256', secret).update(`${path}\n${canonical}`).digest('hex');
      };
      const params = new URLSearchParams({ 'f.country': 'DE', expires: String(Math.floor(Date.now() / 1000) + 600) });
      params.set('signature', sign(params));

      const visitor = await newPage();
      try {
        const unsigned = await visitor.page.goto(`${origin}${path}`);
        expect(unsigned?.status()).toBe(403);
        expect(await visitor.page.locator('main.error-page').getAttribute('data-reason')).toBe('signature_missing');
        const ok = await visitor.page.goto(`${origin}${path}?${params}`);
        expect(ok?.status()).toBe(200);
        await waitForTiles(visitor.page);
        // Only Germany: the signed value is applied.
        const byCountry = visitor.page.locator('section.tile', { has: visitor.page.locator('h2', { hasText: 'Revenue by country' }) });
        await byCountry.locator('svg text', { hasText: 'Germany' }).first().waitFor({ timeout: 20_000 });
        expect(await byCountry.textContent()).not.toContain('France');
        const tampered = new URLSearchParams(params);
        tampered.set('f.country', 'FR');
        const bad = await visitor.page.goto(`${origin}${path}?${tampered}`);
        expect(bad?.status()).toBe(403);
        expect(await visitor.page.locator('main.error-page').getAttribute('data-reason')).toBe('signature_invalid');
      } finally {
        await visitor.context.close();
      }
    } finally {
      await context.close();
    }
  }, 120_000);

  it('refuses a signed address whose values cannot apply, and shows anonymous viewers no database error text', async () => {
    // A dashboard of its own with one report whose SQL fails in the database.
    const sources = await apiFetch('/datasources?page[size]=200');
    const datasourceId = sources.body.data[0].id;
    const board = await apiFetch('/dashboards', { body: { data: { type: 'dashboards', attributes: { name: unique('Broken board') } } } });
    expect(board.status, board.text).toBe(201);
    const boardId = board.body.data.id;
    const report = await apiFetch('/reports', {
      body: {
        data: {
          type: 'reports',
          attributes: { name: 'Broken', sql_query: 'select secret_column from no_such_table_e2e' },
          relationships: { dashboard: { data: { type: 'dashboards', id: boardId } }, datasource: { data: { type: 'datasources', id: datasourceId } } },
        },
      },
    });
    expect(report.status, report.text).toBe(201);
    const res = await apiFetch('/dashboard_sharing_links', {
      body: {
        data: {
          type: 'dashboard_sharing_links',
          attributes: { name: unique('e2e') },
          relationships: { dashboard: { data: { type: 'dashboards', id: boardId } } },
        },
      },
    });
    links.push(res.body.data.id);
    const { context, page } = await newPage();
    try {
      await page.goto(`${origin}/s/${res.body.data.attributes.token}`);
      const message = page.locator('[data-testid="report-error"]');
      await message.waitFor({ timeout: 45_000 });
      expect(await message.textContent()).toContain("This report could not be run. The dashboard's owner can see the details.");
      expect(await page.content()).not.toMatch(/no_such_table_e2e|secret_column/);
    } finally {
      await context.close();
    }

    // A signed address naming a filter the dashboard does not have (a typo of country) is refused.
    const signedLink = await apiLink({ sharing_secret_required: true, parameters_enabled: true });
    const secret = (await apiFetch(`/dashboard_sharing_links/${signedLink.id}/sharing_secret`, { method: 'POST' })).body.sharing_secret as string;
    const path = `/s/${signedLink.token}`;
    const params = new URLSearchParams({ 'f.Country': 'DE', expires: String(Math.floor(Date.now() / 1000) + 600) });
    const canonical = [...params]
      .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`)
      .sort()
      .join('&');
    params.set('signature', createHmac('sha256', secret).update(`${path}\n${canonical}`).digest('hex'));
    const visitor = await newPage();
    try {
      const refused = await visitor.page.goto(`${origin}${path}?${params}`);
      expect(refused?.status()).toBe(403);
      expect(await visitor.page.locator('main.error-page').getAttribute('data-reason')).toBe('signed_parameters_invalid');
      expect(await visitor.page.locator('main.error-page').textContent()).toContain('"Country"');
    } finally {
      await visitor.context.close();
      await apiFetch(`/dashboards/${boardId}`, { method: 'DELETE' }).catch(() => undefined);
    }
  }, 120_000);

  it('downloads a report as CSV from a link that allows it, and refuses when the link does not', async () => {
    const open = await apiLink({});
    const closed = await apiLink({ data_download_enabled: false });
    const view = await apiFetch(`/dashboards/${dashboardId}?include=reports`);
    const report = view.body.included.find((r: { type: string }) => r.type === 'reports');
    const { context, page } = await newPage();
    try {
      await page.goto(`${origin}/s/${open.token}`);
      await waitForTiles(page);
      expect(await page.locator('[data-testid="public-downloads"]').count()).toBe(1);
      const file = await page.request.get(`${origin}/s/${open.token}/download/${report.id}?format=csv&name=${encodeURIComponent(report.attributes.name)}`);
      expect(file.status(), await file.text()).toBe(200);
      expect(file.headers()['content-type']).toContain('text/csv');
      expect(file.headers()['content-disposition']).toContain('.csv');
      expect((await file.text()).split(/\r?\n/)[0]!.length).toBeGreaterThan(0);

      // The same file from the report's own tile menu (⤓ → Download CSV).
      const tile = page.locator(`section.tile[data-report-id="${report.id}"]`);
      await tile.hover();
      // A narrow tile folds its tools behind ⋮ (the title keeps its room).
      const fold = tile.locator('[data-testid="tile-tools-toggle"]');
      if (await fold.isVisible()) await fold.click();
      await tile.locator('[data-testid="tile-downloads"]').click();
      const [download] = await Promise.all([page.waitForEvent('download'), tile.locator('[data-testid="download-csv"]').click()]);
      expect(download.suggestedFilename()).toMatch(/\.csv$/);
      expect((await readFile((await download.path())!, 'utf8')).trim()).toBe((await file.text()).trim());

      await page.goto(`${origin}/s/${closed.token}`);
      await waitForTiles(page);
      expect(await page.locator('[data-testid="public-downloads"]').count()).toBe(0);
      expect(await page.locator('[data-testid="tile-downloads"]').count()).toBe(0);
      // Maximize stays (a report switch, not a link switch); a link has no per-report refresh.
      expect(await page.locator('[data-testid="tile-maximize"]').count()).toBeGreaterThan(0);
      expect(await page.locator('[data-testid="tile-refresh"]').count()).toBe(0);
      const refused = await page.request.get(`${origin}/s/${closed.token}/download/${report.id}?format=csv`);
      expect(refused.status()).toBe(403);
    } finally {
      await context.close();
    }
    // In the app, the report menu's download route: signed in, an Excel file; signed out, the sign-in page.
    const admin = await newPage(adminState);
    try {
      const xlsx = await admin.context.request.get(
        `${origin}/app/reports/${report.id}/download?format=xlsx&name=${encodeURIComponent(report.attributes.name)}`,
      );
      expect(xlsx.status()).toBe(200);
      expect(xlsx.headers()['content-type']).toContain('spreadsheetml');
      expect(xlsx.headers()['content-disposition']).toContain('.xlsx');
      expect((await xlsx.body()).subarray(0, 2).toString()).toBe('PK');
      const bad = await admin.context.request.get(`${origin}/app/reports/${report.id}/download?format=pdf`);
      expect(bad.status()).toBe(400);
    } finally {
      await admin.context.close();
    }
    const anonymous = await fetch(`${origin}/app/reports/${report.id}/download?format=csv`, { redirect: 'manual' });
    expect(anonymous.status).toBe(302);
    expect(anonymous.headers.get('location')).toContain('/app/login');
  }, 90_000);
});
