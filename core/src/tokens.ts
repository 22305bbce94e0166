/**
 * Data access tokens and data process tokens: short-lived, HMAC-SHA256-signed claims that let a
 * data server hand out one result without an API key. A token is bound to its organization, its
 * data key and the region that issued it; the other region's data server refuses it.
 *
 * Wire format: `<base64url(JSON claims)>.<base64url(signature)>`.
 */
import { ApiError } from './errors.ts';
import { base64url, fromBase64url } from './crypto.ts';
import type { Region } from './regions.ts';

export const DATA_TOKEN_TTL_SECONDS = 5 * 60;

export type TokenKind = 'data' | 'process' | 'schema';

export interface DataTokenClaims {
  /** What the token opens: a result (`data`), a processing request (`process`) or schema data. */
  kind: TokenKind;
  org: string;
  /** The data key the token opens (for `process`, the key of the stored processing request). */
  key: string;
  region: Region;
  /** Expiry, unix seconds. */
  exp: number;
  /** Options carried by process tokens (format, csv settings). */
  opts?: Record<string, unknown>;
}

const enc = new TextEncoder();

async function hmacKey(secret: string): Promise<CryptoKey> {
  return crypto.subtle.importKey('raw', enc.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, [
    'sign',
    'verify',
  ]);
}

export async function signDataToken(
  claims: Omit<DataTokenClaims, 'exp'> & { exp?: number },
  secret: string,
  now = Date.now(),
): Promise<string> {
  const full: DataTokenClaims = { ...claims, exp: claims.exp ?? Math.floor(now / 1000) + DATA_TOKEN_TTL_SECONDS };
  const body = base64url(enc.encode(JSON.stringify(full)));
  const sig = await crypto.subtle.sign('HMAC', await hmacKey(secret), enc.encode(body));
  return `${body}.${base64url(new Uint8Array(sig))}`;
}

/**
 * Verifies a token for this data server. Throws an ApiError naming what is wrong:
 * forged or malformed (401 invalid_data_token), expired (401 data_token_expired),
 * issued by the other region (403 wrong_region), or for another kind of call.
 */
export async function verifyDataToken(
  token: string,
  secret: string,
  expect: { region: Region; kind?: TokenKind | TokenKind[] },
  now = Date.now(),
): Promise<DataTokenClaims> {
  const [body, sig, extra] = token.trim().split('.');
  if (!body || !sig || extra !== undefined) {
    throw new ApiError('invalid_data_token', 'The data access token is malformed.');
  }
  let claims: DataTokenClaims;
  try {
    claims = JSON.parse(new TextDecoder().decode(fromBase64url(body))) as DataTokenClaims;
  } catch {
    throw new ApiError('invalid_data_token', 'The data access token is malformed.');
  }
  if (typeof claims !== 'object' || claims === null || typeof claims.exp !== 'number') {
    throw new ApiError('invalid_data_token', 'The data access token is malformed.');
  }
  // Each region signs with its own secret, so a token from the other region cannot verify here.
  // Its (unverified) region claim only serves to say where to send it; it grants nothing.
  if (claims.region !== expect.region) {
    throw new ApiError(
      'wrong_region',
      `This token was issued in region "${String(claims.region)}"; send it to that region's data server, not "${expect.region}".`,
    );
  }
  let ok = false;
  try {
    ok = await crypto.subtle.verify(
      'HMAC',
      await hmacKey(secret),
      fromBase64url(sig) as BufferSource,
      enc.encode(body),
    );
  } catch {
    ok = false;
  }
  if (!ok) throw new ApiError('invalid_data_token', 'The data access token is not valid.');
  if (claims.exp * 1000 <= now) {
    throw new ApiError('data_token_expired', 'The data access token has expired; request a new one.');
  }
  const kinds = expect.kind === undefined ? null : Array.isArray(expect.kind) ? expect.kind : [expect.kind];
  if (kinds && !kinds.includes(claims.kind)) {
    throw new ApiError('invalid_data_token', `This token is a ${claims.kind} token and cannot be used here.`);
  }
  return claims;
}

/** Data keys name a stored result: `{region}/{org}/{execution}/{hash}`. They contain slashes. */
export function makeDataKey(region: Region, org: string, executionId: string, hash: string): string {
  return `${region}/${org}/${executionId}/${hash}`;
}

export function parseDataKey(key: string): { region: string; org: string; executionId: string; hash: string } | null {
  const parts = key.split('/');
  if (parts.length !== 4 || parts.some((p) => !/^[A-Za-z0-9_-]+$/.test(p))) return null;
  const [region, org, executionId, hash] = parts as [string, string, string, string];
  return { region, org, executionId, hash };
}
