/// <reference types="vite/client" />
/**
 * Docs pages for the web app's worker (bundled by Vite). Pages are HTML made at build time, so
 * nothing here evaluates code; each page's JSON is a lazy chunk, loaded only when its route is asked for.
 * Run `npm run build -w @cairn/docs` before building the web app.
 */
import { DocPathError, normalizeDocPath } from './paths.ts';
import type { DocPage, DocsManifest, GeneratedPage, SidebarGroup } from './types.ts';

export type { DocPage, DocsManifest, SidebarGroup, SidebarItem, TocEntry } from './types.ts';
export { normalizeDocPath, DocPathError } from './paths.ts';

const pageModules = import.meta.glob<GeneratedPage>('../.generated/pages/*.json', { import: 'default' });
const manifestModules = import.meta.glob<DocsManifest>('../.generated/manifest.json', { eager: true, import: 'default' });

/** Thrown when docs/.generated is missing: the docs were not built before the app. */
export class DocsNotBuiltError extends Error {
  constructor() {
    super('The docs are not built: run `npm run build -w @cairn/docs` (docs/.generated/manifest.json is missing).');
    this.name = 'DocsNotBuiltError';
  }
}

function manifest(): DocsManifest {
  const m = manifestModules['../.generated/manifest.json'];
  if (!m) throw new DocsNotBuiltError();
  return m;
}

let fileByRoute: Map<string, string> | undefined;

/**
 * The page for a request path (`/administration/api-keys`, `/administration/api-keys/`,
 * `/index.html`, …), or null when no page has that route or the path cannot be decoded.
 */
export async function loadDocPage(path: string): Promise<DocPage | null> {
  let route: string;
  try {
    route = normalizeDocPath(path);
  } catch (err) {
    if (err instanceof DocPathError) return null;
    throw err;
  }
  fileByRoute ??= new Map(manifest().routes.map((r) => [r.route, r.file]));
  const file = fileByRoute.get(route);
  const load = file ? pageModules[`../.generated/pages/${file}`] : undefined;
  if (!load) return null;
  const page = await load();
  return {
    route: page.route,
    title: page.title,
    ...(page.description ? { description: page.description } : {}),
    toc: page.toc,
    html: page.html,
    ...(page.tags && page.tags.length > 0 ? { tags: page.tags } : {}),
  };
}

/** Every docs route with its title, sorted by route. */
export function docRoutes(): { route: string; title: string }[] {
  return manifest().routes.map(({ route, title }) => ({ route, title }));
}

/** The sidebar: groups in display order, each with its pages. */
export function docSidebar(): SidebarGroup[] {
  return manifest().sidebar;
}

/** Ids of draft docs (not published): navbar items pointing at them draw nothing. */
export function docDrafts(): string[] {
  return manifest().drafts ?? [];
}
