/**
 * The docs build: `npm run build -w @cairn/docs`.
 *
 * Every page under docs/pages is compiled once with mdx-bundler and rendered to static HTML here in
 * Node, because the web app's worker (workerd) may not evaluate code. Output in docs/.generated/:
 * - pages/<file>.json   one GeneratedPage per route (HTML, TOC, title, tags)
 * - manifest.json       routes and sidebar
 * - search/search-index-{tag}.json     MiniSearch index per tag (build/search-index.ts), one document per section
 * - search/tags.json                   each tag's content hash and size (ETag, cache busting)
 * A page holding the line `{/* openapi:operations *\/}` gets the API's operations there (build/openapi.ts).
 * Mermaid diagrams are drawn to inline SVG (cached in docs/mermaid-cache, see build/mermaid.ts).
 * A link to a docs route that does not exist fails the build, and so does a diagram that does not
 * parse; broken anchors, broken markdown links (to page files) and duplicate routes warn.
 */
import { mkdir, readFile, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { fileForRoute, routeForPageFile } from './paths.ts';
import { compilePage, type CompiledPage } from './build/compile.ts';
import { checkLinks, DEFAULT_NON_DOC_PREFIXES } from './build/links.ts';
import { inlineDiagrams, renderMermaid, type MermaidOptions } from './build/mermaid.ts';
import { expandOpenApiMarker, hasOpenApiMarker, loadApiDocument, type OpenApiDocument } from './build/openapi.ts';
import { buildTaggedSearchIndexes } from './build/search-index.ts';
import { buildSidebar, readCategory, type CategoryInfo } from './build/sidebar.ts';
import type { DocsManifest, GeneratedPage } from './types.ts';

const DOCS_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

export interface BuildOptions {
  /** Folder of .mdx/.md pages; default docs/pages. */
  pagesDir?: string;
  /** Output folder, replaced as a whole on success; default docs/.generated. */
  outDir?: string;
  /** Absolute paths served by the web app rather than docs pages (links there are not checked). */
  nonDocPrefixes?: string[];
  /** Pages compiled at the same time. */
  concurrency?: number;
  /** Diagram cache and drawing; default: cache docs/mermaid-cache, draw with /usr/bin/chromium. */
  mermaid?: Partial<MermaidOptions>;
  /** The OpenAPI document for pages with the operations marker; default: built from worker-api's app. */
  openapi?: () => Promise<OpenApiDocument>;
}

export interface BuildResult {
  outDir: string;
  routes: string[];
  warnings: string[];
  /** Mermaid diagrams: drawn now, taken from the cache, left for the browser. */
  diagrams: { rendered: number; cached: number; browser: number };
  ms: number;
}

/** The build failed; `problems` lists each one (file, line and what is wrong). */
export class DocsBuildError extends Error {
  constructor(readonly problems: string[]) {
    super(`Docs build failed with ${problems.length} problem(s):\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'DocsBuildError';
  }
}

interface SourcePage {
  file: string; // relative to pagesDir, forward slashes
  route: string;
  folder: string | null;
}

export async function buildDocs(options: BuildOptions = {}): Promise<BuildResult> {
  const started = performance.now();
  const pagesDir = resolve(options.pagesDir ?? join(DOCS_ROOT, 'pages'));
  const outDir = resolve(options.outDir ?? join(DOCS_ROOT, '.generated'));
  const warnings: string[] = [];
  const problems: string[] = [];

  const files = await listPageFiles(pagesDir);
  if (files.length === 0) throw new DocsBuildError([`no .mdx or .md pages found in ${pagesDir}`]);

  const sources: SourcePage[] = [];
  const seen = new Map<string, string>();
  for (const file of files) {
    const route = routeForPageFile(file);
    const first = seen.get(route);
    if (first) {
      warnings.push(`duplicate route ${route}: ${file} is ignored, ${first} already uses it`);
      continue;
    }
    seen.set(route, file);
    sources.push({ file, route, folder: file.includes('/') ? file.slice(0, file.indexOf('/')) : null });
  }

  const categories = new Map<string, CategoryInfo>();
  for (const folder of new Set(sources.map((s) => s.folder).filter((f): f is string => f !== null))) {
    try {
      categories.set(folder, readCategory(pagesDir, folder));
    } catch (err) {
      problems.push((err as Error).message);
      categories.set(folder, { label: folder, position: Number.POSITIVE_INFINITY });
    }
  }

  const compiled = new Map<string, CompiledPage>();
  // Built once, on the first page that asks for it.
  let apiDocument: Promise<OpenApiDocument> | undefined;
  const openapi = () =>
    (apiDocument ??= (options.openapi ?? loadApiDocument)().catch((err: unknown) => {
      throw new Error(`cannot build the API's OpenAPI document: ${(err as Error).message}`);
    }));
  await forEachLimited(sources, options.concurrency ?? 4, async (page) => {
    try {
      const absolute = join(pagesDir, page.file);
      let source = await readFile(absolute, 'utf8');
      if (hasOpenApiMarker(source)) source = expandOpenApiMarker(source, await openapi());
      compiled.set(page.route, await compilePage(source, absolute, page.file));
    } catch (err) {
      problems.push(`${page.file}: ${oneLine((err as Error).message)}`);
    }
  });
  problems.sort(); // pages compile concurrently; report in file order
  const drafts = sources.filter((s) => compiled.get(s.route)?.frontmatter.draft).map((s) => docIdOf(s.route));
  const ok = sources.filter((s) => compiled.has(s.route) && !compiled.get(s.route)!.frontmatter.draft);

  const links = checkLinks(
    ok.map((s) => ({ file: s.file, route: s.route, links: compiled.get(s.route)!.facts.links, headingIds: compiled.get(s.route)!.facts.headingIds })),
    options.nonDocPrefixes ?? DEFAULT_NON_DOC_PREFIXES,
  );
  problems.push(...links.errors);
  warnings.push(...links.warnings);
  if (problems.length > 0) throw new DocsBuildError(problems);

  const diagrams = await drawDiagrams(
    ok.map((s) => ({ file: s.file, page: compiled.get(s.route)! })),
    options.mermaid ?? {},
  );
  problems.push(...diagrams.problems);
  warnings.push(...diagrams.warnings);
  if (problems.length > 0) throw new DocsBuildError(problems);

  const generated: GeneratedPage[] = ok.map((s) => {
    const { frontmatter, html, facts } = compiled.get(s.route)!;
    return {
      route: s.route,
      title: frontmatter.title,
      ...(frontmatter.description ? { description: frontmatter.description } : {}),
      toc: facts.toc,
      html: inlineDiagrams(html, diagrams.svgs),
      tags: frontmatter.tags,
      sidebarParentCategories: s.folder ? [categories.get(s.folder)!.label] : [],
    };
  });
  generated.sort((a, b) => a.route.localeCompare(b.route));

  const manifest: DocsManifest = {
    routes: generated.map((p) => ({ route: p.route, title: p.title, file: fileForRoute(p.route) })),
    sidebar: buildSidebar(
      ok.map((s) => ({
        route: s.route,
        title: compiled.get(s.route)!.frontmatter.title,
        folder: s.folder,
        position: compiled.get(s.route)!.frontmatter.sidebar_position,
      })),
      categories,
    ),
    drafts,
  };
  const search = buildTaggedSearchIndexes(generated.map((p) => ({ ...p, tags: p.tags ?? [], sections: compiled.get(p.route)!.facts.sections })));

  // Write next to the target, then swap, so a failed write never leaves a half-built folder.
  const tmp = `${outDir}.tmp-${process.pid}-${Date.now()}`;
  await mkdir(join(tmp, 'pages'), { recursive: true });
  await mkdir(join(tmp, 'search'), { recursive: true });
  for (const page of generated) {
    await writeFile(join(tmp, 'pages', fileForRoute(page.route)), JSON.stringify(page));
  }
  await writeFile(join(tmp, 'manifest.json'), JSON.stringify(manifest, null, 2));
  for (const [name, json] of search.files) await writeFile(join(tmp, 'search', name), json);
  await writeFile(join(tmp, 'search', 'tags.json'), JSON.stringify(search.tags, null, 2));
  await rm(outDir, { recursive: true, force: true });
  await rename(tmp, outDir);

  return { outDir, routes: generated.map((p) => p.route), warnings, diagrams: diagrams.counts, ms: Math.round(performance.now() - started) };
}

