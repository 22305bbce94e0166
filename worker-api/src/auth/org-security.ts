/**
 * Organization-wide account security (issue 20, ARCHITECTURE D65–D66), web app only (a session of an
 * administrator; API keys get 403; not in the public OpenAPI document, like D31's `/auth` calls):
 *
 * - `GET /auth/organization/security`: `{require_two_factor, users_without_two_factor}`.
 * - `PUT /auth/organization/security` `{require_two_factor}`: turns the requirement on or off (audited).
 *   Refused while the administrator's own password session has no two-factor authentication.
 * - `POST /auth/users/{id}/two-factor/reset`: removes another user's authenticator app and recovery
 *   codes and ends their sessions (audited); with the requirement on they enrol again at next sign-in.
 * - `GET /auth/audit-log`: the organization's audit log, newest first, filtered by `action`, `actor`
 *   (a user id, an API key id or a user's e-mail), `from`/`to` (ISO date or time; a date alone is a UTC
 *   day, `to` inclusive), paged by `before` (the id of the last entry seen) and `limit` (≤ 200).
 *
 * The rule itself (`mustEnrol`) is applied by authenticate.ts to every session request: a password
 * session of a user without two-factor authentication in an organization that requires it reaches only
 * the enrolment calls (ENROLMENT_ROUTES) until the user has enrolled. Single sign-on sessions are
 * exempt (the identity provider's checks apply, D57); API keys are unaffected.
 */
import { Hono, type Context } from 'hono';
import { and, count, desc, eq, gte, inArray, isNull, lt, lte, or, sql } from 'drizzle-orm';
import { z } from 'zod';
import { ApiError } from '@cairn/core';
import { apiKeys, auditLog, organizations, sessions, signInChallenges, users } from '@cairn/db';
import type { AppEnv } from '../env.ts';
import { readBody } from '../lib/body.ts';
import { fromZod } from '../lib/errors.ts';
import { authenticate } from './authenticate.ts';
import { mustEnrol, requiresTwoFactor } from './two-factor-rule.ts';

/**
 * A wrong password or code of a known account, written after the answer is sent (waitUntil), so the
 * answer takes no longer for a known e-mail than for an unknown one. Unknown e-mails belong to no
 * organization and are not written (the sign-in throttle still counts them).
 */
export function auditFailedSignIn(
  c: Context<AppEnv>,
  user: Pick<typeof users.$inferSelect, 'id' | 'organization_id'>,
  reason: 'password' | 'two_factor_code' | 'recovery_code',
): void {
  const address = c.req.header('cf-connecting-ip');
  const write = c.var.db
    .insert(auditLog)
    .values({
      organization_id: user.organization_id,
      actor_type: 'user',
      actor_id: user.id,
      action: 'sign_in_failed',
      resource_type: 'sessions',
      resource_id: null,
      request_id: c.var.requestId,
      details: { reason, ...(address ? { address } : {}) },
    })
    .then(
      () => undefined,
      (err: unknown) => console.error('failed sign-in not audited', err),
    );
  c.executionCtx.waitUntil(write);
}

export const orgSecurityRoutes = new Hono<AppEnv>();

/** The caller as an administrator signed in to the app; anyone else is refused. */
function adminSession(c: Context<AppEnv>): { org: string; userId: string; sessionId: string } {
  const p = c.var.principal;
  if (p.kind !== 'user') {
    throw new ApiError('forbidden', 'Organization security is managed by an admin signed in to the app (Administration); an API key cannot.', {
      source: { header: 'Authorization' },
    });
  }
  if (p.role !== 'admin') throw new ApiError('forbidden', "Only admins can manage the organization's security settings and read its audit log.");
  return { org: p.organizationId, userId: p.userId, sessionId: p.sessionId };
}

async function securityOf(c: Context<AppEnv>, org: string) {
  const [o] = await c.var.db.select({ settings: organizations.settings }).from(organizations).where(eq(organizations.id, org));
  const [without] = await c.var.db
    .select({ n: count() })
    .from(users)
    .where(
      and(
        eq(users.organization_id, org),
        eq(users.otp_app_enabled, false),
        isNull(users.deactivated_at),
        // Pending invitations have no account yet.
        or(isNull(users.invitation_created_at), sql`${users.invitation_accepted_at} IS NOT NULL`),
      ),
    );
  return { require_two_factor: requiresTwoFactor(o?.settings), users_without_two_factor: without?.n ?? 0 };
}

