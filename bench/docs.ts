/**
 * `npm run bench:docs`: the documentation site's speed against issue 5's targets, in Debian's Chromium.
 *
 *   npm run bench:docs [-- --stack .cairn/dev.json] [--runs 3] [--no-lighthouse] [--no-write]
 *
 * - JavaScript per docs page: every script a fresh visit loads (the home page and the longest user
 *   manual page), gzipped (level 9), in KB.
 * - Search index: every tag's `/search-index-{tag}.json` as served, gzipped, in KB.
 * - Keystroke → results drawn: in the open search modal, realistic questions typed one character at a
 *   time; for each keystroke, the time from the input event until the results list shows that query
 *   with its layout computed (a forced reflow). Median and p90 in ms.
 * - Lighthouse 12 (mobile form factor, its default simulated throttling): performance and
 *   accessibility scores of the same two pages (median of --runs), and of the API reference.
 *
 * Without --stack it starts its own stack (with the web app, a throwaway state dir and database) and
 * stops it at the end. Results replace the docs block of bench/README.md (unless --no-write).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import type { Browser } from 'playwright-core';
import { errorMessage, fail, say } from '../scripts/lib/log.ts';
import { REPO_ROOT } from '../scripts/lib/paths.ts';
import type { StackFile } from '../scripts/lib/stack.ts';
import { machineLine, utcNow, withBenchStack, writeReadmeBlock } from './lib.ts';
import { CHROMIUM_FLAGS } from '../scripts/lib/renderer.ts';
import { CHROMIUM, lighthouseMedian, median, type LighthouseScores } from './lighthouse.ts';

const require = createRequire(import.meta.url);
const { chromium } = require('playwright-core') as typeof import('playwright-core');

const START = '<!-- bench:docs:start -->';
const END = '<!-- bench:docs:end -->';

export const TARGETS = { jsKb: 120, indexKb: 262, keystrokeMs: 8, performance: 97, accessibility: 100 } as const;

/** Questions typed one character at a time in the keystroke measurement. */
const QUESTIONS = [
  'how do I restrict an api key to one dashboard',
  'schedule weekly email',
  'date range filter',
  'connect to snowflake through an ssh tunnel',
  'rate limits',
  'create a dashboard schedule',
];

const kb = (bytes: number) => Math.round((bytes / 1024) * 10) / 10;
const gz = (b: Buffer | string) => gzipSync(b, { level: 9 }).length;

function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(s.length * p))]!;
}

// ---- pages ----

interface Manifest {
  routes: { route: string; title: string; file: string }[];
}

/** The user-manual page with the most table-of-contents entries (the API reference is measured on its own). */
export function longestManualPage(): string {
  const manifest = JSON.parse(readFileSync(join(REPO_ROOT, 'docs/.generated/manifest.json'), 'utf8')) as Manifest;
  let best = { route: '/', size: -1 };
  for (const r of manifest.routes) {
    if (r.route.startsWith('/api')) continue;
    const page = JSON.parse(readFileSync(join(REPO_ROOT, 'docs/.generated/pages', r.file), 'utf8')) as { html: string };
    if (page.html.length > best.size) best = { route: r.route, size: page.html.length };
  }
  return best.route;
}

/** Gzipped bytes of every script a fresh visit loads. */
async function scriptBytes(browser: Browser, url: string): Promise<number> {
  const context = await browser.newContext({ viewport: { width: 1440, height: 1000 } });
  const page = await context.newPage();
  const bodies: Promise<number>[] = [];
  page.on('response', (r) => {
    if (r.request().resourceType() === 'script') bodies.push(r.body().then(gz, () => 0));
  });
  await page.goto(url, { waitUntil: 'networkidle' });
  const total = (await Promise.all(bodies)).reduce((a, b) => a + b, 0);
  await context.close();
  return total;
}

async function indexBytes(origin: string): Promise<{ tag: string; raw: number; gzip: number }[]> {
  const { SEARCH_TAGS } = await import('../docs/src/search-tags.ts');
  const out = [];
  for (const tag of SEARCH_TAGS) {
    const res = await fetch(`${origin}/search-index-${tag}.json`);
    if (!res.ok) throw new Error(`/search-index-${tag}.json answered ${res.status}`);
    const body = Buffer.from(await res.arrayBuffer());
    out.push({ tag, raw: body.length, gzip: gz(body) });
  }
  return out;
}

