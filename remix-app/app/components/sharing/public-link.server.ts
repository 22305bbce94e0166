/**
 * The public link pages' way to the API: the `public/links` calls, with no key and no session. The
 * token in the address is the credential; the API checks it together with the allow-list, the
 * signature and the password grant on every call.
 *
 * Client address: the edge's `CF-Connecting-IP`, passed on as it came and only when it is one IP
 * literal (lib/client-address.server.ts says why nothing else is trusted).
 */
import type { AppLoadContext } from 'react-router';
import { API_ORIGIN, fetchApi, problemFrom, type ApiResult } from '../../lib/api.server';
import { getEnv } from '../../lib/env.server';
import { clientAddress } from '../../lib/client-address.server';

/** One grant cookie per link: `cairn_link_<first 16 hex digits of the token's SHA-256>`. */
async function grantCookieName(token: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(token));
  return `cairn_link_${[...new Uint8Array(digest).slice(0, 8)].map((b) => b.toString(16).padStart(2, '0')).join('')}`;
}

function readCookie(request: Request, name: string): string | undefined {
  for (const part of (request.headers.get('Cookie') ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return decodeURIComponent(part.slice(eq + 1).trim());
  }
  return undefined;
}

/**
 * The grant cookie of one link: HttpOnly, for the public pages only (Path=/s; the name tells the links
 * apart — a path per link would miss the router's `/s/<token>.data` requests). Over https it is
 * SameSite=None; Secure; Partitioned, so a password-protected link keeps working inside another
 * site's iframe (embedding); over plain http (local development) browsers refuse SameSite=None, so Lax.
 */
export async function grantCookie(request: Request, token: string, grant: string, expiresAt: string): Promise<string> {
  const maxAge = Math.max(0, Math.floor((Date.parse(expiresAt) - Date.now()) / 1000));
  const https = new URL(request.url).protocol === 'https:';
  const site = https ? 'SameSite=None; Secure; Partitioned' : 'SameSite=Lax';
  return `${await grantCookieName(token)}=${encodeURIComponent(grant)}; Max-Age=${maxAge}; Path=/s; HttpOnly; ${site}`;
}

/** Calls a public-links route for `token`; the grant of that link's cookie goes along. */
export async function publicCall<T>(request: Request, context: AppLoadContext, token: string, path: string, body: unknown): Promise<ApiResult<T>> {
  const headers = new Headers({ Accept: 'application/json', 'Content-Type': 'application/json' });
  const ip = clientAddress(request);
  if (ip) headers.set('CF-Connecting-IP', ip);
  const grant = readCookie(request, await grantCookieName(token));
  if (grant) headers.set('Cairn-Link-Grant', grant);
  const res = await fetchApi(getEnv(context), new Request(`${API_ORIGIN}${path}`, { method: 'POST', headers, body: JSON.stringify(body) }));
  if (res.status >= 200 && res.status < 300) return { ok: true, status: res.status, body: res.body as T };
  // A link refused for a reason (expired, password needed…) names it in the error's meta.reason.
  const problem = problemFrom(res.status, res.body);
  const reason = (res.body as { errors?: { meta?: { reason?: unknown } }[] } | null)?.errors?.[0]?.meta?.reason;
  return { ok: false, problem: { ...problem, ...(typeof reason === 'string' ? { code: reason } : {}) } };
}

export const publicLinkApiPath = (token: string, rest = '') => `/public/links/${encodeURIComponent(token)}${rest}`;
