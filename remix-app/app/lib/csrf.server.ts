/**
 * Cross-site request forgery protection for every state-changing request of the app (actions of
 * /app/… and the public /s/… pages). Two layers:
 *
 * 1. The session cookie is SameSite=Lax, so browsers do not send it with POSTs that another site starts.
 * 2. This origin check, in the worker before any action runs: a POST/PUT/PATCH/DELETE is accepted only
 *    when the browser says it comes from this very origin — `Origin` equal to the app's origin, or,
 *    where a browser sends no Origin, `Sec-Fetch-Site: same-origin` (or `none`, a typed URL). A request
 *    with neither header is not from a browser (a script with its own credentials) and is let through;
 *    `Origin: null` (sandboxed frames, some redirects) is refused.
 *
 * No token is needed: every browser that Cairn supports sends Origin on POST requests.
 */
const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Why the request must be refused, or null when it may proceed. */
export function csrfProblem(request: Request): string | null {
  if (SAFE.has(request.method.toUpperCase())) return null;
  const expected = new URL(request.url).origin;
  const origin = request.headers.get('Origin');
  if (origin !== null) {
    return origin === expected ? null : `The request came from ${origin === 'null' ? 'an opaque origin' : origin}, not from ${expected}.`;
  }
  const site = request.headers.get('Sec-Fetch-Site');
  if (site === null || site === 'same-origin' || site === 'none') return null;
  return `The request came from another site (Sec-Fetch-Site: ${site}).`;
}

/**
 * Paths whose actions change state on behalf of a browser: the app and the public link pages. The SAML
 * assertion consumer service is the exception: the identity provider's page posts there from its own
 * origin by design, and what it posts is checked by its signature and single use (ARCHITECTURE D57).
 */
export const SAML_ACS_PATH = '/app/sso/saml/acs';
export function isProtectedPath(pathname: string): boolean {
  if (pathname === SAML_ACS_PATH) return false;
  return pathname === '/app' || pathname.startsWith('/app/') || pathname.startsWith('/s/');
}

export function csrfRefusal(reason: string): Response {
  const body = `<!doctype html><meta charset="utf-8"><title>Request refused · Cairn</title>
<main style="font-family: system-ui, sans-serif; max-width: 36rem; margin: 10vh auto; line-height: 1.5">
<h1>Request refused</h1><p>Cairn only accepts changes sent from its own pages. ${reason.replace(/[<>&"]/g, '')}</p>
<p><a href="/app/">Back to Cairn</a></p></main>`;
  return new Response(body, { status: 403, headers: { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' } });
}
