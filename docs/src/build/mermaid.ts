/**
 * Mermaid diagrams become inline SVG at build time, so no docs page ships mermaid's JavaScript.
 *
 * The remark plugin marks each ```mermaid fence as `<pre class="mermaid" data-mermaid="KEY">source</pre>`
 * where KEY hashes the source together with the renderer settings. After all pages compiled, every
 * KEY is looked up in the cache folder (`docs/mermaid-cache/KEY.svg`, kept in the repository); missing
 * ones are drawn in one headless Chromium session (playwright-core + the machine's chromium, mermaid's
 * UMD bundle) and written to the cache. A build without Chromium still works: cached diagrams are
 * used, uncached ones stay as `<pre class="mermaid">` (with a warning) and the web app draws those in
 * the browser with a lazily loaded mermaid, only on pages that need it.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const require = createRequire(import.meta.url);

/** Bump when the way diagrams are drawn changes (theme, fonts, post-processing): old cache files are ignored. */
export const RENDER_SETTINGS = {
  revision: 1,
  theme: 'neutral',
  // Metric-compatible fonts exist on every platform (Liberation Sans stands in for Arial on Linux),
  // so labels measured at build time fit their boxes in any browser.
  fontFamily: 'arial, "Liberation Sans", helvetica, sans-serif',
  // SVG <text> labels instead of HTML in <foreignObject>: smaller and drawn the same everywhere.
  htmlLabels: false,
} as const;

export const DEFAULT_CHROMIUM = '/usr/bin/chromium';

let mermaidVersion: string | undefined;
function versionOfMermaid(): string {
  mermaidVersion ??= (require('mermaid/package.json') as { version: string }).version;
  return mermaidVersion;
}

/** The cache key of a diagram: its source (trimmed) with the renderer's version and settings. */
export function mermaidKey(source: string): string {
  return createHash('sha256')
    .update(JSON.stringify({ mermaid: versionOfMermaid(), settings: RENDER_SETTINGS, source: source.trim() }))
    .digest('hex')
    .slice(0, 20);
}

export interface MermaidOptions {
  /** Folder of KEY.svg files; default docs/mermaid-cache. */
  cacheDir: string;
  /** Draw uncached diagrams with Chromium (default true); false only reads the cache. */
  render?: boolean;
  /** Chromium executable; default /usr/bin/chromium. */
  chromium?: string;
  /** Delete cache files no page uses any more (the CLI build does; tests and partial builds do not). */
  prune?: boolean;
}

export interface MermaidOutcome {
  /** KEY → finished SVG markup (already made accessible). */
  svgs: Map<string, string>;
  /** KEY → mermaid's error for a diagram that does not parse. */
  errors: Map<string, string>;
  /** Why uncached diagrams could not be drawn (no Chromium, …), or null. */
  unavailable: string | null;
  /** How many diagrams were drawn now (the rest came from the cache). */
  rendered: number;
}

/** Finds or draws the SVG for every `KEY → source`. Never throws for a missing browser. */
export async function renderMermaid(sources: Map<string, string>, options: MermaidOptions): Promise<MermaidOutcome> {
  const svgs = new Map<string, string>();
  const errors = new Map<string, string>();
  const missing = new Map<string, string>();
  for (const [key, source] of sources) {
    const file = join(options.cacheDir, `${key}.svg`);
    if (existsSync(file)) svgs.set(key, await readFile(file, 'utf8'));
    else missing.set(key, source);
  }
  if (options.prune) await pruneCache(options.cacheDir, new Set(sources.keys()));
  if (missing.size === 0) return { svgs, errors, unavailable: null, rendered: 0 };
  if (options.render === false) return { svgs, errors, unavailable: 'rendering is turned off', rendered: 0 };
  const chromium = options.chromium ?? process.env.CAIRN_CHROMIUM ?? DEFAULT_CHROMIUM;
  if (!existsSync(chromium)) return { svgs, errors, unavailable: `${chromium} is missing`, rendered: 0 };

  let drawn: Map<string, { svg?: string; error?: string }>;
  try {
    drawn = await drawInChromium(missing, chromium);
  } catch (err) {
    return { svgs, errors, unavailable: `Chromium failed: ${(err as Error).message.split('\n')[0]}`, rendered: 0 };
  }
  await mkdir(options.cacheDir, { recursive: true });
  let rendered = 0;
  for (const [key, result] of drawn) {
    if (result.error !== undefined || !result.svg) {
      errors.set(key, result.error ?? 'mermaid produced no SVG');
      continue;
    }
    const svg = finishSvg(result.svg, key, missing.get(key)!);
    const file = join(options.cacheDir, `${key}.svg`);
    const tmp = `${file}.tmp-${process.pid}`;
    await writeFile(tmp, svg);
    await rename(tmp, file);
    svgs.set(key, svg);
    rendered += 1;
  }
  return { svgs, errors, unavailable: null, rendered };
}

