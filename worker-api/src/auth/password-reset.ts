import { and, eq, isNotNull, isNull, ne, sql } from 'drizzle-orm';
import { ApiError, hashPassword, randomString, sha256Hex, timingSafeEqual, tokenRegion, wrongRegion, type Region } from '@cairn/core';
import { auditLog, organizations, passwordResets, sessions, users } from '@cairn/db';
import { MIN_PASSWORD_LENGTH } from '@cairn/db/seed/organization';
import type { PooledDb } from '../lib/db.ts';
import type { Env } from '../env.ts';

/**
 * Password reset links. A token is `<id><secret>`: 16 characters naming the row, then 40 secret ones.
 * The row keeps only the SHA-256 of the secret, compared in constant time; an unknown id costs the
 * same digest and comparison as a wrong secret. A link works once and for RESET_MINUTES.
 */
export const RESET_MINUTES = 60;
const ID_LENGTH = 16;
const SECRET_LENGTH = 40;
/** `<region>_` (D53; links sent before carry none), then the id and the secret. */
const TOKEN_SHAPE = new RegExp(`^(?:(?:eu|us)_)?[0-9A-Za-z]{${ID_LENGTH + SECRET_LENGTH}}$`);
const DUMMY_HASH = '0'.repeat(64);

export { MIN_PASSWORD_LENGTH };

type Db = PooledDb;

/** The token's two parts, or null when it does not have the shape of one. */
function splitResetToken(token: string): { id: string; secret: string } | null {
  if (!TOKEN_SHAPE.test(token)) return null;
  const bare = token.replace(/^(eu|us)_/, '');
  return { id: bare.slice(0, ID_LENGTH), secret: bare.slice(ID_LENGTH) };
}

/** The active user (signed in with a password before) of an e-mail address, with the organization name. */
export async function resettableUser(db: Db, email: string) {
  const [row] = await db
    .select({ user: users, organization: organizations.name })
    .from(users)
    .innerJoin(organizations, eq(organizations.id, users.organization_id))
    .where(and(eq(sql`lower(${users.email})`, email.toLowerCase()), isNull(users.deactivated_at), isNotNull(users.password_hash)))
    .limit(1);
  return row;
}

/** A new link for `user`; links sent before stop working. Answers the token (it exists only in the e-mail). */
export async function issueResetToken(db: Db, user: { id: string; organization_id: string }, now = Date.now(), region?: Region): Promise<string> {
  const id = randomString(ID_LENGTH);
  const secret = randomString(SECRET_LENGTH);
  await db.delete(passwordResets).where(eq(passwordResets.user_id, user.id));
  await db.insert(passwordResets).values({
    id,
    organization_id: user.organization_id,
    user_id: user.id,
    token_hash: await sha256Hex(secret),
    expires_at: new Date(now + RESET_MINUTES * 60_000),
  });
  // The link names the region whose database holds it, so the other region's server sends it on (D53).
  return `${region ? `${region}_` : ''}${id}${secret}`;
}

const invalidLink = () =>
  new ApiError('not_found', 'This password reset link is not valid: it was mistyped, or a newer link replaced it. Ask for a new one on the sign-in page.', {
    source: { parameter: 'token' },
    meta: { reason: 'reset_invalid' },
  });
const usedLink = () =>
  new ApiError('invalid_state', 'This password reset link was already used. Ask for a new one on the sign-in page if you need to.', {
    source: { parameter: 'token' },
    meta: { reason: 'reset_used' },
  });

/** The pending reset of `token`, or 404 (unknown, forged) / 422 (used, expired). */
export async function findReset(db: Db, token: string, env: Pick<Env, 'REGION'>, now = Date.now()) {
  const parts = splitResetToken(token);
  if (!parts) throw invalidLink();
  const home = tokenRegion(token);
  if (home && home !== env.REGION) throw wrongRegion(env, home, env.REGION, 'api');
  const [row] = await db
    .select({ reset: passwordResets, user: users, region: organizations.region })
    .from(passwordResets)
    .innerJoin(users, eq(users.id, passwordResets.user_id))
    .innerJoin(organizations, eq(organizations.id, users.organization_id))
    .where(eq(passwordResets.id, parts.id))
    .limit(1);
  const hash = await sha256Hex(parts.secret);
  const matches = timingSafeEqual(hash, row?.reset.token_hash ?? DUMMY_HASH);
  if (!row || !matches || row.user.deactivated_at) throw invalidLink();
  // The link is the credential: another region's user is sent to that region's server (D33).
  if (row.region !== env.REGION) throw wrongRegion(env, row.region, env.REGION, 'api');
  if (row.reset.used_at) throw usedLink();
  if (row.reset.expires_at.getTime() <= now) {
    throw new ApiError('invalid_state', `This password reset link expired ${RESET_MINUTES} minutes after it was sent. Ask for a new one on the sign-in page.`, {
      source: { parameter: 'token' },
      meta: { reason: 'reset_expired' },
    });
  }
  return row;
}

/** GET /auth/password-resets/{token}: what the reset page shows before the new password is chosen. */
export async function describeReset(db: Db, token: string, env: Pick<Env, 'REGION'>) {
  const { reset, user } = await findReset(db, token, env);
  return { email: user.email, expires_at: reset.expires_at.toISOString(), min_password_length: MIN_PASSWORD_LENGTH };
}

/**
 * POST /auth/password-resets/{token}: sets the new password, ends every session of the user and the
 * link. The link is claimed first with a conditional update, so two submissions cannot both win.
 */
export async function completeReset(db: Db, token: string, password: string, meta: { requestId: string; env: Pick<Env, 'REGION'> }) {
  const { reset, user } = await findReset(db, token, meta.env);
  const now = new Date();
  const [claimed] = await db
    .update(passwordResets)
    .set({ used_at: now })
    .where(and(eq(passwordResets.id, reset.id), isNull(passwordResets.used_at)))
    .returning({ id: passwordResets.id });
  if (!claimed) throw usedLink();
  await db
    .update(users)
    .set({ password_hash: await hashPassword(password), updated_at: now })
    .where(eq(users.id, user.id));
  await db.delete(sessions).where(eq(sessions.user_id, user.id));
  await db.delete(passwordResets).where(and(eq(passwordResets.user_id, user.id), ne(passwordResets.id, reset.id)));
  await db.insert(auditLog).values({
    organization_id: user.organization_id,
    actor_type: 'user',
    actor_id: user.id,
    action: 'reset_password',
    resource_type: 'users',
    resource_id: user.id,
    request_id: meta.requestId,
    details: { attributes: ['password'] },
  });
}
