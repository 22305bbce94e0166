/**
 * Embedding as an integrator's page does it (docs: embedding/overview, actions-events, tips-tricks): a
 * parent page on its own loopback origin frames a sharing link whose address the test signs with the
 * docs' own code, and listens to the frame's postMessage events. Checked in Chromium:
 * - one framing policy per answer: a sharing link may be framed by any site (CSP frame-ancestors only),
 *   an app page by none (the browser refuses to show it in the parent's frame);
 * - the signed filter shows as fixed in the filter bar (a lock and "Fixed", no control) and the data
 *   follows it, whatever the address hash says; `cairn:set-filters` naming it is answered with `cairn:set-filters-refused` and changes
 *   nothing, one naming another filter with `cairn:filters-changed`;
 * - a link that does not let the parent change filters refuses `cairn:set-filters` with the reason;
 * - `cairn:resize` carries the content height: a parent that sizes the iframe with it shows the whole
 *   dashboard without a scroll bar, and a narrower frame gets a new height;
 * - `cairn:report-error` comes once per error, not again when the page refreshes its reports, and never
 *   for a status call that fails on the way (503): the page says it is retrying and recovers.
 */
import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Frame, Page } from 'playwright-core';
import { launchChromium } from './browser-kit.ts';
import { apiFetch, getStack } from './harness.ts';

type Message = { source?: string; version?: number; type?: string; dashboard_id?: string; [k: string]: unknown };

let browser: Browser;
let origin: string;
let dashboardId: string;
let parent: Server;
let parentOrigin: string;
const cleanup: string[] = [];
const tag = Math.random().toString(36).slice(2, 8);

// The signing code of docs/pages/embedding/overview.mdx, as an integrator copies it.
const enc = (s: string) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase());

function signedLinkUrl(base: string, token: string, secret: string, filters: Record<string, string>, lifetimeSeconds = 3600): string {
  const params: [string, string][] = Object.entries(filters).map(([variable, value]) => [`f.${variable}`, value]);
  params.push(['expires', String(Math.floor(Date.now() / 1000) + lifetimeSeconds)]);
  const canonical = params
    .map(([n, v]) => [enc(n), enc(v)] as const)
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0))
    .map(([n, v]) => `${n}=${v}`)
    .join('&');
  const path = `/s/${token}`;
  const signature = createHmac('sha256', secret).update(`${path}\n${canonical}`).digest('hex');
  return `${base}${path}?${canonical}&signature=${signature}`;
}

/**
 * The integrator's page: frames `src` and keeps every message its frame posts (with the sender's
 * origin); with `autosize` it sizes the iframe from `cairn:resize`, as the tips page shows.
 */
function parentPage(src: string, autosize: boolean): string {
  const attr = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;');
  return `<!doctype html><html><head><title>Customer portal</title><style>body{margin:0}</style></head><body>
    <iframe id="cairn" title="Sales" src="${attr(src)}" style="width: 1100px; height: 300px; border: 0"></iframe>
    <script>
      const frame = document.getElementById('cairn');
      window.events = [];
      window.addEventListener('message', (event) => {
        if (event.source !== frame.contentWindow) return;
        window.events.push({ origin: event.origin, data: event.data });
        if (${autosize} && event.data && event.data.source === 'cairn' && event.data.type === 'cairn:resize') frame.style.height = event.data.height + 'px';
      });
    </script></body></html>`;
}

const pages = new Map<string, string>();

