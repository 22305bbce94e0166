import type { Context } from 'hono';
import { eq } from 'drizzle-orm';
import { regionToken, sha256Hex, type Region } from '@cairn/core';
import { auditLog, organizations, sessions, users } from '@cairn/db';
import type { AppEnv } from '../env.ts';
import type { PooledDb } from '../lib/db.ts';

/** Web-app sessions last this long, whether started by signing in or by accepting an invitation. */
const SESSION_DAYS = 14;

/**
 * Starts a web-app session for a user: a random token for the cookie, of which only the SHA-256 is
 * stored. Used by `POST /auth/sessions` (sign-in) and `POST /auth/invitations/{token}` (acceptance).
 */
export async function startSession(
  db: PooledDb,
  user: Pick<typeof users.$inferSelect, 'id' | 'organization_id'>,
  userAgent: string | undefined,
  region: Region,
  method: 'password' | 'invitation' | 'oidc' | 'saml' = 'password',
) {
  // `<region>_<48 characters>`: any region's server knows where the session lives (D53).
  const token = regionToken(region);
  const expires = new Date(Date.now() + SESSION_DAYS * 86_400_000);
  await db.insert(sessions).values({
    id: await sha256Hex(token),
    organization_id: user.organization_id,
    user_id: user.id,
    expires_at: expires,
    user_agent: userAgent?.slice(0, 300) ?? null,
    sign_in_method: method,
  });
  return { token, expires };
}

/** The user as a session answer shows it. */
export function publicUser(u: Pick<typeof users.$inferSelect, 'id' | 'email' | 'firstname' | 'lastname' | 'role'>) {
  return { id: u.id, email: u.email, firstname: u.firstname, lastname: u.lastname, role: u.role };
}

/** Starts the session of a user who proved who they are (password and code, or single sign-on) and answers it. */
export async function signedIn(
  c: Context<AppEnv>,
  user: typeof users.$inferSelect,
  method: 'password' | 'oidc' | 'saml' = 'password',
  extra: Record<string, unknown> = {},
) {
  const { token, expires } = await startSession(c.var.db, user, c.req.header('user-agent'), c.env.REGION, method);
  await c.var.db.update(users).set({ last_login_at: new Date() }).where(eq(users.id, user.id));
  await c.var.db.insert(auditLog).values({
    organization_id: user.organization_id,
    actor_type: 'user',
    actor_id: user.id,
    action: 'sign_in',
    resource_type: 'sessions',
    resource_id: null,
    request_id: c.var.requestId,
    details: { method },
  });
  const [org] = await c.var.db.select().from(organizations).where(eq(organizations.id, user.organization_id));
  return c.json(
    {
      token,
      expires_at: expires.toISOString(),
      user: publicUser(user),
      organization: { id: org!.id, name: org!.name, region: org!.region },
      ...extra,
    },
    201,
  );
}
