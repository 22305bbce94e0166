/**
 * The web app in Debian's Chromium: sign-in, the sample dashboard with every chart drawn, filters,
 * colour modes and the docs frame. Screenshots go to .test-artifacts/ (gitignored).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { SAMPLE_DASHBOARD_NAME } from '../db/src/seed/sample-dashboard.ts';
import { getStack, REPO_ROOT } from './harness.ts';
import { launchChromium, submitSignIn } from './browser-kit.ts';

const ARTIFACTS = join(REPO_ROOT, '.test-artifacts');

let browser: Browser;
/** One signed-in session shared by the tests that only read (sign-in is rate limited per e-mail). */
let signedIn: Awaited<ReturnType<BrowserContext['storageState']>>;
let origin: string;
let admin: { email: string; password: string };
let api: string;

beforeAll(async () => {
  const stack = await getStack();
  if (!stack.app) throw new Error('The stack runs without the web app (stack.app is null).');
  origin = new URL(stack.app).origin;
  admin = stack.admin;
  api = stack.regions.eu.api;
  mkdirSync(ARTIFACTS, { recursive: true });
  browser = await launchChromium();
  const { context, page } = await newPage();
  await signIn(page);
  await page.waitForURL(`${origin}/app/`);
  signedIn = await context.storageState();
  await context.close();
});

afterAll(async () => {
  await browser?.close();
});

async function newPage(opts: { signedIn?: boolean } = {}): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
  const context = await browser.newContext({
    viewport: { width: 1440, height: 1000 },
    ...(opts.signedIn ? { storageState: signedIn } : {}),
  });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  return { context, page, errors };
}

const signIn = (page: Page, password = admin.password) => submitSignIn(page, origin, admin.email, password);

/** Waits until every report tile has left its loading state and shows a drawn chart, a number or a table. */
async function waitForTiles(page: Page): Promise<void> {
  await page.waitForSelector('[data-testid^="chart-"]');
  await page.waitForFunction(
    () => {
      const tiles = [...document.querySelectorAll<HTMLElement>('[data-testid^="chart-"]')];
      return (
        tiles.length > 0 &&
        tiles.every((t) => {
          const type = t.dataset.chartType;
          if (t.dataset.state === 'error' || t.dataset.state === 'empty') return true;
          if (type === 'bar' || type === 'line' || type === 'pie') return Boolean(t.querySelector('svg path, svg rect'));
          if (type === 'number') return Boolean(t.querySelector('[data-testid="number-value"]')?.textContent?.trim());
          if (type === 'table') return t.querySelectorAll('tbody tr').length > 0;
          return false;
        })
      );
    },
    undefined,
    { timeout: 30_000 },
  );
}

/** Heights of the bars a nivo bar chart drew (vertical) or their widths (horizontal). */
async function barSizes(page: Page, testId: string): Promise<number[]> {
  return page.$$eval(`[data-testid="${testId}"] svg rect`, (rects) =>
    rects
      .filter((r) => r.getAttribute('fill') !== 'transparent' && r.closest('[data-testid]'))
      .map((r) => {
        const box = r.getBoundingClientRect();
        return Math.min(box.width, box.height);
      })
      .filter((size) => size > 0),
  );
}

async function openSampleDashboard(page: Page): Promise<void> {
  await page.goto(`${origin}/app/`);
  const card = page.locator('.dashboard-card', { hasText: SAMPLE_DASHBOARD_NAME }).first();
  await card.click();
  await page.waitForURL(/\/app\/dashboards\/dsh_/);
  await waitForTiles(page);
}

