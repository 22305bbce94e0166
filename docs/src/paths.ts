/**
 * Route normalization shared by the build (link checking) and the runtime (page lookup).
 * No Node or Vite APIs here: the web app's worker bundles this file.
 */

/** Thrown for a path whose percent-encoding is invalid. */
export class DocPathError extends Error {
  constructor(path: string) {
    super(`Pathname "${path}" could not be decoded. This is likely caused by an invalid percent-encoding.`);
    this.name = 'DocPathError';
  }
}

/**
 * Turns a request path or link target into the canonical docs route:
 * query and hash dropped, percent-decoded, duplicate slashes collapsed, and a trailing
 * `.html`, `/index` and `/` stripped (`/a/index.html` → `/a`, `/index` → `/`).
 */
export function normalizeDocPath(path: string): string {
  let p = path.replace(/[?#].*$/s, '');
  try {
    p = decodeURIComponent(p);
  } catch {
    throw new DocPathError(path);
  }
  if (!p.startsWith('/')) p = `/${p}`;
  p = p.replace(/\/{2,}/g, '/');
  if (p.endsWith('.html')) p = p.slice(0, -'.html'.length);
  p = stripTrailingSlash(p);
  if (p === '/index') return '/';
  if (p.endsWith('/index')) p = p.slice(0, -'/index'.length);
  return stripTrailingSlash(p) || '/';
}

function stripTrailingSlash(p: string): string {
  return p.length > 1 ? p.replace(/\/+$/, '') || '/' : p;
}

/** Route of a page file given its path relative to the pages folder (`a/b/index.mdx` → `/a/b`). */
export function routeForPageFile(relativePath: string): string {
  const withoutExt = relativePath.replace(/\\/g, '/').replace(/\.mdx?$/i, '');
  return normalizeDocPath(`/${withoutExt}`);
}

/** File name (without folder) of a route's generated JSON: `/` → `index.json`, `/a/b` → `a__b.json`. */
export function fileForRoute(route: string): string {
  return route === '/' ? 'index.json' : `${route.slice(1).replace(/\//g, '__')}.json`;
}