/** Finds or draws every page's diagrams; a diagram that does not parse is a problem naming its page. */
async function drawDiagrams(pages: { file: string; page: CompiledPage }[], options: Partial<MermaidOptions>) {
  const sources = new Map<string, string>();
  for (const { page } of pages) for (const [key, source] of page.diagrams) sources.set(key, source);
  const outcome = await renderMermaid(sources, { cacheDir: options.cacheDir ?? join(DOCS_ROOT, 'mermaid-cache'), ...options });
  const problems: string[] = [];
  const warnings: string[] = [];
  for (const { file, page } of pages) {
    for (const key of page.diagrams.keys()) {
      const error = outcome.errors.get(key);
      if (error) problems.push(`${file}: mermaid diagram does not parse: ${oneLine(error)}`);
      else if (!outcome.svgs.has(key)) {
        warnings.push(`${file}: mermaid diagram ${key} is not in the cache and could not be drawn (${outcome.unavailable}); the browser will draw it`);
      }
    }
  }
  const browser = [...sources.keys()].filter((k) => !outcome.svgs.has(k) && !outcome.errors.has(k)).length;
  return {
    svgs: outcome.svgs,
    problems,
    warnings,
    counts: { rendered: outcome.rendered, cached: outcome.svgs.size - outcome.rendered, browser },
  };
}

/** A doc's id: its route without the leading slash; the home page is `index`. */
export function docIdOf(route: string): string {
  return route === '/' ? 'index' : route.slice(1);
}

/** .mdx/.md files below `dir`, relative, sorted; names starting with `_` or `.` are not pages. */
async function listPageFiles(dir: string): Promise<string[]> {
  let entries;
  try {
    entries = await readdir(dir, { recursive: true, withFileTypes: true });
  } catch (err) {
    throw new DocsBuildError([`cannot read the pages folder ${dir}: ${(err as Error).message}`]);
  }
  return entries
    .filter((e) => e.isFile() && /\.mdx?$/i.test(e.name))
    .map((e) => relative(dir, join(e.parentPath, e.name)).split('\\').join('/'))
    .filter((rel) => !rel.split('/').some((part) => part.startsWith('_') || part.startsWith('.')))
    .sort();
}

async function forEachLimited<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
}

function oneLine(message: string): string {
  return message.replace(/\s*\n\s*/g, ' ').trim();
}

async function main(): Promise<void> {
  try {
    const result = await buildDocs({ mermaid: { prune: true } });
    for (const w of result.warnings) console.warn(`docs: warning: ${w}`);
    const d = result.diagrams;
    const drawn = d.rendered + d.cached + d.browser > 0 ? `, diagrams: ${d.rendered} drawn, ${d.cached} cached, ${d.browser} left to the browser` : '';
    console.log(`docs: built ${result.routes.length} page(s) in ${result.ms} ms${drawn} → ${relative(process.cwd(), result.outDir) || '.'}`);
  } catch (err) {
    console.error(err instanceof DocsBuildError ? err.message : `Docs build failed: ${(err as Error).stack ?? err}`);
    process.exitCode = 1;
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  await main();
}