async function openParent(src: string, autosize = false): Promise<{ page: Page; frame: Frame; errors: string[]; close: () => Promise<void> }> {
  const id = Math.random().toString(36).slice(2);
  pages.set(`/${id}`, parentPage(src, autosize));
  const context = await browser.newContext({ viewport: { width: 1300, height: 900 } });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${parentOrigin}/${id}`);
  const handle = await page.waitForSelector('#cairn');
  const frame = (await handle.contentFrame())!;
  return { page, frame, errors, close: () => context.close() };
}

const events = (page: Page) => page.evaluate(() => (window as unknown as { events: { origin: string; data: Message }[] }).events);
const ofType = async (page: Page, type: string) => (await events(page)).filter((e) => e.data?.type === type);

async function waitForEvent(page: Page, type: string, count = 1): Promise<{ origin: string; data: Message }[]> {
  await page.waitForFunction(
    ([t, n]) => (window as unknown as { events: { data: Message }[] }).events.filter((e) => e.data?.type === t).length >= (n as number),
    [type, count] as const,
    { timeout: 45_000 },
  );
  return ofType(page, type);
}

async function post(page: Page, message: unknown): Promise<void> {
  await page.evaluate((m) => (document.getElementById('cairn') as HTMLIFrameElement).contentWindow!.postMessage(m, '*'), message);
}

beforeAll(async () => {
  const stack = getStack();
  if (!stack.app) throw new Error('The stack runs without the web app (stack.app is null).');
  origin = new URL(stack.app).origin;
  browser = await launchChromium();

  parent = createServer((req, res) => {
    const html = pages.get(new URL(req.url ?? '/', 'http://x').pathname);
    res.writeHead(html ? 200 : 404, { 'content-type': 'text/html; charset=utf-8' });
    res.end(html ?? 'not found');
  });
  await new Promise<void>((resolve) => parent.listen(0, '127.0.0.1', () => resolve()));
  parentOrigin = `http://127.0.0.1:${(parent.address() as AddressInfo).port}`;

  const sample = (await apiFetch<{ data: { id: string; attributes: { is_sample?: boolean } }[] }>('/datasources')).body.data.find(
    (d) => d.attributes.is_sample,
  )!;
  const dash = await apiFetch<{ data: { id: string } }>('/dashboards', { body: { data: { type: 'dashboards', attributes: { name: `Embed parent ${tag}` } } } });
  expect(dash.status, dash.text).toBe(201);
  dashboardId = dash.body.data.id;
  const filterBodies = [
    {
      display_name: 'Country',
      variable_name: 'country',
      control_type: 'dropdown_multi_manual',
      value_type: 'TEXT',
      values: ['DE', 'FR'],
      value_names: ['Germany', 'France'],
    },
    { display_name: 'Order status', variable_name: 'order_status', control_type: 'input_multi', value_type: 'TEXT' },
  ];
  for (const attributes of filterBodies) {
    const res = await apiFetch('/filters', {
      body: { data: { type: 'filters', attributes, relationships: { dashboards: { data: [{ type: 'dashboards', id: dashboardId }] } } } },
    });
    expect(res.status, res.text).toBe(201);
  }
  const reports: [string, string][] = [
    [
      'Orders by country',
      'SELECT o.country, count(*) AS orders FROM orders o WHERE {[o.country]=country} AND {[o.status]=order_status} GROUP BY o.country ORDER BY o.country',
    ],
    ['Broken', 'SELECT 1 / (SELECT count(*) - count(*) FROM orders) AS boom'],
  ];
  for (const [name, sqlQuery] of reports) {
    const res = await apiFetch('/reports', {
      body: {
        data: {
          type: 'reports',
          attributes: { name, sql_query: sqlQuery, width: 6, height: 4 },
          relationships: { dashboard: { data: { type: 'dashboards', id: dashboardId } }, datasource: { data: { type: 'datasources', id: sample.id } } },
        },
      },
    });
    expect(res.status, res.text).toBe(201);
  }
}, 60_000);

afterAll(async () => {
  await browser?.close();
  parent?.close();
  for (const id of cleanup) await apiFetch(`/dashboard_sharing_links/${id}`, { method: 'DELETE' }).catch(() => undefined);
  if (dashboardId) await apiFetch(`/dashboards/${dashboardId}`, { method: 'DELETE' }).catch(() => undefined);
});

async function link(attributes: Record<string, unknown>): Promise<{ id: string; token: string }> {
  const res = await apiFetch('/dashboard_sharing_links', {
    body: {
      data: {
        type: 'dashboard_sharing_links',
        attributes: { name: `Customer portal ${tag}`, ...attributes },
        relationships: { dashboard: { data: { type: 'dashboards', id: dashboardId } } },
      },
    },
  });
  expect(res.status, res.text).toBe(201);
  cleanup.push(res.body.data.id);
  return { id: res.body.data.id, token: res.body.data.attributes.token };
}

