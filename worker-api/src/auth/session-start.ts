import { regionToken, sha256Hex, type Region } from '@cairn/core';
import { sessions, type users } from '@cairn/db';
import type { PooledDb } from '../lib/db.ts';

/** Web-app sessions last this long, whether started by signing in or by accepting an invitation. */
export const SESSION_DAYS = 14;

/**
 * Starts a web-app session for a user: a random token for the cookie, of which only the SHA-256 is
 * stored. Used by `POST /auth/sessions` (sign-in) and `POST /auth/invitations/{token}` (acceptance).
 */
export async function startSession(
  db: PooledDb, user: Pick<typeof users.$inferSelect, 'id' | 'organization_id'>, userAgent: string | undefined, region: Region,
  method: 'password' | 'invitation' | 'oidc' | 'saml' = 'password',
) {
  // `<region>_<48 characters>`: any region's server knows where the session lives (D53).
  const token = regionToken(region);
  const expires = new Date(Date.now() + SESSION_DAYS * 86_400_000);
  await db.insert(sessions).values({
    id: await sha256Hex(token), organization_id: user.organization_id, user_id: user.id, expires_at: expires,
    user_agent: userAgent?.slice(0, 300) ?? null, sign_in_method: method,
  });
  return { token, expires };
}

/** The user as a session answer shows it. */
export function publicUser(u: Pick<typeof users.$inferSelect, 'id' | 'email' | 'firstname' | 'lastname' | 'role'>) {
  return { id: u.id, email: u.email, firstname: u.firstname, lastname: u.lastname, role: u.role };
}
