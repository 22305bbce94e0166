/**
 * Signed sharing-link URLs (sharing_secret_required). The embedding server signs the link's path and
 * query with the link's sharing secret; the link opens only while the signature is valid and unexpired.
 *
 *   https://<app>/s/<token>?f.customer_id=42&expires=1767225600&signature=<hex>
 *
 *   message   = "/s/<token>" + "\n" + canonical query
 *   canonical = every query parameter except `signature` (so `expires` too), each written
 *               name=value with name and value percent-encoded as UTF-8 (A-Z a-z 0-9 - . _ ~ stay,
 *               every other byte becomes %XX in upper case), sorted by name, then by value,
 *               joined with "&"
 *   signature = HMAC-SHA256(key = the sharing secret as UTF-8, message), lower-case hex
 *   expires   = unix seconds; required; the link refuses the URL after that moment
 *
 * Parameters that were signed cannot be changed by the viewer (not through the URL, not through the
 * filter bar); the public page shows them as fixed.
 */
import { timingSafeEqual, toHex } from '@cairn/core';

const enc = new TextEncoder();
/** Longest accepted lifetime of a signed URL: a year. */
export const MAX_SIGNED_URL_SECONDS = 366 * 86_400;

/** RFC 3986 percent-encoding of every byte outside the unreserved set. */
function strictEncode(text: string): string {
  return encodeURIComponent(text).replace(/[!'()*]/g, (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`);
}

export function canonicalQuery(params: URLSearchParams): string {
  const pairs = [...params].filter(([name]) => name !== 'signature').map(([n, v]) => [strictEncode(n), strictEncode(v)] as const);
  pairs.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0));
  return pairs.map(([n, v]) => `${n}=${v}`).join('&');
}

export async function signLinkUrl(secret: string, path: string, params: URLSearchParams): Promise<string> {
  const key = await crypto.subtle.importKey('raw', enc.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const mac = await crypto.subtle.sign('HMAC', key, enc.encode(`${path}\n${canonicalQuery(params)}`));
  return toHex(mac);
}

export type SignatureProblem = 'signature_missing' | 'signature_invalid' | 'signature_expired' | 'signature_expiry_too_far';

/** Checks a URL's signature and expiry; null when valid. */
export async function signatureProblem(secret: string | null, path: string, params: URLSearchParams, now = Date.now()): Promise<SignatureProblem | null> {
  const given = params.get('signature');
  const expires = params.get('expires');
  if (!given || !expires) return 'signature_missing';
  if (!secret || params.getAll('signature').length !== 1 || params.getAll('expires').length !== 1) return 'signature_invalid';
  if (!/^\d{1,12}$/.test(expires) || !/^[0-9a-fA-F]{64}$/.test(given)) return 'signature_invalid';
  const expected = await signLinkUrl(secret, path, params);
  if (!timingSafeEqual(expected, given.toLowerCase())) return 'signature_invalid';
  const at = Number(expires) * 1000;
  if (at <= now) return 'signature_expired';
  if (at - now > MAX_SIGNED_URL_SECONDS * 1000) return 'signature_expiry_too_far';
  return null;
}