/** Runs in the page: types each question twice (the first round warms up), timing the second. */
const IN_PAGE_KEYSTROKES = `async function (questions) {
  var input = document.querySelector('[data-testid="search-input"]');
  var list = document.querySelector('[data-testid="search-results"]');
  var setValue = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value').set;
  function frame() { return new Promise(function (r) { requestAnimationFrame(function () { setTimeout(r, 0); }); }); }
  function drawn(query) {
    return new Promise(function (resolve) {
      function done() { return list.getAttribute('data-query') === query.trim(); }
      if (done()) return resolve();
      var obs = new MutationObserver(function () { if (done()) { obs.disconnect(); resolve(); } });
      obs.observe(list, { attributes: true, childList: true, subtree: true });
    });
  }
  var out = [];
  for (var round = 0; round < 2; round++) {
    for (var k = 0; k < questions.length; k++) {
      var q = questions[k];
      setValue.call(input, '');
      input.dispatchEvent(new Event('input', { bubbles: true }));
      await frame();
      for (var i = 1; i <= q.length; i++) {
        var value = q.slice(0, i);
        var t0 = performance.now();
        setValue.call(input, value);
        input.dispatchEvent(new Event('input', { bubbles: true }));
        await drawn(value);
        void list.getBoundingClientRect().height;
        var t = performance.now() - t0;
        if (round === 1) out.push(t);
        await frame();
      }
    }
  }
  return out;
}`;

/** Per keystroke: input event → results list showing the query, layout done. */
async function keystrokeTimes(browser: Browser, origin: string): Promise<number[]> {
  const context = await browser.newContext({ viewport: { width: 1440, height: 1000 } });
  const page = await context.newPage();
  await page.goto(`${origin}/`);
  await page.waitForSelector('html[data-docs-ready]', { state: 'attached' });
  await page.keyboard.press('Control+KeyK');
  await page.waitForSelector('[data-testid="search-input"]');
  // Wait for the indexes (the status line leaves "loading").
  await page.fill('[data-testid="search-input"]', 'warm up');
  await page.waitForFunction(() => document.querySelector('[data-testid="search-status"]')?.getAttribute('data-status') === 'idle');
  // A string, not a function: the TypeScript loader would add helpers the page does not have.
  const times = (await page.evaluate(`(${IN_PAGE_KEYSTROKES})(${JSON.stringify(QUESTIONS)})`)) as number[];
  await context.close();
  return times;
}

// ---- report ----

interface Results {
  pages: { label: string; route: string; jsKb: number; lighthouse?: LighthouseScores }[];
  index: { tag: string; raw: number; gzip: number }[];
  keystroke: { median: number; p90: number; n: number };
  runs: number;
}

const mark = (ok: boolean) => (ok ? 'met' : '**missed**');