describe('web app', () => {
  it('sends a signed-out visitor of /app/ to the sign-in page and back after signing in', async () => {
    const { context, page } = await newPage();
    try {
      const res = await page.goto(`${origin}/app/`);
      expect(res?.status()).toBe(200);
      expect(page.url()).toBe(`${origin}/app/login?next=%2Fapp%2F`);
      await expect(page.locator('h1').textContent()).resolves.toBe('Sign in');

      // The redirect itself (no browser involved) is a 302 to the sign-in page, without a session cookie.
      const raw = await fetch(`${origin}/app/administration/organization`, { redirect: 'manual' });
      expect(raw.status).toBe(302);
      expect(raw.headers.get('location')).toBe('/app/login?next=%2Fapp%2Fadministration%2Forganization');

      // Signing in from there lands on the page first asked for (the admin's organization placeholder).
      await page.goto(`${origin}${raw.headers.get('location')}`);
      await page.fill('input[name="email"]', admin.email);
      await page.fill('input[name="password"]', admin.password);
      await page.click('button[type="submit"]');
      await page.waitForURL(`${origin}/app/administration/organization`);
      expect((await page.locator('[data-testid="organization-name"]').textContent())?.trim().length).toBeGreaterThan(0);

      // An off-site `next` is ignored.
      const offsite = await page.goto(`${origin}/app/login?next=https%3A%2F%2Fevil.example%2F`);
      expect(offsite?.status()).toBe(200);
      expect(await page.inputValue('input[name="next"]')).toBe('/app/');
    } finally {
      await context.close();
    }
  });

  it('shows the API’s message for a wrong password and sets no session', async () => {
    const { context, page } = await newPage();
    try {
      await signIn(page, `${admin.password}-wrong`);
      const error = page.locator('[data-testid="login-error"]');
      await error.waitFor();
      expect((await error.textContent())?.trim().length).toBeGreaterThan(0);
      expect(page.url()).toContain('/app/login');
      const cookies = await context.cookies(origin);
      expect(cookies.find((c) => c.name === 'cairn_session')).toBeUndefined();
      // The e-mail stays filled in for the next try.
      expect(await page.inputValue('input[name="email"]')).toBe(admin.email);
    } finally {
      await context.close();
    }
  });

  it('draws every chart of the sample dashboard and saves light and dark screenshots', async () => {
    const { context, page, errors } = await newPage({ signedIn: true });
    try {
      const cookie = (await context.cookies(origin)).find((c) => c.name === 'cairn_session');
      expect(cookie?.httpOnly).toBe(true);
      expect(cookie?.sameSite).toBe('Lax');

      await openSampleDashboard(page);
      const tiles = await page.$$eval('[data-testid^="chart-"]', (els) =>
        els.map((e) => ({ id: e.getAttribute('data-testid')!, type: e.getAttribute('data-chart-type')!, state: e.getAttribute('data-state') })),
      );
      expect(tiles.length).toBeGreaterThanOrEqual(5);
      // The sample dashboard's reports all have data: no tile may be in an error or empty state.
      expect(tiles.filter((t) => t.state !== 'ready')).toEqual([]);
      const types = new Set(tiles.map((t) => t.type));
      for (const type of ['bar', 'line', 'pie', 'number', 'table']) expect(types).toContain(type);

      for (const tile of tiles.filter((t) => ['bar', 'line', 'pie'].includes(t.type))) {
        expect(await page.locator(`[data-testid="${tile.id}"] svg`).count(), tile.id).toBeGreaterThan(0);
      }
      const bar = tiles.find((t) => t.type === 'bar')!;
      expect((await barSizes(page, bar.id)).length).toBeGreaterThanOrEqual(2);
      const pieSlices = await page.locator(`[data-testid="${tiles.find((t) => t.type === 'pie')!.id}"] svg path`).count();
      expect(pieSlices).toBeGreaterThanOrEqual(2);
      const number = await page.locator('[data-chart-type="number"] [data-testid="number-value"]').first().textContent();
      expect(number).toMatch(/\d/);
      const rows = await page.locator('[data-chart-type="table"] tbody tr').count();
      expect(rows).toBeGreaterThan(0);
      expect(rows).toBeLessThanOrEqual(200);

      await page.screenshot({ path: join(ARTIFACTS, 'dashboard-light.png'), fullPage: true });

      // The toggle switches to dark mode and the choice survives a reload (local storage).
      await page.click('[data-testid="theme-toggle"]');
      expect(await page.getAttribute('html', 'data-theme')).toBe('dark');
      await page.reload();
      expect(await page.getAttribute('html', 'data-theme')).toBe('dark');
      await waitForTiles(page);
      await page.screenshot({ path: join(ARTIFACTS, 'dashboard-dark.png'), fullPage: true });

      // ?theme=light overrides the stored choice.
      await page.goto(`${page.url().split('?')[0]}?theme=light`);
      expect(await page.getAttribute('html', 'data-theme')).toBe('light');
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('applies filters through the URL and redraws the reports', async () => {
    const { context, page } = await newPage({ signedIn: true });
    try {
      await openSampleDashboard(page);
      const bar = page.locator('[data-chart-type="bar"]').first();
      const barId = (await bar.getAttribute('data-testid'))!;
      const before = (await barSizes(page, barId)).length;
      expect(before).toBeGreaterThanOrEqual(2);

      // One country from the country dropdown (its manual options), one month through the range picker.
      await page.click('[data-testid="filter-country"]');
      expect(await page.locator('[data-testid^="filter-country-option-"]').count()).toBeGreaterThanOrEqual(6);
      await page.click('[data-testid="filter-country-option-DE"]');
      await page.keyboard.press('Escape');
      await page.waitForURL(/f\.country=DE/);
      await page.click('[data-testid="filter-order_date"]');
      await page.click('[data-testid="filter-order_date-mode-between"]');
      await page.fill('[data-testid="filter-order_date-start"]', '2025-03-01');
      await page.fill('[data-testid="filter-order_date-end"]', '2025-03-31');
      await page.click('[data-testid="filter-order_date-set"]');
      await page.waitForURL(/f\.order_date=/);
      const url = new URL(page.url());
      expect(url.searchParams.get('f.order_date')).toBe(`${Date.UTC(2025, 2, 1) / 1000}~${Date.UTC(2025, 2, 31) / 1000}`);
      await page.waitForFunction((id) => {
        const el = document.querySelector(`[data-testid="${id}"]`);
        return el?.getAttribute('data-state') === 'ready' && el.querySelectorAll('svg rect').length > 0;
      }, barId);
      await waitForTiles(page);
      // The tiles keep their old bars (dimmed) until the new results arrive: wait for the redraw.
      await page
        .waitForFunction(
          ({ id, n }) => (document.querySelector(`[data-testid="${id}"]`)?.querySelectorAll('svg rect[fill]:not([fill="transparent"])').length ?? n) < n,
          { id: barId, n: before },
          { timeout: 30_000 },
        )
        .catch(() => undefined);
      // Revenue by country now has one bar: Germany.
      expect((await barSizes(page, barId)).length).toBeLessThan(before);
      expect(await bar.textContent()).toContain('Germany');
      expect(await bar.textContent()).not.toContain('France');

      // A malformed value is reported, not sent.
      await page.goto(`${origin}${url.pathname}?f.order_date=soon`);
      await expect(page.locator('.filter-bar__problems').textContent()).resolves.toContain('order_date');
    } finally {
      await context.close();
    }
  });

  it('frames the docs with navbar, table of contents and footer, and answers 404 for unknown pages', async () => {
    const { context, page } = await newPage();
    try {
      const res = await page.goto(`${origin}/`);
      expect(res?.status()).toBe(200);
      expect(await page.locator('article').count()).toBe(1);
      expect(await page.locator('nav[aria-label="Documentation"] a', { hasText: 'API Docs' }).getAttribute('href')).toBe('/api/v2024-06-01');
      expect(await page.locator('footer').textContent()).toContain(String(new Date().getFullYear()));

      // The navbar's API Docs link leads to a real page, with its table of contents.
      await page.click('nav[aria-label="Documentation"] a:has-text("API Docs")');
      await page.waitForURL(`${origin}/api/v2024-06-01`);
      // Client-side navigation: the URL changes before the page's content arrives.
      await page.locator('h1', { hasText: 'API reference v2024-06-01' }).waitFor({ timeout: 10_000 });
      expect(await page.locator('h1').first().textContent()).toBe('API reference v2024-06-01');
      expect(await page.locator('article').textContent()).toContain('wrong_region');

      const missing = await page.goto(`${origin}/no-such-page-here`);
      expect(missing?.status()).toBe(404);
      expect(await page.locator('h1').first().textContent()).toBe('Page not found');

      const stripped = await fetch(`${origin}/index.html`, { redirect: 'manual' });
      expect(stripped.status).toBe(301);
      expect(new URL(stripped.headers.get('location')!, origin).pathname).toBe('/');
    } finally {
      await context.close();
    }
  });

  it('signs out with a POST that ends the session', async () => {
    const { context, page } = await newPage();
    try {
      await signIn(page);
      await page.waitForURL(`${origin}/app/`);
      const token = (await context.cookies(origin)).find((c) => c.name === 'cairn_session')?.value;
      expect(token).toBeTruthy();
      await page.click('form[action="/app/logout"] button');
      await page.waitForURL(/\/app\/login/);
      expect((await context.cookies(origin)).find((c) => c.name === 'cairn_session')).toBeUndefined();
      // The API no longer accepts the old token.
      const check = await fetch(new URL('/auth/session', api), { headers: { authorization: `Session ${decodeURIComponent(token!)}` } });
      expect(check.status).toBe(401);
      await page.goto(`${origin}/app/`);
      expect(page.url()).toContain('/app/login');
    } finally {
      await context.close();
    }
  });
});
