/**
 * The docs search and the API reference in Debian's Chromium: the modal (Ctrl+K, "/", the button),
 * realistic questions finding the right page, keyboard navigation, highlighted terms on the target
 * page, "No results found.", index files (caching, a failed fetch), insights reaching the admin
 * report, and the API reference listing every operation of the API's /openapi.json.
 *
 * Against any stack: CAIRN_STACK_FILE=… npx vitest run --config e2e/vitest.config.ts e2e/docs-search.browser.test.ts
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { getStack, type StackFile } from './harness.ts';
import { launchChromium } from './browser-kit.ts';

const DESKTOP = { width: 1440, height: 1000 };

let browser: Browser;
let origin: string;
let stack: StackFile;

beforeAll(async () => {
  stack = getStack();
  if (!stack.docs) throw new Error('The stack runs without the web app (stack.docs is null).');
  origin = new URL(stack.docs).origin;
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
});

async function open(path: string, viewport = DESKTOP): Promise<{ context: BrowserContext; page: Page; errors: string[]; requests: string[] }> {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  const errors: string[] = [];
  const requests: string[] = [];
  const trouble: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('request', (r) => requests.push(new URL(r.url()).pathname));
  page.on('requestfailed', (r) => trouble.push(`failed ${r.url()}: ${r.failure()?.errorText}`));
  page.on('response', (r) => void (r.status() >= 500 && trouble.push(`${r.status()} ${r.url()}`)));
  page.on('console', (m) => void (m.type() === 'error' && trouble.push(`console: ${m.text()}`)));
  await page.goto(`${origin}${path}`);
  const ready = () =>
    page.waitForSelector('html[data-docs-ready]', { state: 'attached', timeout: 20_000 }).then(
      () => true,
      () => false,
    );
  if (!(await ready())) {
    // Once (seen on CI, not reproduced): the page loaded but never hydrated. Say what the page saw,
    // then load it again; a second failure fails the test with the same account.
    const seen = () => `${path} did not hydrate; page errors: ${JSON.stringify(errors)}; trouble: ${JSON.stringify(trouble)}`;
    console.warn(seen());
    await page.reload();
    if (!(await ready())) throw new Error(seen());
  }
  return { context, page, errors, requests };
}

const input = (page: Page) => page.locator('[data-testid="search-input"]');

/** Types a question into the open modal and waits until the results list shows it. */
async function ask(page: Page, question: string): Promise<{ route: string; title: string }[]> {
  await input(page).fill(question);
  await page.waitForFunction((q) => {
    const list = document.querySelector('[data-testid="search-results"]');
    const status = document.querySelector('[data-testid="search-status"]');
    return list?.getAttribute('data-query') === q.trim() && status?.getAttribute('data-status') === 'idle';
  }, question);
  return page.$$eval('[data-testid="search-results"] [role="option"] a', (links) =>
    links.map((a) => ({ route: a.getAttribute('data-route') ?? '', title: a.querySelector('.search-hit__title')?.textContent ?? '' })),
  );
}

async function openModal(page: Page, how: 'ctrl-k' | 'meta-k' | 'slash' | 'click' = 'ctrl-k'): Promise<void> {
  if (how === 'ctrl-k') await page.keyboard.press('Control+KeyK');
  else if (how === 'meta-k') await page.keyboard.press('Meta+KeyK');
  else if (how === 'slash') await page.keyboard.press('Slash');
  else await page.click('[data-testid="search-button"]');
  await page.waitForSelector('[data-testid="search-modal"] [role="dialog"]');
}

