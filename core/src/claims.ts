/**
 * Signed claims: the one way Cairn hands out short-lived, self-contained permissions (D70) — data access
 * and process tokens (the data server), render tokens (the renderer's print view) and sharing-link grants
 * (a browser that knew a link's password). Each is a compact JWS (HS256, signed and checked by `jose`).
 *
 * One key-derivation scheme for all of them: HKDF-SHA256 of the deployment's secret, with the purpose
 * (and, where a token must die with something, a context such as a link's password hash) as the info.
 * A token of one purpose can therefore never pass for another, and the protected header's `typ` names
 * the purpose too, so a mix-up is refused before any claim is read.
 */
import { SignJWT, decodeJwt, decodeProtectedHeader, errors, jwtVerify, type JWTPayload } from 'jose';

export type ClaimsPurpose = 'data' | 'render' | 'link-grant';

const enc = new TextEncoder();
const SALT = enc.encode('cairn-signed-claims-v1');

/** The HMAC key of a purpose (and context) under `secret`: 32 bytes of HKDF-SHA256. */
async function keyFor(secret: string, purpose: ClaimsPurpose, context: string): Promise<Uint8Array> {
  const base = await crypto.subtle.importKey('raw', enc.encode(secret), 'HKDF', false, ['deriveBits']);
  const info = enc.encode(context ? `${purpose}\n${context}` : purpose);
  return new Uint8Array(await crypto.subtle.deriveBits({ name: 'HKDF', hash: 'SHA-256', salt: SALT, info }, base, 256));
}

const typ = (purpose: ClaimsPurpose) => `cairn-${purpose}`;

export interface SignOptions {
  /** Expiry, unix seconds. */
  exp: number;
  /** Binds the token to something that can change (a link's password hash): a new value voids the token. */
  context?: string;
}

/** Signs `claims` (a JSON object; `exp` is set from the options) for `purpose`. */
export async function signClaims(purpose: ClaimsPurpose, claims: Record<string, unknown>, secret: string, opts: SignOptions): Promise<string> {
  return new SignJWT({ ...claims } as JWTPayload)
    .setProtectedHeader({ alg: 'HS256', typ: typ(purpose) })
    .setExpirationTime(opts.exp)
    .sign(await keyFor(secret, purpose, opts.context ?? ''));
}

export type ClaimsFailure = 'malformed' | 'signature' | 'expired';

export type Verified<T> = { ok: true; claims: T } | { ok: false; why: ClaimsFailure };

/**
 * Checks a token of `purpose`: its form, then its signature, then its expiry (in that order, so an
 * expired forgery is a bad signature). Never throws on bad input.
 */
export async function verifyClaims<T extends object = Record<string, unknown>>(
  purpose: ClaimsPurpose,
  token: unknown,
  secret: string,
  opts: { context?: string; now?: number } = {},
): Promise<Verified<T>> {
  if (typeof token !== 'string' || !peekClaims(token) || peekType(token) !== typ(purpose)) return { ok: false, why: 'malformed' };
  try {
    const { payload } = await jwtVerify(token.trim(), await keyFor(secret, purpose, opts.context ?? ''), {
      algorithms: ['HS256'],
      typ: typ(purpose),
      currentDate: new Date(opts.now ?? Date.now()),
    });
    if (typeof payload.exp !== 'number') return { ok: false, why: 'malformed' };
    return { ok: true, claims: payload as T };
  } catch (err) {
    if (err instanceof errors.JWSSignatureVerificationFailed) return { ok: false, why: 'signature' };
    if (err instanceof errors.JWTExpired) return { ok: false, why: 'expired' };
    return { ok: false, why: 'malformed' };
  }
}

/**
 * The claims of a well-formed token WITHOUT checking its signature (null when it is not one): only for
 * what a caller must read before it can check (the data token's region, D33). Grants nothing.
 */
export function peekClaims(token: string): Record<string, unknown> | null {
  try {
    const claims = decodeJwt(token.trim());
    return typeof claims === 'object' && claims !== null && !Array.isArray(claims) ? (claims as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

function peekType(token: string): string | undefined {
  try {
    return decodeProtectedHeader(token.trim()).typ;
  } catch {
    return undefined;
  }
}
