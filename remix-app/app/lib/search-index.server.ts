/**
 * `GET /search-index-{tag}.json`: the docs search index of a tag, as the docs build wrote it.
 * Its content hash is the ETag. The site asks for `?v={hash}`; that exact URL never changes content,
 * so it is cached for a year (immutable). Any other URL of the file (no or an old `v`) is revalidated
 * on every use (`no-cache` + ETag → 304 when unchanged).
 */
import { loadSearchIndexFile, type SearchIndexAsset } from '@cairn/docs/search-files';

export const IMMUTABLE = 'public, max-age=31536000, immutable';
export const REVALIDATE = 'public, max-age=0, must-revalidate';

function jsonApiError(status: number, code: string, title: string, detail: string): Response {
  return new Response(JSON.stringify({ errors: [{ status: String(status), code, title, detail }] }), {
    status,
    headers: { 'Content-Type': 'application/vnd.api+json', 'Cache-Control': 'no-store' },
  });
}

/** The tag named by a path `/search-index-{tag}.json`, or null. */
export function tagOfPath(pathname: string): string | null {
  const m = /^\/search-index-([A-Za-z0-9._-]+)\.json$/.exec(pathname);
  return m ? m[1]! : null;
}

function etagMatches(header: string | null, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((t) => {
    const v = t.trim().replace(/^W\//, '');
    return v === etag || v === '*';
  });
}

/** The answer for a request of an index file, given the file (null: no such tag). */
export function searchIndexResponse(request: Request, asset: SearchIndexAsset | null): Response {
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    const res = jsonApiError(405, 'method_not_allowed', 'Method Not Allowed', `${request.method} is not allowed here; use GET.`);
    res.headers.set('Allow', 'GET, HEAD');
    return res;
  }
  const url = new URL(request.url);
  if (!asset) return jsonApiError(404, 'not_found', 'Not Found', `No search index lives at ${url.pathname}.`);
  const etag = `"${asset.hash}"`;
  const headers = new Headers({
    ETag: etag,
    'Cache-Control': url.searchParams.get('v') === asset.hash ? IMMUTABLE : REVALIDATE,
    'X-Content-Type-Options': 'nosniff',
  });
  if (etagMatches(request.headers.get('If-None-Match'), etag)) return new Response(null, { status: 304, headers });
  headers.set('Content-Type', 'application/json; charset=utf-8');
  return new Response(request.method === 'HEAD' ? null : asset.body, { status: 200, headers });
}

export async function serveSearchIndex(request: Request): Promise<Response> {
  const tag = tagOfPath(new URL(request.url).pathname);
  return searchIndexResponse(request, tag ? await loadSearchIndexFile(tag) : null);
}
