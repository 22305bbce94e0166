/** Small WebCrypto helpers that run the same in workerd and in Node 20. */
import { randomString } from './ids.ts';
import type { Region } from './regions.ts';

const enc = new TextEncoder();

export function toHex(buf: ArrayBuffer | Uint8Array): string {
  const bytes = buf instanceof Uint8Array ? buf : new Uint8Array(buf);
  let s = '';
  for (const b of bytes) s += b.toString(16).padStart(2, '0');
  return s;
}

export function fromHex(hex: string): Uint8Array {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

export function base64url(bytes: Uint8Array): string {
  let bin = '';
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

export function fromBase64url(s: string): Uint8Array {
  const b64 = s.replace(/-/g, '+').replace(/_/g, '/') + '==='.slice((s.length + 3) % 4);
  const bin = atob(b64);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

export async function sha256Hex(text: string): Promise<string> {
  return toHex(await crypto.subtle.digest('SHA-256', enc.encode(text)));
}

/** Compares two strings in time that depends only on their length. */
export function timingSafeEqual(a: string, b: string): boolean {
  const x = enc.encode(a);
  const y = enc.encode(b);
  let diff = x.length ^ y.length;
  const n = Math.max(x.length, y.length);
  for (let i = 0; i < n; i++) diff |= (x[i] ?? 0) ^ (y[i] ?? 0);
  return diff === 0;
}

// workerd caps PBKDF2 at 100,000 iterations; that is the count we use everywhere.
const PBKDF2_ITERATIONS = 100_000;

/** Hashes a low-entropy secret (a password) as `pbkdf2$iterations$salt$hash`. */
export async function hashPassword(password: string, iterations = PBKDF2_ITERATIONS): Promise<string> {
  const salt = new Uint8Array(16);
  crypto.getRandomValues(salt);
  const hash = await pbkdf2(password, salt, iterations);
  return `pbkdf2$${iterations}$${base64url(salt)}$${base64url(hash)}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, iter, salt, hash] = stored.split('$');
  if (scheme !== 'pbkdf2' || !iter || !salt || !hash) return false;
  const got = await pbkdf2(password, fromBase64url(salt), Number(iter));
  return timingSafeEqual(base64url(got), hash);
}

async function pbkdf2(password: string, salt: Uint8Array, iterations: number): Promise<Uint8Array> {
  const key = await crypto.subtle.importKey('raw', enc.encode(password), 'PBKDF2', false, ['deriveBits']);
  const bits = await crypto.subtle.deriveBits({ name: 'PBKDF2', hash: 'SHA-256', salt: salt as BufferSource, iterations }, key, 256);
  return new Uint8Array(bits);
}

/**
 * API key format: `cairn_<region>_<key id>_<secret>` (`cairn_<key id>_<secret>` for keys made before
 * regions had databases of their own). The region tells a server which region's database holds the key
 * without a lookup (D53); the key id (public, indexed) finds the row; only the SHA-256 of the secret is
 * stored. Secrets are 40 random base-62 characters, so a fast hash is enough.
 */
export const API_KEY_PREFIX = 'cairn';

export function generateApiKey(region?: Region): { keyId: string; secret: string; full: string } {
  const keyId = randomString(12);
  const secret = randomString(40);
  return { keyId, secret, full: `${API_KEY_PREFIX}_${region ? `${region}_` : ''}${keyId}_${secret}` };
}

export function parseApiKey(full: string): { keyId: string; secret: string; region?: Region } | null {
  const m = /^cairn_(?:(eu|us)_)?([0-9A-Za-z]{12})_([0-9A-Za-z]{40})$/.exec(full.trim());
  if (!m) return null;
  return { keyId: m[2]!, secret: m[3]!, ...(m[1] ? { region: m[1] as Region } : {}) };
}

/**
 * Tokens a region's database holds (sessions, invitations): `<region>_<random>`, so any region's
 * server can tell where a token lives before looking it up (D53). Tokens without the prefix are older.
 */
export function regionToken(region: Region, length = 48): string {
  return `${region}_${randomString(length)}`;
}

/** The region a token names by its prefix, or null for a token without one. */
export function tokenRegion(token: string): Region | null {
  const m = /^(eu|us)_/.exec(token);
  return m ? (m[1] as Region) : null;
}

/** AES-GCM encryption of secrets that must be read back (datasource passwords, signing secrets). */
export async function encryptSecret(plain: string, keyHex: string): Promise<string> {
  const key = await aesKey(keyHex);
  const iv = new Uint8Array(12);
  crypto.getRandomValues(iv);
  const ct = await crypto.subtle.encrypt({ name: 'AES-GCM', iv }, key, enc.encode(plain));
  return `v1.${base64url(iv)}.${base64url(new Uint8Array(ct))}`;
}

export async function decryptSecret(sealed: string, keyHex: string): Promise<string> {
  const [v, iv, ct] = sealed.split('.');
  if (v !== 'v1' || !iv || !ct) throw new Error('unknown secret format');
  const key = await aesKey(keyHex);
  const plain = await crypto.subtle.decrypt({ name: 'AES-GCM', iv: fromBase64url(iv) as BufferSource }, key, fromBase64url(ct) as BufferSource);
  return new TextDecoder().decode(plain);
}

async function aesKey(keyHex: string): Promise<CryptoKey> {
  const raw = await crypto.subtle.digest('SHA-256', enc.encode(keyHex));
  return crypto.subtle.importKey('raw', raw, 'AES-GCM', false, ['encrypt', 'decrypt']);
}