describe('opening the search', () => {
  it('opens the modal with Ctrl+K, ⌘+K, "/" and the button, focused on a labelled combobox; Escape closes it', async () => {
    const { context, page, errors, requests } = await open('/');
    try {
      // Nothing of the search (modal, MiniSearch, indexes) is loaded with the page.
      expect(requests.filter((p) => p.startsWith('/search-index-') || /SearchModal|minisearch/i.test(p))).toEqual([]);
      for (const how of ['ctrl-k', 'meta-k', 'slash', 'click'] as const) {
        await openModal(page, how);
        const box = input(page);
        await expect.poll(() => box.evaluate((el) => el === document.activeElement), { timeout: 5_000 }).toBe(true);
        expect(await box.getAttribute('role')).toBe('combobox');
        expect(await box.getAttribute('placeholder')).toBe('Search...');
        expect(await box.getAttribute('maxlength')).toBe('512');
        expect(await page.locator('[data-testid="search-modal"] button[aria-label="Clear"]').count()).toBe(1);
        expect(await page.locator('[data-testid="search-modal"] button[aria-label="Submit"]').count()).toBe(1);
        expect(await page.locator('[data-testid="search-modal"] button', { hasText: 'Cancel' }).count()).toBe(1);
        await page.keyboard.press('Escape');
        await page.waitForSelector('[data-testid="search-modal"]', { state: 'detached' });
        // Focus goes back to the search button.
        expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('search-button');
      }
      // Opening loaded every tag's index, once each.
      const indexRequests = requests.filter((p) => p.startsWith('/search-index-')).sort();
      expect(indexRequests).toEqual(['/search-index-default.json', '/search-index-docs-api-v2024-06-01.json', '/search-index-docs-default-current.json']);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('keeps Tab inside the dialog and closes on Cancel', async () => {
    const { context, page } = await open('/filters/overview');
    try {
      await openModal(page);
      await input(page).fill('filter');
      for (let i = 0; i < 8; i++) {
        await page.keyboard.press('Tab');
        const where = await page.evaluate(() => `${document.activeElement?.className}: ${!!document.activeElement?.closest('[role="dialog"]')}`);
        expect(where, `after ${i + 1} Tab`).toMatch(/: true$/);
      }
      await page.locator('[data-testid="search-modal"] button', { hasText: 'Cancel' }).click();
      await page.waitForSelector('[data-testid="search-modal"]', { state: 'detached' });
    } finally {
      await context.close();
    }
  });
});

describe('finding pages', () => {
  const questions: [string, string][] = [
    ['how do I restrict an api key to one dashboard', '/administration/api-keys'],
    ['schedule weekly email', '/sharing/scheduled-emails'],
    ['date range filter', '/filters/date-range'],
    ['connect to snowflake', '/datasources/connect-to-snowflake'],
    ['two factor authentication', '/account-and-security/two-factor-authentication'],
  ];

  it('finds the right page first for realistic questions', async () => {
    const { context, page } = await open('/');
    try {
      await openModal(page);
      for (const [question, route] of questions) {
        const hits = await ask(page, question);
        expect(hits.length, question).toBeGreaterThan(0);
        expect(hits.length, question).toBeLessThanOrEqual(8);
        expect(hits[0]!.route.split('#')[0], question).toBe(route);
      }
      // Snippets and titles mark the matched words.
      await ask(page, 'schedule weekly email');
      const marked = await page.$$eval('[data-testid="search-results"] mark', (ms) => ms.map((m) => m.textContent?.toLowerCase()));
      expect(marked.some((m) => m?.startsWith('schedul'))).toBe(true);
    } finally {
      await context.close();
    }
  });

  it('says "No results found." for nonsense', async () => {
    const { context, page } = await open('/');
    try {
      await openModal(page);
      expect(await ask(page, 'qwxzvy blorptang')).toEqual([]);
      expect(await page.locator('[data-testid="search-status"]').textContent()).toBe('No results found.');
    } finally {
      await context.close();
    }
  });

  it('goes to the chosen section with the keyboard and highlights the terms in the article', async () => {
    const { context, page, errors } = await open('/');
    try {
      await openModal(page);
      const hits = await ask(page, 'schedule weekly email');
      expect(hits.length).toBeGreaterThan(1);
      // ↓ moves the active option, ↑ comes back; Enter opens the active one.
      await page.keyboard.press('ArrowDown');
      const second = await page.locator('[role="option"][aria-selected="true"] a').getAttribute('data-route');
      expect(second).toBe(hits[1]!.route);
      expect(await input(page).getAttribute('aria-activedescendant')).toBe(await page.locator('[role="option"][aria-selected="true"]').getAttribute('id'));
      await page.keyboard.press('ArrowUp');
      await page.keyboard.press('Enter');
      const [path, hash] = hits[0]!.route.split('#');
      await page.waitForURL((url) => url.pathname === path);
      const url = new URL(page.url());
      expect(url.searchParams.get('_highlight')).toBeTruthy();
      expect(url.hash).toBe(hash ? `#${hash}` : '');
      await page.waitForSelector('article.markdown mark[data-search-highlight]');
      const marks = await page.$$eval('article.markdown mark[data-search-highlight]', (ms) => ms.map((m) => m.textContent!.toLowerCase()));
      expect(marks.length).toBeGreaterThan(2);
      expect(marks.every((m) => /^(schedul|weekly|e-?mail)/.test(m))).toBe(true);
      // The section's first mark is on screen.
      const visible = await page.evaluate(() => {
        const heading = location.hash ? document.getElementById(decodeURIComponent(location.hash.slice(1))) : null;
        const marks = [...document.querySelectorAll('article.markdown mark[data-search-highlight]')];
        const m = marks.find((x) => !heading || heading.compareDocumentPosition(x) & Node.DOCUMENT_POSITION_FOLLOWING)!;
        const r = m.getBoundingClientRect();
        return r.bottom > 0 && r.top < window.innerHeight;
      });
      expect(visible).toBe(true);
      expect(await page.locator('[data-testid="search-modal"]').count()).toBe(0);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('highlights the terms of a shared link on a fresh load, too', async () => {
    const { context, page } = await open('/filters/date-range?_highlight=date+rang#kinds-of-range');
    try {
      await page.waitForSelector('article.markdown mark[data-search-highlight]');
      const marks = await page.$$eval('article.markdown mark[data-search-highlight]', (ms) => ms.map((m) => m.textContent!.toLowerCase()));
      expect(marks).toContain('range');
      expect(marks).toContain('date');
    } finally {
      await context.close();
    }
  });

  it('cuts the input at 512 characters', async () => {
    const { context, page } = await open('/');
    try {
      await openModal(page);
      await input(page).fill('a'.repeat(600));
      expect((await input(page).inputValue()).length).toBe(512);
    } finally {
      await context.close();
    }
  });

  it('searches nothing, silently, when an index cannot be fetched', async () => {
    const context = await browser.newContext({ viewport: DESKTOP });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.route('**/search-index-docs-default-current.json*', (route) => route.fulfill({ status: 500, body: 'boom' }));
    try {
      await page.goto(`${origin}/`);
      await page.waitForSelector('html[data-docs-ready]', { state: 'attached' });
      await openModal(page);
      // The user manual is gone; the API reference index still answers.
      expect(await ask(page, 'schedule weekly email')).toEqual(
        expect.not.arrayContaining([expect.objectContaining({ route: expect.stringMatching(/^\/sharing/) })]),
      );
      expect(await ask(page, 'qwxzvy')).toEqual([]);
      expect(await page.locator('[role="alert"]').count()).toBe(0);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});

describe('index files', () => {
  it('serve every tag with an ETag; the versioned URL is immutable; a matching If-None-Match gets 304', async () => {
    for (const tag of ['default', 'docs-default-current', 'docs-api-v2024-06-01']) {
      const res = await fetch(`${origin}/search-index-${tag}.json`);
      expect(res.status, tag).toBe(200);
      const etag = res.headers.get('etag')!;
      expect(etag).toMatch(/^"[0-9a-f]{16}"$/);
      const body = (await res.json()) as { documents: unknown[]; index: unknown };
      expect(Array.isArray(body.documents)).toBe(true);
      expect(typeof body.index).toBe('object');
      const versioned = await fetch(`${origin}/search-index-${tag}.json?v=${etag.slice(1, -1)}`);
      expect(versioned.headers.get('cache-control')).toContain('immutable');
      await versioned.arrayBuffer();
      const again = await fetch(`${origin}/search-index-${tag}.json`, { headers: { 'If-None-Match': etag } });
      expect(again.status).toBe(304);
    }
    expect((await fetch(`${origin}/search-index-nope.json`)).status).toBe(404);
  });
});

describe('insights', () => {
  it('reach the admin report: the searched query, the query without results and the opened page', async () => {
    const stamp = Date.now().toString(36);
    const nonsense = `zzqx${stamp}`;
    const { context, page } = await open('/');
    try {
      await openModal(page);
      await ask(page, nonsense);
      await page.waitForTimeout(500); // the view is recorded after 400 ms without typing
      await ask(page, 'date range filter');
      const sent = page.waitForResponse((r) => r.url().endsWith('/docs-insights') && r.request().method() === 'POST');
      await page.keyboard.press('Enter');
      expect((await sent).status()).toBe(204);
      // A bad batch is refused with a JSON:API error.
      const bad = await fetch(`${origin}/docs-insights`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: '{"events":[{"type":"x"}]}',
      });
      expect(bad.status).toBe(422);
      expect(((await bad.json()) as { errors: { code: string }[] }).errors[0]!.code).toBe('invalid_attribute');

      // The admin signs in and reads the report.
      await page.goto(`${origin}/app/login?next=${encodeURIComponent('/app/administration/docs-search')}`);
      await page.fill('input[name="email"]', stack.admin.email);
      await page.fill('input[name="password"]', stack.admin.password);
      await page.click('button[type="submit"]');
      await page.waitForURL(`${origin}/app/administration/docs-search`);
      // The URL changes before the new page is drawn.
      await page.waitForSelector('h1:text-is("Docs search insights")');
      expect(await page.locator('[data-testid="insights-no-results"]').textContent()).toContain(nonsense);
      expect(await page.locator('[data-testid="insights-top-queries"]').textContent()).toContain('date range filter');
      expect(await page.locator('[data-testid="insights-pages"]').textContent()).toContain('/filters/date-range');
    } finally {
      await context.close();
    }
    // Without a session the report sends to the sign-in page.
    const anonymous = await fetch(`${origin}/app/administration/docs-search`, { redirect: 'manual' });
    expect(anonymous.status).toBe(302);
  });
});

describe('API reference', () => {
  it('lists every operation of the API server /openapi.json with its permission and a curl example', async () => {
    const doc = (await (await fetch(`${stack.regions.eu.api}/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
    const expected: string[] = [];
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const method of Object.keys(item)) if (['get', 'put', 'post', 'patch', 'delete'].includes(method)) expected.push(`${method.toUpperCase()} ${path}`);
    }
    expect(expected.length).toBeGreaterThan(50);
    const { context, page, errors } = await open('/api/v2024-06-01');
    try {
      const listed = await page.$$eval('[data-operation]', (els) => els.map((e) => e.getAttribute('data-operation')!));
      expect(listed.sort()).toEqual(expected.sort());
      const curls = await page.$$eval('pre code.language-sh', (els) => els.filter((e) => e.textContent!.startsWith('curl -X')).length);
      expect(curls).toBe(expected.length);
      // The hand-written intro is still there, and the table of contents lists the groups.
      for (const id of ['servers-and-regions', 'errors', 'rate-limits', 'lists', 'dashboards', 'schemas']) {
        expect(await page.locator(`h2#${id}`).count(), id).toBe(1);
      }
      // The page is HTML: it loads no more JavaScript than the other docs pages.
      expect(await page.locator('article.markdown table').count()).toBeGreaterThan(50);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('is found by the search', async () => {
    const { context, page } = await open('/');
    try {
      await openModal(page);
      const hits = await ask(page, 'cancel an execution');
      expect(hits.map((h) => h.route)).toContain('/api/v2024-06-01#cancel-an-execution');
    } finally {
      await context.close();
    }
  });
});
