import { and, eq, isNotNull, isNull, ne, or, sql } from 'drizzle-orm';
import { ApiError, hashPassword, sha256Hex, tokenRegion, wrongRegion } from '@cairn/core';
import { auditLog, organizations, users } from '@cairn/db';
import { MIN_PASSWORD_LENGTH } from '@cairn/db/seed/organization';
import { pgErrorCode } from '@cairn/db/seed/audit';
import type { PooledDb } from '../../lib/db.ts';
import type { Env } from '../../env.ts';
import { publicUser, startSession } from '../../auth/session-start.ts';

/** An invitation link works for this long after it was sent (resending starts the time again). */
const INVITATION_DAYS = 14;
/** Shortest password the API accepts: the same rule as for the first admin of a new organization. */
export { MIN_PASSWORD_LENGTH };

/** `<region>_<random>` (D53), or a random token of before regions had their own databases. */
const TOKEN_SHAPE = /^(?:(?:eu|us)_)?[0-9A-Za-z]{20,100}$/;

type Db = PooledDb;
type UserRow = typeof users.$inferSelect;

const addressTaken = () =>
  new ApiError(
    'conflict',
    'This e-mail address already has a Cairn account, and an address belongs to one account. Sign in with it, or ask to be invited under another address.',
    {
      source: { parameter: 'token' },
      meta: { reason: 'email_has_account' },
    },
  );

const unknownInvitation = () =>
  new ApiError(
    'not_found',
    'This invitation link is not valid: it was already used, revoked or replaced by a newer one. Ask an admin of your organization to resend the invitation.',
    {
      source: { parameter: 'token' },
    },
  );

/** The pending invitation of `token`, or a 404 (unknown, used, revoked, replaced) / 422 (expired). */
async function findInvitation(db: Db, token: string, env: Env, now = Date.now()): Promise<{ user: UserRow; organization: typeof organizations.$inferSelect }> {
  if (!TOKEN_SHAPE.test(token)) throw unknownInvitation();
  // A link of the other region: its database holds the invitation, not this one (D53).
  const home = tokenRegion(token);
  if (home && home !== env.REGION) throw wrongRegion(env, home, env.REGION, 'api');
  const [row] = await db
    .select({ user: users, organization: organizations })
    .from(users)
    .innerJoin(organizations, eq(organizations.id, users.organization_id))
    .where(and(eq(users.invitation_token_hash, await sha256Hex(token)), isNull(users.invitation_accepted_at), isNull(users.deactivated_at)))
    .limit(1);
  if (!row) throw unknownInvitation();
  // The token is the credential: an invitation of the other region's organization names its server.
  if (row.organization.region !== env.REGION) throw wrongRegion(env, row.organization.region, env.REGION, 'api');
  const sent = row.user.invitation_created_at?.getTime() ?? 0;
  if (now - sent > INVITATION_DAYS * 86_400_000) {
    throw new ApiError('invalid_state', `This invitation expired ${INVITATION_DAYS} days after it was sent. Ask an admin of your organization to resend it.`, {
      source: { parameter: 'token' },
      meta: { reason: 'invitation_expired' },
    });
  }
  return row;
}

async function inviterName(db: Db, user: UserRow): Promise<string | null> {
  if (!user.invited_by_user_id) return null;
  const [u] = await db
    .select({ firstname: users.firstname, lastname: users.lastname, email: users.email })
    .from(users)
    .where(and(eq(users.id, user.invited_by_user_id), eq(users.organization_id, user.organization_id)))
    .limit(1);
  return u ? `${u.firstname} ${u.lastname}`.trim() || u.email : null;
}

/** GET /auth/invitations/{token}: what the acceptance page shows before the invitee chooses a password. */
export async function describeInvitation(db: Db, token: string, env: Env) {
  const { user, organization } = await findInvitation(db, token, env);
  return {
    email: user.email,
    firstname: user.firstname,
    lastname: user.lastname,
    role: user.role,
    organization: { name: organization.name, region: organization.region },
    invited_by: await inviterName(db, user),
    invitation_created_at: user.invitation_created_at?.toISOString() ?? null,
    expires_at: new Date((user.invitation_created_at?.getTime() ?? 0) + INVITATION_DAYS * 86_400_000).toISOString(),
    min_password_length: MIN_PASSWORD_LENGTH,
  };
}

/**
 * POST /auth/invitations/{token}: the invitee sets their name and password; the account becomes
 * active, the token stops working, and the answer is a signed-in session (as POST /auth/sessions).
 * The update is conditional on the token still being pending, so two submissions cannot both win.
 */
export async function acceptInvitation(
  db: Db,
  token: string,
  input: { password: string; firstname: string; lastname: string },
  meta: { requestId: string; userAgent?: string; env: Env },
) {
  const { user, organization } = await findInvitation(db, token, meta.env);
  const now = new Date();
  // An address belongs to one account: an invitation of an address that has one elsewhere cannot be
  // taken. Told here, to whoever holds the invitation e-mail, never to the inviter.
  const [other] = await db
    .select({ id: users.id })
    .from(users)
    .where(
      and(
        sql`lower(${users.email}) = ${user.email.toLowerCase()}`,
        ne(users.id, user.id),
        or(isNull(users.invitation_created_at), isNotNull(users.invitation_accepted_at)),
      ),
    )
    .limit(1);
  if (other) throw addressTaken();
  const [done] = await db
    .update(users)
    .set({
      password_hash: await hashPassword(input.password),
      firstname: input.firstname,
      lastname: input.lastname,
      invitation_accepted_at: now,
      invitation_token_hash: null,
      last_login_at: now,
      updated_at: now,
    })
    .where(and(eq(users.id, user.id), eq(users.invitation_token_hash, user.invitation_token_hash!), isNull(users.invitation_accepted_at)))
    .returning()
    // The same, when the other account was made at this very moment (users_email_unique).
    .catch((err: unknown) => {
      if (pgErrorCode(err) === '23505') throw addressTaken();
      throw err;
    });
  if (!done) throw unknownInvitation();
  const session = await startSession(db, done, meta.userAgent, meta.env.REGION, 'invitation');
  await db.insert(auditLog).values({
    organization_id: done.organization_id,
    actor_type: 'user',
    actor_id: done.id,
    action: 'accept_invitation',
    resource_type: 'users',
    resource_id: done.id,
    request_id: meta.requestId,
    details: { attributes: ['firstname', 'lastname', 'password'] },
  });
  return {
    token: session.token,
    expires_at: session.expires.toISOString(),
    user: publicUser(done),
    organization: { id: organization.id, name: organization.name, region: organization.region },
  };
}
