/**
 * The visitor's address as Cloudflare's edge saw it, for the API's per-address limits and sharing-link
 * allow-lists. The app passes it on to the API under the same header on its service-binding calls.
 *
 * Why only `CF-Connecting-IP`: the edge writes that header on every request it hands to a worker and
 * replaces whatever a client sent under that name, so in production its value is the connecting
 * address and nothing else. Every other header (`X-Forwarded-For`, `X-Real-IP`, `True-Client-IP` …)
 * can be written by the client and is never read or forwarded. The value is passed on only when it is
 * one IP literal; anything else means "no address", and the API then applies only the limits that do
 * not depend on the address (per e-mail, per link), never a bucket shared by all such callers.
 *
 * Locally, `wrangler dev` fills the header with the socket's address only when the request lacks it,
 * so there a client can choose it; the local stack listens on 127.0.0.1 only.
 */
const IP_LITERAL = /^(?:\d{1,3}(?:\.\d{1,3}){3}|[0-9A-Fa-f:]{2,39}(?::\d{1,3}(?:\.\d{1,3}){3})?)$/;

export function clientAddress(request: Request): string | null {
  const value = request.headers.get('CF-Connecting-IP')?.trim();
  return value && IP_LITERAL.test(value) && (value.includes('.') || value.includes(':')) ? value : null;
}

/** Headers that carry the visitor's address on a call to the API (empty without one). */
export function clientAddressHeaders(request: Request): Record<string, string> {
  const ip = clientAddress(request);
  return ip ? { 'CF-Connecting-IP': ip } : {};
}
