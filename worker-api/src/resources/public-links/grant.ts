/**
 * After the right password, a sharing link hands out a grant: a short-lived token that stands for
 * "this browser knew the password of this link". The app keeps it in an HttpOnly cookie scoped to
 * the link's path and sends it back with every call (header Cairn-Link-Grant).
 *
 * A grant is signed claims of purpose `link-grant` (core/src/claims.ts, D70) naming the link, with the
 * link's stored password hash as the key's context: setting a new password (or removing it and setting
 * one again) voids every grant at once.
 */
import { signClaims, verifyClaims } from '@cairn/core';

const GRANT_HOURS = 8;

export async function issueGrant(secretKey: string, linkId: string, passwordHash: string, now = Date.now()) {
  const exp = Math.floor(now / 1000) + GRANT_HOURS * 3600;
  const grant = await signClaims('link-grant', { link: linkId }, secretKey, { exp, context: passwordHash });
  return { grant, expires_at: new Date(exp * 1000).toISOString() };
}

export async function grantValid(secretKey: string, linkId: string, passwordHash: string, grant: string | undefined, now = Date.now()): Promise<boolean> {
  if (!grant || grant.length > 2000) return false;
  const checked = await verifyClaims<{ link?: unknown }>('link-grant', grant, secretKey, { context: passwordHash, now });
  return checked.ok && checked.claims.link === linkId;
}
