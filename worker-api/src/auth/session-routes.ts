import { Hono } from 'hono';
import { and, eq, isNull, sql } from 'drizzle-orm';
import { z } from 'zod';
import { ApiError, permissionsForRole, verifyPassword } from '@cairn/core';
import { auditLog, organizations, sessions, users } from '@cairn/db';
import type { AppEnv } from '../env.ts';
import { readBody } from '../lib/body.ts';
import { errorResponse } from '../lib/errors.ts';
import { authenticate } from './authenticate.ts';
import { publicUser, startSession } from './session-start.ts';

/**
 * Sign-in for the web app (not part of the public API). The app trades e-mail and password for a
 * session token, keeps it in an HttpOnly cookie and sends it back as `Authorization: Session <token>`.
 * Only the SHA-256 of the token is stored.
 */
export const sessionRoutes = new Hono<AppEnv>();

// A hash to compare against when the e-mail is unknown, so both paths cost one PBKDF2.
const DUMMY_HASH = 'pbkdf2$100000$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';

const signIn = z.object({ email: z.string().trim().email().max(320), password: z.string().min(1).max(1024) }).strict();

sessionRoutes.post('/auth/sessions', async (c) => {
  const body = await readBody(c, signIn, 'action');
  // Password guessing is slowed per e-mail address: 10 attempts, then one more every 30 s.
  const limiter = c.env.RATE_LIMITER.get(c.env.RATE_LIMITER.idFromName(`ratelimit::signin:${body.email.toLowerCase()}`));
  const gate = await limiter.take(1 / 30, 10);
  if (!gate.allowed) {
    return errorResponse(c, new ApiError('rate_limited', `Too many sign-in attempts; try again in ${gate.retryAfter} s.`), {
      'retry-after': String(gate.retryAfter),
    });
  }
  const [user] = await c.var.db.select().from(users)
    // E-mails keep the case they were given; they are unique (and looked up) case-insensitively.
    .where(and(eq(sql`lower(${users.email})`, body.email.toLowerCase()), isNull(users.deactivated_at))).limit(1);
  const ok = await verifyPassword(body.password, user?.password_hash ?? DUMMY_HASH);
  if (!user || !ok) throw new ApiError('unauthorized', 'The e-mail or password is not correct.', { meta: { reason: 'invalid_credentials' } });
  const { token, expires } = await startSession(c.var.db, user, c.req.header('user-agent'));
  await c.var.db.update(users).set({ last_login_at: new Date() }).where(eq(users.id, user.id));
  await c.var.db.insert(auditLog).values({
    organization_id: user.organization_id, actor_type: 'user', actor_id: user.id, action: 'sign_in',
    resource_type: 'sessions', resource_id: null, request_id: c.var.requestId,
  });
  const [org] = await c.var.db.select().from(organizations).where(eq(organizations.id, user.organization_id));
  return c.json({
    token,
    expires_at: expires.toISOString(),
    user: publicUser(user),
    organization: { id: org!.id, name: org!.name, region: org!.region },
  }, 201);
});

sessionRoutes.get('/auth/session', authenticate, async (c) => {
  const p = c.var.principal;
  if (p.kind !== 'user') throw new ApiError('forbidden', 'Only a signed-in user has a session.');
  const [row] = await c.var.db.select({ user: users, org: organizations }).from(users)
    .innerJoin(organizations, eq(organizations.id, users.organization_id)).where(eq(users.id, p.userId));
  return c.json({
    user: publicUser(row!.user),
    organization: { id: row!.org.id, name: row!.org.name, region: row!.org.region, time_zone: row!.org.time_zone },
    permissions: permissionsForRole(row!.user.role).map((g) => g.permission),
  });
});

sessionRoutes.delete('/auth/session', authenticate, async (c) => {
  const p = c.var.principal;
  if (p.kind !== 'user') throw new ApiError('forbidden', 'Only a signed-in user has a session.');
  await c.var.db.delete(sessions).where(eq(sessions.id, p.sessionId));
  return c.body(null, 204);
});