orgSecurityRoutes.get('/auth/organization/security', authenticate, async (c) => c.json(await securityOf(c, adminSession(c).org)));

const securityBody = z.object({ require_two_factor: z.boolean() }).strict();

orgSecurityRoutes.put('/auth/organization/security', authenticate, async (c) => {
  const { org, userId, sessionId } = adminSession(c);
  const body = await readBody(c, securityBody, 'action');
  if (body.require_two_factor) {
    // The admin would be led to enrolment by the very change: enrol first (an SSO session is exempt).
    const [me] = await c.var.db
      .select({ user: users, session: sessions })
      .from(sessions)
      .innerJoin(users, eq(users.id, sessions.user_id))
      .where(eq(sessions.id, sessionId))
      .limit(1);
    if (me && mustEnrol({ require_two_factor: true }, me.user, me.session)) {
      throw new ApiError('invalid_state', 'require_two_factor: turn on two-factor authentication for your own account first (Personal settings).', {
        source: { pointer: '/require_two_factor' },
      });
    }
  }
  await c.var.db
    .update(organizations)
    .set({ settings: sql`${organizations.settings} || ${JSON.stringify({ require_two_factor: body.require_two_factor })}::jsonb`, updated_at: new Date() })
    .where(eq(organizations.id, org));
  await c.var.db.insert(auditLog).values({
    organization_id: org,
    actor_type: 'user',
    actor_id: userId,
    action: 'update_security_settings',
    resource_type: 'organizations',
    resource_id: org,
    request_id: c.var.requestId,
    details: { require_two_factor: body.require_two_factor },
  });
  return c.json(await securityOf(c, org));
});

orgSecurityRoutes.post('/auth/users/:id/two-factor/reset', authenticate, async (c) => {
  const { org, userId } = adminSession(c);
  const id = c.req.param('id');
  const [target] = await c.var.db
    .select()
    .from(users)
    .where(and(eq(users.id, id), eq(users.organization_id, org)))
    .limit(1);
  // Another organization's user is not found, exactly like one that does not exist.
  if (!target) throw new ApiError('not_found', `No user with id "${id}" in your organization.`, { source: { parameter: 'id' } });
  if (target.id === userId) {
    throw new ApiError('invalid_state', 'Turn off your own two-factor authentication in Personal settings (it asks for a code).', {
      source: { parameter: 'id' },
    });
  }
  if (!target.otp_app_enabled && !target.otp_secret_encrypted) {
    throw new ApiError('invalid_state', 'This user has no two-factor authentication to reset.', { source: { parameter: 'id' } });
  }
  await c.var.db
    .update(users)
    .set({
      otp_app_enabled: false,
      otp_secret_encrypted: null,
      otp_last_step: null,
      otp_recovery_hashes: [],
      updated_at: new Date(),
    })
    .where(eq(users.id, target.id));
  await c.var.db.delete(signInChallenges).where(eq(signInChallenges.user_id, target.id));
  const ended = await c.var.db.delete(sessions).where(eq(sessions.user_id, target.id)).returning({ id: sessions.id });
  await c.var.db.insert(auditLog).values({
    organization_id: org,
    actor_type: 'user',
    actor_id: userId,
    action: 'reset_two_factor',
    resource_type: 'users',
    resource_id: target.id,
    request_id: c.var.requestId,
    details: { email: target.email, sessions_ended: ended.length },
  });
  return c.json({ reset: true, sessions_ended: ended.length });
});

const when = (end: boolean) =>
  z
    .string()
    .max(40)
    .transform((v, ctx) => {
      const dateOnly = /^\d{4}-\d{2}-\d{2}$/.test(v);
      const t = Date.parse(dateOnly ? `${v}T00:00:00Z` : v);
      if (!/^\d{4}-\d{2}-\d{2}/.test(v) || Number.isNaN(t)) {
        ctx.addIssue({ code: 'custom', message: 'is not an ISO 8601 date or time (2026-11-27 or 2026-11-27T10:00:00Z).' });
        return z.NEVER;
      }
      // A date alone as `to` takes in the whole day.
      return new Date(dateOnly && end ? t + 86_400_000 - 1 : t);
    });