async function pruneCache(cacheDir: string, keep: Set<string>): Promise<void> {
  let names: string[];
  try {
    names = await readdir(cacheDir);
  } catch {
    return;
  }
  for (const name of names) {
    const m = /^([0-9a-f]+)\.svg$/.exec(name);
    if (m && !keep.has(m[1]!)) await rm(join(cacheDir, name), { force: true });
  }
}

async function drawInChromium(sources: Map<string, string>, executablePath: string) {
  const { chromium } = require('playwright-core') as typeof import('playwright-core');
  const browser = await chromium.launch({
    executablePath,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
  });
  try {
    const page = await browser.newPage();
    await page.setContent('<!doctype html><html><head><meta charset="utf-8"></head><body></body></html>');
    await page.addScriptTag({ path: require.resolve('mermaid/dist/mermaid.min.js') });
    const items = [...sources].map(([key, source]) => ({ key, source }));
    const results = await page.evaluate(
      async ({ items, settings }) => {
        const m = (window as unknown as { mermaid: MermaidApi }).mermaid;
        m.initialize({
          startOnLoad: false,
          theme: settings.theme,
          securityLevel: 'strict',
          fontFamily: settings.fontFamily,
          htmlLabels: settings.htmlLabels,
          flowchart: { htmlLabels: settings.htmlLabels },
        });
        const out: { key: string; svg?: string; error?: string }[] = [];
        for (const { key, source } of items) {
          try {
            const { svg } = await m.render(`mermaid-${key}`, source);
            out.push({ key, svg });
          } catch (err) {
            out.push({ key, error: String((err as Error)?.message ?? err) });
          }
        }
        return out;
      },
      { items, settings: RENDER_SETTINGS },
    );
    return new Map(results.map((r) => [r.key, r]));
  } finally {
    await browser.close();
  }
}

interface MermaidApi {
  initialize(config: Record<string, unknown>): void;
  render(id: string, text: string): Promise<{ svg: string }>;
}

const DIAGRAM_NAMES: Record<string, string> = {
  graph: 'Flowchart',
  flowchart: 'Flowchart',
  sequenceDiagram: 'Sequence diagram',
  stateDiagram: 'State diagram',
  'stateDiagram-v2': 'State diagram',
  classDiagram: 'Class diagram',
  erDiagram: 'Entity relationship diagram',
  gantt: 'Gantt chart',
  pie: 'Pie chart',
  journey: 'User journey',
  mindmap: 'Mind map',
  timeline: 'Timeline',
};

/** A name for the diagram: its `accTitle`, else its kind ("Sequence diagram"). */
export function diagramLabel(source: string): string {
  const title = /^\s*accTitle\s*:\s*(.+)$/m.exec(source)?.[1]?.trim();
  if (title) return title;
  const first = source.split('\n').map((l) => l.trim()).find((l) => l && !l.startsWith('%%')) ?? '';
  const kind = first.split(/\s+/)[0] ?? '';
  return DIAGRAM_NAMES[kind] ?? 'Diagram';
}

/**
 * Mermaid's root <svg> carries `role="graphics-document document"`; a picture with a name is what
 * screen readers (and Lighthouse) expect of an inline diagram.
 */
export function finishSvg(svg: string, key: string, source: string): string {
  const label = diagramLabel(source).replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
  return svg.replace(/<svg\b([^>]*)>/, (_m, attrs: string) => {
    let a = attrs.replace(/\srole="[^"]*"/, '').replace(/\saria-roledescription="[^"]*"/, '');
    if (!/\saria-labelledby=/.test(a)) a += ` aria-label="${label}"`;
    return `<svg${a} role="img" data-mermaid-svg="${key}">`;
  });
}

/**
 * Replaces each marked `<pre class="mermaid" data-mermaid="KEY">…</pre>` with its SVG in a figure.
 * Diagrams without an SVG stay as they are (the browser draws them). A diagram used twice on one page
 * gets its internal ids suffixed so they stay unique.
 */
export function inlineDiagrams(html: string, svgs: Map<string, string>): string {
  const seen = new Map<string, number>();
  return html.replace(/<pre class="mermaid" data-mermaid="([0-9a-f]+)">[\s\S]*?<\/pre>/g, (whole, key: string) => {
    const svg = svgs.get(key);
    if (!svg) return whole;
    const n = seen.get(key) ?? 0;
    seen.set(key, n + 1);
    const unique = n === 0 ? svg : svg.split(`mermaid-${key}`).join(`mermaid-${key}-${n}`);
    return `<figure class="mermaid-diagram">${unique}</figure>`;
  });
}
