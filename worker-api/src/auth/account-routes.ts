import { Hono, type Context } from 'hono';
import { and, desc, eq, gt, ne } from 'drizzle-orm';
import { z } from 'zod';
import { ApiError, hashPassword, verifyPassword } from '@cairn/core';
import { auditLog, sessions, users } from '@cairn/db';
import { MIN_PASSWORD_LENGTH } from '@cairn/db/seed/organization';
import type { AppEnv } from '../env.ts';
import { readBody } from '../lib/body.ts';
import { errorResponse } from '../lib/errors.ts';
import { authenticate } from './authenticate.ts';
import { publicUser } from './session-start.ts';
import { rateLimiterStub } from '../durable/stubs.ts';

/**
 * Personal settings of the signed-in user (web app only, not part of the public API; a session, never
 * an API key — a key belongs to the organization, not to a person, and gets 403):
 *
 * - `GET /auth/me`, `PATCH /auth/me` `{firstname?, lastname?}`: the user's own name.
 * - `POST /auth/password` `{current_password, new_password}`: 204; the other sessions end. A wrong
 *   current password is a 422 on `/current_password`; 10 wrong ones, then one more every 30 s (429).
 * - `GET /auth/sessions`: the user's sessions that have not expired, the current one marked.
 * - `DELETE /auth/sessions/others`: ends every session but the current one; answers how many ended.
 */
export const accountRoutes = new Hono<AppEnv>();

function sessionUser(c: Context<AppEnv>): { userId: string; sessionId: string } {
  const p = c.var.principal;
  if (p.kind !== 'user') {
    throw new ApiError('forbidden', 'Personal settings belong to a signed-in person; an API key has none. Sign in to the web app to change them.', {
      source: { header: 'Authorization' },
    });
  }
  return { userId: p.userId, sessionId: p.sessionId };
}

async function me(c: Context<AppEnv>, userId: string) {
  const [u] = await c.var.db.select().from(users).where(eq(users.id, userId)).limit(1);
  return { user: { ...publicUser(u!), last_login_at: u!.last_login_at?.toISOString() ?? null } };
}

accountRoutes.get('/auth/me', authenticate, async (c) => c.json(await me(c, sessionUser(c).userId)));

const nameBody = z
  .object({
    firstname: z.string().trim().min(1, 'is required.').max(100).optional(),
    lastname: z.string().trim().max(100).optional(),
  })
  .strict();

accountRoutes.patch('/auth/me', authenticate, async (c) => {
  const { userId } = sessionUser(c);
  const body = await readBody(c, nameBody, 'action');
  const changes = Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined));
  if (Object.keys(changes).length) {
    await c.var.db
      .update(users)
      .set({ ...changes, updated_at: new Date() })
      .where(eq(users.id, userId));
    await c.var.db.insert(auditLog).values({
      organization_id: c.var.principal.organizationId,
      actor_type: 'user',
      actor_id: userId,
      action: 'update',
      resource_type: 'users',
      resource_id: userId,
      request_id: c.var.requestId,
      details: { attributes: Object.keys(changes) },
    });
  }
  return c.json(await me(c, userId));
});

const passwordBody = z
  .object({
    current_password: z.string().min(1, 'is required.').max(1024),
    new_password: z.string().min(MIN_PASSWORD_LENGTH, `must be at least ${MIN_PASSWORD_LENGTH} characters long.`).max(1024),
  })
  .strict();

accountRoutes.post('/auth/password', authenticate, async (c) => {
  const { userId, sessionId } = sessionUser(c);
  const body = await readBody(c, passwordBody, 'action');
  const limiter = rateLimiterStub(c.env, `password:${userId}`);
  // Like sign-in: each attempt takes a token before the password is checked (so a caller out of tokens
  // learns nothing), and a right password gives it back: 10 wrong ones, then one every 30 s.
  const gate = await limiter.take(1 / 30, 10);
  if (!gate.allowed) {
    return errorResponse(c, new ApiError('rate_limited', `Too many wrong passwords; try again in ${gate.retryAfter} s.`), {
      'retry-after': String(gate.retryAfter),
    });
  }
  const [u] = await c.var.db.select().from(users).where(eq(users.id, userId)).limit(1);
  // verifyPassword compares in constant time; an account without a password costs the same PBKDF2.
  const ok = u?.password_hash ? await verifyPassword(body.current_password, u.password_hash) : false;
  if (!ok) throw new ApiError('invalid_attribute', 'current_password: is not your current password.', { source: { pointer: '/current_password' } });
  await limiter.giveBack(1 / 30, 10);
  await c.var.db
    .update(users)
    .set({ password_hash: await hashPassword(body.new_password), updated_at: new Date() })
    .where(eq(users.id, userId));
  await c.var.db.delete(sessions).where(and(eq(sessions.user_id, userId), ne(sessions.id, sessionId)));
  await c.var.db.insert(auditLog).values({
    organization_id: c.var.principal.organizationId,
    actor_type: 'user',
    actor_id: userId,
    action: 'change_password',
    resource_type: 'users',
    resource_id: userId,
    request_id: c.var.requestId,
    details: { attributes: ['password'] },
  });
  return c.body(null, 204);
});

accountRoutes.get('/auth/sessions', authenticate, async (c) => {
  const { userId, sessionId } = sessionUser(c);
  const rows = await c.var.db
    .select()
    .from(sessions)
    .where(and(eq(sessions.user_id, userId), gt(sessions.expires_at, new Date())))
    .orderBy(desc(sessions.created_at));
  return c.json({
    data: rows.map((s) => ({
      // A short part of the stored hash: enough to tell sessions apart, of no use to sign in with.
      id: s.id.slice(0, 12),
      current: s.id === sessionId,
      user_agent: s.user_agent,
      created_at: s.created_at.toISOString(),
      last_seen_at: s.last_seen_at?.toISOString() ?? null,
      expires_at: s.expires_at.toISOString(),
    })),
  });
});

accountRoutes.delete('/auth/sessions/others', authenticate, async (c) => {
  const { userId, sessionId } = sessionUser(c);
  const ended = await c.var.db
    .delete(sessions)
    .where(and(eq(sessions.user_id, userId), ne(sessions.id, sessionId)))
    .returning({ id: sessions.id });
  if (ended.length) {
    await c.var.db.insert(auditLog).values({
      organization_id: c.var.principal.organizationId,
      actor_type: 'user',
      actor_id: userId,
      action: 'end_other_sessions',
      resource_type: 'sessions',
      resource_id: null,
      request_id: c.var.requestId,
      details: { count: ended.length },
    });
  }
  return c.json({ ended: ended.length });
});