const auditQuery = z
  .object({
    action: z
      .string()
      .min(1)
      .max(100)
      .regex(/^[a-z_]+$/, 'is an action name such as sign_in or reset_two_factor.')
      .optional(),
    actor: z.string().min(1).max(320).optional(),
    from: when(false).optional(),
    to: when(true).optional(),
    before: z
      .string()
      .regex(/^[1-9]\d{0,17}$/, 'is the id of an audit log entry.')
      .optional(),
    limit: z
      .string()
      .regex(/^\d{1,3}$/, 'is a number from 1 to 200.')
      .transform(Number)
      .refine((n) => n >= 1 && n <= 200, 'is a number from 1 to 200.')
      .optional(),
  })
  .strict();

orgSecurityRoutes.get('/auth/audit-log', authenticate, async (c) => {
  const { org } = adminSession(c);
  const parsed = auditQuery.safeParse(c.req.query());
  if (!parsed.success) throw fromZod(parsed.error, '', 'parameter');
  const q = parsed.data;
  const limit = q.limit ?? 50;
  const where = [eq(auditLog.organization_id, org)];
  if (q.action) where.push(eq(auditLog.action, q.action));
  if (q.from) where.push(gte(auditLog.created_at, q.from));
  if (q.to) where.push(lte(auditLog.created_at, q.to));
  if (q.before) where.push(lt(auditLog.id, Number(q.before)));
  if (q.actor) {
    // An e-mail names a user of this organization; anything else is taken as an actor id.
    if (q.actor.includes('@')) {
      const [u] = await c.var.db
        .select({ id: users.id })
        .from(users)
        .where(and(eq(users.organization_id, org), eq(sql`lower(${users.email})`, q.actor.toLowerCase())))
        .limit(1);
      where.push(eq(auditLog.actor_id, u?.id ?? ''));
    } else {
      where.push(eq(auditLog.actor_id, q.actor));
    }
  }
  const rows = await c.var.db
    .select()
    .from(auditLog)
    .where(and(...where))
    .orderBy(desc(auditLog.id))
    .limit(limit + 1);
  const page = rows.slice(0, limit);
  // Names of the people and keys in this page (this organization's only).
  const userIds = [...new Set(page.filter((r) => r.actor_type === 'user' && r.actor_id).map((r) => r.actor_id!))];
  const keyIds = [...new Set(page.filter((r) => r.actor_type === 'api_key' && r.actor_id).map((r) => r.actor_id!))];
  const people = userIds.length
    ? await c.var.db
        .select({ id: users.id, email: users.email, firstname: users.firstname, lastname: users.lastname })
        .from(users)
        .where(and(eq(users.organization_id, org), inArray(users.id, userIds)))
    : [];
  const keys = keyIds.length
    ? await c.var.db
        .select({ id: apiKeys.id, name: apiKeys.name })
        .from(apiKeys)
        .where(and(eq(apiKeys.organization_id, org), inArray(apiKeys.id, keyIds)))
    : [];
  const personOf = new Map(people.map((u) => [u.id, u]));
  const keyOf = new Map(keys.map((k) => [k.id, k]));
  return c.json({
    data: page.map((r) => {
      const person = r.actor_type === 'user' && r.actor_id ? personOf.get(r.actor_id) : undefined;
      const key = r.actor_type === 'api_key' && r.actor_id ? keyOf.get(r.actor_id) : undefined;
      const name = person ? [person.firstname, person.lastname].filter(Boolean).join(' ') || person.email : (key?.name ?? null);
      return {
        id: String(r.id),
        created_at: r.created_at.toISOString(),
        action: r.action,
        resource_type: r.resource_type,
        resource_id: r.resource_id,
        actor: { type: r.actor_type, id: r.actor_id, name, email: person?.email ?? null },
        details: r.details ?? {},
        request_id: r.request_id,
      };
    }),
    meta: { limit, next_before: rows.length > limit ? String(page.at(-1)!.id) : null },
  });
});
