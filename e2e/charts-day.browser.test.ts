/**
 * Charts in Debian's Chromium (issue 15): a series value keeps its colour in every chart of a dashboard
 * whatever subset a chart shows; tooltips name the columns; treemap labels stay inside their cells;
 * a single report's PNG export is laid out at the export size (the chart reaches the bottom of the
 * 800 × 600 picture instead of stopping at a 320 px phone tile).
 */
import { existsSync } from 'node:fs';
import { inflateSync } from 'node:zlib';
import postgres from 'postgres';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, signInAt } from './browser-kit.ts';
import { apiFetch, getStack } from './harness.ts';

const STAMP = Date.now().toString(36);
const ALL =
  "SELECT * FROM (VALUES ('Q1','France',10),('Q1','Germany',14),('Q1','Spain',6),('Q1','Italy',9),('Q2','France',12),('Q2','Germany',11),('Q2','Spain',8),('Q2','Italy',7)) t(quarter, country, revenue)";
const SOME = "SELECT * FROM (VALUES ('Spain', 8), ('France', 12)) t(country, revenue)";
const TREE =
  "SELECT * FROM (VALUES ('Electronics and home appliances','Televisions and projectors',900),('Electronics and home appliances','Tiny accessory with a very long name',3),('Garden furniture and outdoor living','Parasols',400),('Books','Atlas of the world in twelve volumes',2)) t(category, product, revenue)";

let browser: Browser;
let page: Page;
let origin: string;
let sql: postgres.Sql;
let dashboardId: string;
const ids: Record<string, string> = {};

async function report(name: string, query: string, chart: object, width = 6, height = 5): Promise<string> {
  const ds = await apiFetch<{ data: { id: string; attributes: { name: string } }[] }>('/datasources');
  const sample = ds.body.data.find((d) => d.attributes.name === 'Sample data') ?? ds.body.data[0]!;
  const r = await apiFetch<{ data: { id: string } }>('/reports', {
    body: {
      data: {
        type: 'reports',
        attributes: { name: `${name} ${STAMP}`, sql_query: query, width, height },
        relationships: { dashboard: { data: { type: 'dashboards', id: dashboardId } }, datasource: { data: { type: 'datasources', id: sample.id } } },
      },
    },
  });
  expect(r.status, r.text).toBe(201);
  await sql`update reports set chart_configuration = ${sql.json(chart as never)} where id = ${r.body.data.id}`;
  return r.body.data.id;
}

/** The legend symbol colour of each series label in one tile. */
function legendColours(p: Page, reportId: string): Promise<Record<string, string>> {
  return p.$eval(`[data-testid="chart-${reportId}"]`, (tile) => {
    const out: Record<string, string> = {};
    for (const text of tile.querySelectorAll('svg text')) {
      const g = text.parentElement;
      const symbol = [...(g?.querySelectorAll('rect[fill], circle[fill], path[fill]') ?? [])].find(
        (e) => !['transparent', 'none'].includes(e.getAttribute('fill')!),
      );
      const label = text.textContent?.trim();
      if (label && symbol && g!.querySelectorAll('text').length === 1) out[label] = symbol.getAttribute('fill')!;
    }
    return out;
  });
}

/** A PNG's size and a pixel reader (8-bit RGB or RGBA, as Chromium writes them). */
function decodePng(bytes: Uint8Array) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const width = view.getUint32(16),
    height = view.getUint32(20),
    type = bytes[25]!;
  const bpp = type === 6 ? 4 : 3;
  const idat: Uint8Array[] = [];
  for (let at = 8; at < bytes.length; ) {
    const len = view.getUint32(at);
    const kind = String.fromCharCode(...bytes.slice(at + 4, at + 8));
    if (kind === 'IDAT') idat.push(bytes.slice(at + 8, at + 8 + len));
    at += 12 + len;
  }
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * bpp;
  const px = new Uint8Array(height * stride);
  for (let y = 0; y < height; y++) {
    const f = raw[y * (stride + 1)]!;
    for (let x = 0; x < stride; x++) {
      const v = raw[y * (stride + 1) + 1 + x]!;
      const a = x >= bpp ? px[y * stride + x - bpp]! : 0;
      const b = y > 0 ? px[(y - 1) * stride + x]! : 0;
      const c = x >= bpp && y > 0 ? px[(y - 1) * stride + x - bpp]! : 0;
      const p = a + b - c,
        pa = Math.abs(p - a),
        pb = Math.abs(p - b),
        pc = Math.abs(p - c);
      const pred = f === 0 ? 0 : f === 1 ? a : f === 2 ? b : f === 3 ? (a + b) >> 1 : pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      px[y * stride + x] = (v + pred) & 0xff;
    }
  }
  return { width, height, at: (x: number, y: number) => [...px.slice(y * stride + x * bpp, y * stride + x * bpp + 3)] as [number, number, number] };
}

