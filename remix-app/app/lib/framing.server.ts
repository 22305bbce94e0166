/**
 * Who may show a page of the app inside a frame: the one place that decides it (ARCHITECTURE.md D43).
 * Every document the app renders gets exactly one policy, written consistently in both headers that
 * browsers read:
 * - a sharing link's page (`/s/{token}`, its password form and its refusals included) is meant to be
 *   embedded by any site: `Content-Security-Policy: frame-ancestors *` and no `X-Frame-Options` (which
 *   has no "any site" value and would contradict it);
 * - every other page (the analyst app, the docs, the print view) may not be framed at all:
 *   `frame-ancestors 'none'` and, for browsers without CSP level 2, `X-Frame-Options: DENY`.
 */

export type FramingPolicy = 'any-site' | 'none';

/** `/s/{token}` and `/s/{token}/` only (its status and download routes answer JSON or files). */
const SHARING_LINK_PAGE = /^\/s\/[^/]+\/?$/;

export function framingPolicy(pathname: string): FramingPolicy {
  return SHARING_LINK_PAGE.test(pathname) ? 'any-site' : 'none';
}

/** Sets the framing headers of `policy` on `headers`, replacing whatever a route set before. */
export function applyFraming(headers: Headers, policy: FramingPolicy): void {
  const csp = (headers.get('Content-Security-Policy') ?? '')
    .split(';')
    .map((d) => d.trim())
    .filter((d) => d && !/^frame-ancestors\b/i.test(d));
  if (policy === 'any-site') {
    headers.delete('X-Frame-Options');
    csp.push('frame-ancestors *');
  } else {
    headers.set('X-Frame-Options', 'DENY');
    csp.push("frame-ancestors 'none'");
  }
  headers.set('Content-Security-Policy', csp.join('; '));
}