export function tableOf(r: Results, meta: { date: string; machine: string }): string {
  const indexGz = r.index.reduce((a, b) => a + b.gzip, 0);
  const lines = [
    `Run ${meta.date} on ${meta.machine}; Chromium ${CHROMIUM}; Lighthouse 12, mobile, median of ${r.runs} run(s).`,
    '',
    '| measure | value | target | |',
    '|---|---:|---:|---|',
  ];
  for (const p of r.pages.filter((p) => p.label !== 'API reference')) {
    lines.push(`| JS per page, gzipped: ${p.label} (\`${p.route}\`) | ${p.jsKb} KB | ≤ ${TARGETS.jsKb} KB | ${mark(p.jsKb <= TARGETS.jsKb)} |`);
  }
  lines.push(`| search index, all ${r.index.length} tags, gzipped | ${kb(indexGz)} KB | < ${TARGETS.indexKb} KB | ${mark(kb(indexGz) < TARGETS.indexKb)} |`);
  lines.push(
    `| keystroke → results drawn, median (p90) of ${r.keystroke.n} | ${r.keystroke.median.toFixed(1)} ms (${r.keystroke.p90.toFixed(1)}) | ≤ ${TARGETS.keystrokeMs} ms | ${mark(r.keystroke.median <= TARGETS.keystrokeMs)} |`,
  );
  for (const p of r.pages) {
    if (!p.lighthouse) continue;
    const api = p.label === 'API reference';
    lines.push(
      `| Lighthouse performance: ${p.label} | ${p.lighthouse.performance} | ≥ ${TARGETS.performance}${api ? ' (not a target)' : ''} | ${api ? '' : mark(p.lighthouse.performance >= TARGETS.performance)} |`,
      `| Lighthouse accessibility: ${p.label} | ${p.lighthouse.accessibility} | ${TARGETS.accessibility}${api ? ' (not a target)' : ''} | ${api ? '' : mark(p.lighthouse.accessibility >= TARGETS.accessibility)} |`,
    );
  }
  lines.push('', 'Index files (as served): ' + r.index.map((i) => `\`${i.tag}\` ${kb(i.raw)} KB raw / ${kb(i.gzip)} KB gzipped`).join(', ') + '.');
  const failed = [...new Set(r.pages.flatMap((p) => p.lighthouse?.failedAudits ?? []))];
  if (failed.length) lines.push('', `Failed Lighthouse audits: ${failed.map((a) => `\`${a}\``).join(', ')}.`);
  return lines.join('\n');
}

async function measure(stack: StackFile, opts: { runs: number; lighthouse: boolean }): Promise<Results> {
  const origin = new URL(stack.docs!).origin;
  const long = longestManualPage();
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS });
  try {
    const pages: Results['pages'] = [];
    for (const [label, route] of [
      ['home', '/'],
      ['long page', long],
      ['API reference', '/api/v2024-06-01'],
    ] as const) {
      say(`scripts of ${route}…`);
      pages.push({ label, route, jsKb: kb(await scriptBytes(browser, `${origin}${route}`)) });
    }
    say('search index files…');
    const index = await indexBytes(origin);
    say('keystrokes…');
    const times = await keystrokeTimes(browser, origin);
    const keystroke = { median: median(times), p90: percentile(times, 0.9), n: times.length };
    if (opts.lighthouse) {
      for (const p of pages) {
        say(`Lighthouse (mobile) on ${p.route}, ${opts.runs} run(s)…`);
        p.lighthouse = await lighthouseMedian(`${origin}${p.route}`, opts.runs);
      }
    }
    return { pages, index, keystroke, runs: opts.runs };
  } finally {
    await browser.close();
  }
}

async function main(): Promise<number> {
  let opts: { stack?: string; runs: number; lighthouse: boolean; write: boolean };
  try {
    const { values } = parseArgs({
      options: {
        stack: { type: 'string' },
        runs: { type: 'string', default: '3' },
        'no-lighthouse': { type: 'boolean', default: false },
        'no-write': { type: 'boolean', default: false },
      },
      strict: true,
    });
    const runs = Number(values.runs);
    if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs must be a positive integer, got ${JSON.stringify(values.runs)}`);
    opts = { stack: values.stack, runs, lighthouse: !values['no-lighthouse'], write: !values['no-write'] };
  } catch (err) {
    fail(errorMessage(err));
    return 2;
  }

  const run = async (stack: StackFile): Promise<number> => {
    if (!stack.docs) throw new Error('the stack runs without the web app (docs is null)');
    const results = await measure(stack, opts);
    // Lighthouse simulates a slow phone from the CPU time it observes: a busy machine lowers its scores.
    const table = tableOf(results, { date: utcNow(), machine: machineLine({ load: true }) });
    console.log(`\n${table}\n`);
    if (opts.write) {
      writeReadmeBlock(START, END, table, 'Docs site: latest results');
      say('results written to bench/README.md');
    }
    return 0;
  };
  if (!opts.stack) return withBenchStack('bench-docs', { app: true, quiet: true }, ({ info }) => run(info));
  try {
    return await run(JSON.parse(readFileSync(opts.stack, 'utf8')) as StackFile);
  } catch (err) {
    fail(errorMessage(err));
    return 1;
  }
}

if (process.argv[1]?.endsWith('docs.ts')) {
  process.exitCode = await main();
  process.exit(process.exitCode);
}
