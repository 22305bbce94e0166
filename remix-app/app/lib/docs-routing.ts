/**
 * How a request path maps to a docs route. Every docs route is an exact path: `/x/index`, `/x.html`,
 * `/x/` and doubled slashes redirect to `/x` (the query is kept; the browser keeps the #hash), a path
 * that cannot be percent-decoded is a 400, everything else is looked up as is.
 */
import { DocPathError, normalizeDocPath } from '@cairn/docs/paths';

export type DocRequest = { kind: 'route'; route: string } | { kind: 'redirect'; location: string } | { kind: 'bad-path'; message: string };

/** `pathname` as the URL carries it (still percent-encoded); `search` with its leading `?` or empty. */
export function classifyDocPath(pathname: string, search = ''): DocRequest {
  // (A bare `try { decodeURIComponent(p) } catch {}` whose result is unused is dropped by the bundler
  // as side-effect free: decode where the result is needed.)
  let route: string;
  try {
    route = normalizeDocPath(pathname);
  } catch (err) {
    if (err instanceof DocPathError) return { kind: 'bad-path', message: err.message };
    throw err;
  }
  const canonical = canonicalDocPath(pathname);
  if (canonical !== pathname) return { kind: 'redirect', location: canonical + search };
  return { kind: 'route', route };
}

/** The canonical spelling of a path, percent-encoding untouched. */
export function canonicalDocPath(pathname: string): string {
  let p = pathname.replace(/\/{2,}/g, '/');
  const trim = (s: string) => (s.length > 1 ? s.replace(/\/+$/, '') || '/' : s);
  p = trim(p);
  if (p.endsWith('.html')) p = p.slice(0, -'.html'.length);
  if (p === '/index' || p === '') return '/';
  if (p.endsWith('/index')) p = p.slice(0, -'/index'.length);
  return trim(p) || '/';
}
