/**
 * After the right password, a sharing link hands out a grant: a short-lived token that stands for
 * "this browser knew the password of this link". The app keeps it in an HttpOnly cookie scoped to
 * the link's path and sends it back with every call (header Cairn-Link-Grant).
 *
 *   grant = "g1." + expiry (unix seconds) + "." + hex HMAC-SHA256(key, link id + "." + expiry + "." + password hash)
 *
 * The key is derived from the API's SECRET_KEY. Because the stored password hash is part of the MAC,
 * setting a new password (or removing it and setting one again) invalidates every grant at once.
 */
import { timingSafeEqual, toHex } from '@cairn/core';

export const GRANT_HOURS = 8;
const enc = new TextEncoder();

async function mac(secretKey: string, linkId: string, expiry: number, passwordHash: string): Promise<string> {
  const key = await crypto.subtle.importKey('raw', enc.encode(`sharing-link-grant:${secretKey}`), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return toHex(await crypto.subtle.sign('HMAC', key, enc.encode(`${linkId}.${expiry}.${passwordHash}`)));
}

export async function issueGrant(secretKey: string, linkId: string, passwordHash: string, now = Date.now()) {
  const expiry = Math.floor(now / 1000) + GRANT_HOURS * 3600;
  return { grant: `g1.${expiry}.${await mac(secretKey, linkId, expiry, passwordHash)}`, expires_at: new Date(expiry * 1000).toISOString() };
}

export async function grantValid(secretKey: string, linkId: string, passwordHash: string, grant: string | undefined, now = Date.now()): Promise<boolean> {
  const m = /^g1\.(\d{1,12})\.([0-9a-f]{64})$/.exec(grant ?? '');
  if (!m) return false;
  const expiry = Number(m[1]);
  if (expiry * 1000 <= now) return false;
  return timingSafeEqual(await mac(secretKey, linkId, expiry, passwordHash), m[2]!);
}