beforeAll(async () => {
  const stack = getStack();
  if (!stack.app) throw new Error('The stack runs without the web app (stack.app is null).');
  origin = new URL(stack.app).origin;
  sql = postgres(stack.database_url, { max: 1, onnotice: () => {} });
  const made = await apiFetch<{ data: { id: string } }>('/dashboards', { body: { data: { type: 'dashboards', attributes: { name: `Charts day ${STAMP}` } } } });
  expect(made.status).toBe(201);
  dashboardId = made.body.data.id;
  ids.bars = await report('Revenue by quarter', ALL, { type: 'bar', x: 'quarter', series: 'country', y: ['revenue'], legend: 'right' });
  ids.pie = await report('Two countries', SOME, { type: 'pie', label: 'country', value: 'revenue', legend: 'right' });
  ids.tree = await report('Catalogue', TREE, { type: 'hierarchy', layout: 'treemap', levels: ['category', 'product'], value: 'revenue' }, 4, 4);
  browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 1440, height: 1000 } });
  page = await context.newPage();
  await signInAt(page, origin, stack.admin.email, stack.admin.password);
  await page.goto(`${origin}/app/dashboards/${dashboardId}`);
  await page.waitForFunction(
    () => [...document.querySelectorAll<HTMLElement>('[data-testid^="chart-"]')].filter((t) => t.dataset.drawn === 'true').length === 3,
    undefined,
    { timeout: 30_000 },
  );
}, 90_000);

afterAll(async () => {
  if (dashboardId) await apiFetch(`/dashboards/${dashboardId}`, { method: 'DELETE' }).catch(() => undefined);
  await sql?.end({ timeout: 5 });
  await browser?.close();
});

describe('charts', () => {
  it('a series value has the same colour in every chart of the dashboard, whatever subset the chart shows', async () => {
    const bars = await legendColours(page, ids.bars!);
    const pie = await legendColours(page, ids.pie!);
    expect(Object.keys(bars).sort()).toEqual(['France', 'Germany', 'Italy', 'Spain']);
    expect(new Set(Object.values(bars)).size).toBe(4);
    expect(pie.France).toBe(bars.France);
    expect(pie.Spain).toBe(bars.Spain);
  });

  it('tooltips name the columns of their values', async () => {
    // A bar: a rectangle taller than the legend's symbols and narrower than the plot.
    const at = await page.$eval(`[data-testid="chart-${ids.bars}"]`, (tile) => {
      const box = [...tile.querySelectorAll('svg rect')].map((r) => r.getBoundingClientRect()).find((b) => b.height > 40 && b.width > 8 && b.width < 80)!;
      return { x: box.left + box.width / 2, y: box.top + box.height / 2 };
    });
    await page.mouse.move(at.x, at.y - 3);
    await page.mouse.move(at.x, at.y);
    const tip = page.locator('[data-testid="chart-tooltip"]');
    await tip.waitFor({ timeout: 5_000 });
    const text = (await tip.textContent()) ?? '';
    expect(text).toMatch(/Quarter:\s*Q[12]/);
    expect(text).toMatch(/Country:\s*\w+/);
    expect(text).toMatch(/Revenue:\s*\d+/);
  });

  it('treemap labels stay inside their cells', async () => {
    const problems = await page.$eval(`[data-testid="chart-${ids.tree}"]`, (tile) => {
      const out: string[] = [];
      for (const label of tile.querySelectorAll<SVGTextElement>('text[data-testid^="label."], text[data-testid^="parentLabel."]')) {
        const text = label.textContent ?? '';
        if (!text) continue;
        const id = label.getAttribute('data-testid')!.replace(/^(parentLabel|label)\./, '');
        const cell = tile.querySelector(`rect[data-testid="node.${CSS.escape(id)}"]`)!.getBoundingClientRect();
        const box = label.getBoundingClientRect();
        if (box.left < cell.left - 0.5 || box.right > cell.right + 0.5 || box.top < cell.top - 0.5 || box.bottom > cell.bottom + 0.5)
          out.push(`${text} (${Math.round(box.width)}×${Math.round(box.height)} in ${Math.round(cell.width)}×${Math.round(cell.height)})`);
      }
      return out;
    });
    expect(problems).toEqual([]);
    // The long names were shortened, not dropped entirely.
    const labels = await page.$$eval(`[data-testid="chart-${ids.tree}"] text`, (ts) => ts.map((t) => t.textContent ?? ''));
    expect(labels.some((l) => l.endsWith('…'))).toBe(true);
  });
});

describe.skipIf(!existsSync('/usr/bin/chromium'))('PNG export of a report', () => {
  it('lays the chart out at the export size: it reaches the bottom of the 800 × 600 picture', async () => {
    const job = await apiFetch(`/reports/${ids.bars}/export_png`, { body: {}, headers: { 'content-type': 'application/json' } });
    expect(job.status, job.text).toBe(202);
    let file_url: string | undefined;
    for (const until = Date.now() + 60_000; Date.now() < until; ) {
      const res = await apiFetch(`/export_jobs/${job.body.job_id}`);
      const a = res.body.data.attributes;
      if (a.job_status === 'error') throw new Error(a.error_message);
      if (a.job_status === 'success') {
        file_url = a.file_url;
        break;
      }
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(file_url).toBeDefined();
    const png = decodePng(new Uint8Array(await (await fetch(file_url!)).arrayBuffer()));
    expect([png.width, png.height]).toEqual([800, 600]);
    // Coloured (bar) pixels in the bottom quarter: the chart fills the picture's height.
    let coloured = 0;
    for (let y = 450; y < 590; y += 2)
      for (let x = 0; x < 800; x += 2) {
        const [r, g, b] = png.at(x, y);
        if (Math.max(r, g, b) - Math.min(r, g, b) > 60) coloured++;
      }
    expect(coloured).toBeGreaterThan(500);
  });
});
