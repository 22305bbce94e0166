/**
 * Search index tags (spec 02 §2 "Search", §7): one index file per tag, `search-index-{tag}.json`.
 * - `default`: pages that belong to no docs plugin (none today; the file exists and is empty).
 * - `docs-{pluginId}-{versionName}` per docs plugin: `docs-default-current` holds the user manual,
 *   `docs-api-v2024-06-01` the API reference. The plugins and versions are the ones of the docs site's
 *   config (remix-app/app/components/docs/config.ts `siteConfig.docs.plugins`); keep the two in step.
 * The site searches every tag at once (results are capped per index and overall).
 */

export interface SearchPlugin {
  id: string;
  version: string;
  /** Routes of this plugin: exactly this path or below it (`/api/v2024-06-01`, `/api/v2024-06-01#x`). */
  routePrefix: string;
}

/** The API reference first: a route is given to the first plugin whose prefix matches. */
export const SEARCH_PLUGINS: readonly SearchPlugin[] = [
  { id: 'api', version: 'v2024-06-01', routePrefix: '/api' },
  { id: 'default', version: 'current', routePrefix: '/' },
];

export const DEFAULT_SEARCH_TAG = 'default';

export function pluginTag(plugin: SearchPlugin): string {
  return `docs-${plugin.id}-${plugin.version}`;
}

/** Every tag, in the order the site loads them. */
export const SEARCH_TAGS: readonly string[] = [DEFAULT_SEARCH_TAG, ...SEARCH_PLUGINS.map(pluginTag)];

function under(route: string, prefix: string): boolean {
  if (prefix === '/') return route.startsWith('/');
  return route === prefix || route.startsWith(`${prefix}/`);
}

/** The tag of a docs route (the default tag for a path outside every plugin). */
export function searchTagForRoute(route: string): string {
  const plugin = SEARCH_PLUGINS.find((p) => under(route, p.routePrefix));
  return plugin ? pluginTag(plugin) : DEFAULT_SEARCH_TAG;
}

/** `search-index-{tag}.json`; the site serves it at `/search-index-{tag}.json`. */
export function searchIndexFileName(tag: string): string {
  return `search-index-${tag}.json`;
}

/** docs/.generated/search/tags.json: each tag's content hash (its ETag and cache-busting version) and size. */
export interface SearchTagsFile {
  tags: { tag: string; hash: string; bytes: number; documents: number }[];
}