/** A link for per-viewer data: the filter bar on, the parent may set filters, the address signed. */
async function signedLink(filters: Record<string, string>): Promise<string> {
  const { id, token } = await link({
    parameters_enabled: true,
    sharing_secret_required: true,
    toolbar_enabled: true,
    filter_bar_enabled: true,
    refresh_enabled: true,
  });
  const secret = await apiFetch<{ sharing_secret: string }>(`/dashboard_sharing_links/${id}/sharing_secret`, { method: 'POST' });
  expect(secret.status, secret.text).toBe(200);
  return signedLinkUrl(origin, token, secret.body.sharing_secret, filters);
}

describe('a sharing link in a parent page', () => {
  it('answers with one framing policy: any site may frame a sharing link, no site an app page', async () => {
    const src = await signedLink({ country: 'DE' });
    for (const url of [src, `${origin}/s/no-such-link-${tag}`]) {
      const res = await fetch(url, { headers: { 'sec-fetch-dest': 'iframe' } });
      expect(res.headers.get('content-security-policy'), url).toBe('frame-ancestors *');
      expect(res.headers.get('x-frame-options'), url).toBeNull();
    }
    for (const path of ['/app/login', '/embedding/overview']) {
      const res = await fetch(`${origin}${path}`);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-security-policy'), path).toBe("frame-ancestors 'none'");
      expect(res.headers.get('x-frame-options'), path).toBe('DENY');
    }

    // In the browser: the link's page runs in the parent's frame; the sign-in page does not.
    const embed = await openParent(src);
    try {
      await embed.frame.locator('[data-testid="public-dashboard"]').waitFor({ timeout: 45_000 });
    } finally {
      await embed.close();
    }
    const app = await openParent(`${origin}/app/login`);
    try {
      await app.page.waitForTimeout(1500);
      expect(await app.frame.locator('input[name="email"]').count()).toBe(0);
    } finally {
      await app.close();
    }
  }, 120_000);

  it('shows the signed filter as fixed, refuses cairn:set-filters naming it, and takes the other filters', async () => {
    const src = await signedLink({ country: 'DE' });
    const { page, frame, errors, close } = await openParent(src);
    try {
      const [loaded] = await waitForEvent(page, 'cairn:loaded');
      expect(loaded!.origin).toBe(origin);
      expect(loaded!.data).toMatchObject({ source: 'cairn', version: 1, dashboard_id: dashboardId, reports: { total: 2, error: 1 } });

      // The filter bar: the signed country with a lock and "Fixed", no control to change it.
      const country = frame.locator('[data-testid="filter-country"]');
      expect(await country.getAttribute('data-fixed')).toBe('true');
      expect((await country.textContent())!.replace(/\s+/g, ' ')).toContain('Germany');
      expect(await country.locator('.badge--lock').textContent()).toContain('Fixed');
      expect(await country.locator('.badge--lock svg').count()).toBe(1);
      expect(await country.locator('button, input, select').count()).toBe(0);
      expect(await frame.locator('[data-testid="filter-order_status"]').count()).toBe(1);
      // The data follows the signed value.
      const ordersTile = frame.locator('section.tile', { has: frame.locator('h2', { hasText: 'Orders by country' }) });
      await ordersTile.locator('tbody td').first().waitFor();
      expect(await ordersTile.locator('tbody tr td:first-child').allTextContents()).toEqual(['DE']);

      // Naming the fixed filter: refused with the reason, nothing changes.
      await post(page, { type: 'cairn:set-filters', filters: { country: 'FR' } });
      const [refused] = await waitForEvent(page, 'cairn:set-filters-refused');
      expect(refused!.data).toMatchObject({
        source: 'cairn',
        dashboard_id: dashboardId,
        problems: ['"country" is fixed by the signed address and cannot be changed.'],
      });
      // Even with another, acceptable value beside it: the whole message is refused.
      await post(page, { type: 'cairn:set-filters', filters: { country: 'DE', order_status: 'paid' } });
      await waitForEvent(page, 'cairn:set-filters-refused', 2);
      await page.waitForTimeout(800);
      expect(await ofType(page, 'cairn:filters-changed')).toEqual([]);
      expect(await frame.locator('[data-testid="filter-order_status"]').inputValue()).toBe('');

      // Another filter: applied, told back with the fixed value still in force.
      await post(page, { type: 'cairn:set-filters', filters: { order_status: 'cancelled' } });
      const [changed] = await waitForEvent(page, 'cairn:filters-changed');
      expect(changed!.data).toMatchObject({ type: 'cairn:filters-changed', filters: { country: 'DE', order_status: 'cancelled' } });
      await frame.waitForFunction(() => (document.querySelector('[data-testid="filter-order_status"]') as HTMLInputElement | null)?.value === 'cancelled');
      expect(await country.getAttribute('data-fixed')).toBe('true');
      expect((await country.textContent())!).toContain('Germany');
      expect(errors).toEqual([]);
    } finally {
      await close();
    }
  }, 120_000);

  it('keeps the signed value when the address hash names the fixed filter; the hash still sets the others', async () => {
    const src = await signedLink({ country: 'DE' });
    const { page, frame, close } = await openParent(`${src}#f.country=FR&f.order_status=cancelled`);
    try {
      await waitForEvent(page, 'cairn:loaded');
      const country = frame.locator('[data-testid="filter-country"]');
      expect(await country.getAttribute('data-fixed')).toBe('true');
      expect(await country.textContent()).toContain('Germany');
      expect(await country.textContent()).not.toContain('France');
      await frame.waitForFunction(() => (document.querySelector('[data-testid="filter-order_status"]') as HTMLInputElement | null)?.value === 'cancelled');
      const ordersTile = frame.locator('section.tile', { has: frame.locator('h2', { hasText: 'Orders by country' }) });
      await ordersTile.locator('tbody td').first().waitFor();
      expect(await ordersTile.locator('tbody tr td:first-child').allTextContents()).toEqual(['DE']);
    } finally {
      await close();
    }
  }, 90_000);

  it('refuses cairn:set-filters on a link that does not let the parent change filters', async () => {
    const { token } = await link({ parameters_enabled: false, toolbar_enabled: false });
    const { page, close } = await openParent(`${origin}/s/${token}`);
    try {
      await waitForEvent(page, 'cairn:loaded');
      await post(page, { type: 'cairn:set-filters', filters: { order_status: 'paid' } });
      const [refused] = await waitForEvent(page, 'cairn:set-filters-refused');
      expect((refused!.data.problems as string[])[0]).toMatch(/does not let the embedding page change filters/);
      expect(await ofType(page, 'cairn:filters-changed')).toEqual([]);
    } finally {
      await close();
    }
  }, 90_000);

  it('posts cairn:resize with the content height: sized with it, the frame needs no scroll bar', async () => {
    const src = await signedLink({ country: 'FR' });
    const { page, frame, close } = await openParent(src, true);
    try {
      await waitForEvent(page, 'cairn:loaded');
      const first = await waitForEvent(page, 'cairn:resize');
      for (const e of first) expect(Number.isInteger(e.data.height) && (e.data.height as number) > 0, JSON.stringify(e.data)).toBe(true);
      // The parent applied the last height: the frame shows all of the content, and no more.
      const fits = async () => {
        const last = (await ofType(page, 'cairn:resize')).at(-1)!.data.height as number;
        await page.waitForFunction((h) => document.getElementById('cairn')!.getBoundingClientRect().height === h, last);
        const inner = await frame.evaluate(() => ({ scroll: document.documentElement.scrollHeight, view: window.innerHeight }));
        expect(inner.scroll).toBeLessThanOrEqual(inner.view);
        expect(inner.view).toBe(last);
        return last;
      };
      await frame.locator('[data-testid="public-dashboard"] section.tile').first().waitFor();
      await page.waitForTimeout(500);
      const wide = await fits();
      expect(wide).toBeGreaterThan(300);

      // A narrower frame lays the tiles out anew: the parent hears the new height, and it fits again.
      const before = (await ofType(page, 'cairn:resize')).length;
      await page.evaluate(() => {
        document.getElementById('cairn')!.style.width = '480px';
      });
      await waitForEvent(page, 'cairn:resize', before + 1);
      await page.waitForTimeout(500);
      const narrow = await fits();
      expect(narrow).not.toBe(wide);
      // Each message is news: no height is posted twice in a row.
      const heights = (await ofType(page, 'cairn:resize')).map((e) => e.data.height);
      expect(heights.every((h, i) => i === 0 || h !== heights[i - 1])).toBe(true);
    } finally {
      await close();
    }
  }, 120_000);

  it('tells no cairn:report-error when the status call fails on the way: the page says it is retrying, keeps its charts and recovers', async () => {
    const src = await signedLink({ country: 'DE' });
    const { page, frame, close } = await openParent(src);
    try {
      await waitForEvent(page, 'cairn:loaded');
      const toldBefore = (await ofType(page, 'cairn:report-error')).length;
      // From now on every status call answers 503, as the app does when the API's database is down.
      let failed = 0;
      await page.context().route('**/s/*/status', (route) => {
        failed++;
        return route.fulfill({
          status: 503,
          contentType: 'application/json',
          body: JSON.stringify({ error: { status: 503, code: 'service_unavailable', message: 'The database is unavailable.' } }),
        });
      });
      await post(page, { type: 'cairn:set-filters', filters: { order_status: 'paid' } });
      await waitForEvent(page, 'cairn:filters-changed');
      await frame.getByText('The dashboard status could not be loaded; retrying.').first().waitFor({ timeout: 30_000 });
      await expect.poll(() => failed, { timeout: 30_000 }).toBeGreaterThanOrEqual(2);
      // No tile shows a report error: the chart with data keeps it, the tile without data (the broken
      // report, asked again with the new values) says it is retrying; nothing new was told to the parent.
      expect(await frame.locator('[data-testid="report-error"]').count()).toBe(0);
      expect(await frame.locator('[data-testid="report-retrying"]').count()).toBe(1);
      expect(await frame.locator('.chart[data-state="ready"]').count()).toBe(1);
      expect(await frame.getByText('The database is unavailable.').count()).toBe(0);
      expect((await ofType(page, 'cairn:report-error')).length, JSON.stringify(await events(page))).toBe(toldBefore);
      // The server is back: the next try loads the new values and the notice goes.
      const loadedBefore = (await ofType(page, 'cairn:loaded')).length;
      await page.context().unroute('**/s/*/status');
      await waitForEvent(page, 'cairn:loaded', loadedBefore + 1);
      await frame.getByText('The dashboard status could not be loaded; retrying.').first().waitFor({ state: 'detached', timeout: 30_000 });
      expect((await ofType(page, 'cairn:report-error')).length).toBe(toldBefore);
    } finally {
      await close();
    }
  }, 120_000);

  it('posts cairn:report-error once per error, not again when the reports refresh', async () => {
    const src = await signedLink({ country: 'DE' });
    const { page, frame, close } = await openParent(src);
    try {
      await waitForEvent(page, 'cairn:loaded');
      const errorsTold = await ofType(page, 'cairn:report-error');
      expect(errorsTold).toHaveLength(1);
      expect(errorsTold[0]!.data).toMatchObject({ source: 'cairn', dashboard_id: dashboardId });
      expect(String(errorsTold[0]!.data.report_id)).toMatch(/^rep_/);
      expect(String(errorsTold[0]!.data.message)).not.toBe('');

      // The viewer refreshes: every report runs again, the broken one fails the same way.
      const loadedBefore = (await ofType(page, 'cairn:loaded')).length;
      await frame.click('[data-testid="public-refresh"]');
      await waitForEvent(page, 'cairn:loaded', loadedBefore + 1);
      // A filter change runs them once more.
      await post(page, { type: 'cairn:set-filters', filters: { order_status: 'paid' } });
      await waitForEvent(page, 'cairn:filters-changed');
      await waitForEvent(page, 'cairn:loaded', loadedBefore + 2);
      await page.waitForTimeout(800);
      // The same failure is never told twice (a different message would be news, as documented).
      const told = (await ofType(page, 'cairn:report-error')).map((e) => `${e.data.report_id}: ${e.data.message}`);
      expect(told.length, JSON.stringify(await events(page))).toBeGreaterThanOrEqual(1);
      expect(new Set(told).size, JSON.stringify(await events(page))).toBe(told.length);
      expect(told[0]).toBe(`${errorsTold[0]!.data.report_id}: ${errorsTold[0]!.data.message}`);
    } finally {
      await close();
    }
  }, 120_000);
});
