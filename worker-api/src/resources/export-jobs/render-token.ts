/**
 * Render tokens: what the renderer's browser carries to open the print view of one dashboard (or one
 * report of it) in the web app (`/render/{token}`). The app hands the token to the API's public render
 * routes (render-routes.ts), which verify it and answer as a viewer of that dashboard only.
 *
 *   token = "r1." + base64url(JSON claims) + "." + base64url(HMAC-SHA256(key, "r1." + claims part))
 *
 * The key is derived from the API's SECRET_KEY (never the data-token secret, so a data token can never
 * pass for a render token or the other way round). Claims: organization, dashboard, optional report,
 * the parameters, colour mode, page width and an expiry a few minutes ahead.
 */
import { ApiError, timingSafeEqual, type InputParameters } from '@cairn/core';

export const RENDER_TOKEN_TTL_SECONDS = 10 * 60;

export interface RenderClaims {
  org: string;
  dashboard: string;
  /** Set for a single report: the print view shows only this report. */
  report: string | null;
  parameters: InputParameters;
  mode: 'light' | 'dark';
  /** CSS pixels of the page (the dashboard's or the schedule's page width). */
  width: number;
  /** Expiry, unix seconds. */
  exp: number;
}

const enc = new TextEncoder();

function b64url(bytes: Uint8Array): string {
  let s = '';
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromB64url(text: string): Uint8Array {
  const s = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
  return Uint8Array.from(s, (c) => c.charCodeAt(0));
}

async function mac(secretKey: string, body: string): Promise<string> {
  const key = await crypto.subtle.importKey('raw', enc.encode(`render-token:${secretKey}`), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return b64url(new Uint8Array(await crypto.subtle.sign('HMAC', key, enc.encode(body))));
}

export async function signRenderToken(claims: Omit<RenderClaims, 'exp'>, secretKey: string, now = Date.now()): Promise<string> {
  const body = `r1.${b64url(enc.encode(JSON.stringify({ ...claims, exp: Math.floor(now / 1000) + RENDER_TOKEN_TTL_SECONDS })))}`;
  return `${body}.${await mac(secretKey, body)}`;
}

const invalid = (why: string) => new ApiError('unauthorized', `This render address is not valid: ${why}.`, { source: { parameter: 'token' } });

/** The claims of a valid, unexpired token; 401 otherwise. */
export async function verifyRenderToken(token: string, secretKey: string, now = Date.now()): Promise<RenderClaims> {
  const m = /^(r1\.[A-Za-z0-9_-]{10,6000})\.([A-Za-z0-9_-]{43})$/.exec(token);
  if (!m) throw invalid('malformed token');
  if (!timingSafeEqual(await mac(secretKey, m[1]!), m[2]!)) throw invalid('bad signature');
  let claims: RenderClaims;
  try {
    claims = JSON.parse(new TextDecoder().decode(fromB64url(m[1]!.slice(3)))) as RenderClaims;
  } catch {
    throw invalid('malformed claims');
  }
  if (typeof claims.org !== 'string' || typeof claims.dashboard !== 'string' || typeof claims.exp !== 'number') throw invalid('malformed claims');
  if (claims.exp * 1000 <= now) throw invalid('expired');
  return claims;
}
