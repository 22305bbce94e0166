import { Hono, type Context } from 'hono';
import { eq } from 'drizzle-orm';
import { z } from 'zod';
import { ApiError, newTotpSecret, otpauthUri, verifyPassword } from '@cairn/core';
import { auditLog, signInChallenges, users } from '@cairn/db';
import type { AppEnv } from '../env.ts';
import { readBody } from '../lib/body.ts';
import { authenticate } from './authenticate.ts';
import { codeGate, newRecoveryCodes, sealTotpSecret, useRecoveryCode, useTotpCode, wrongCode } from './two-factor.ts';

/**
 * Two-factor authentication of the signed-in user (web app only; a session, never an API key):
 *
 * - `GET /auth/two-factor`: `{enabled, pending, recovery_codes_left}`.
 * - `POST /auth/two-factor`: starts an enrolment — a new secret, not active yet (a pending one is
 *   replaced); answers `{secret, otpauth_uri}`. 409 when two-factor authentication is on already.
 * - `POST /auth/two-factor/confirm` `{code}`: a code of the new secret turns it on; answers the 10
 *   recovery codes, shown this once (only their hashes are kept). A wrong code is a 422 on `/code`.
 * - `POST /auth/two-factor/disable` `{current_password, code | recovery_code}`: 204; turns it off.
 *
 * Codes are rate-limited per user (two-factor.ts codeGate).
 */
export const twoFactorRoutes = new Hono<AppEnv>();

function sessionUserId(c: Context<AppEnv>): string {
  const p = c.var.principal;
  if (p.kind !== 'user') {
    throw new ApiError('forbidden', 'Two-factor authentication belongs to a signed-in person; an API key has none. Sign in to the web app to change it.', {
      source: { header: 'Authorization' },
    });
  }
  return p.userId;
}

async function loadUser(c: Context<AppEnv>, userId: string) {
  const [u] = await c.var.db.select().from(users).where(eq(users.id, userId)).limit(1);
  return u!;
}

const audit = (c: Context<AppEnv>, userId: string, action: string) =>
  c.var.db.insert(auditLog).values({
    organization_id: c.var.principal.organizationId,
    actor_type: 'user',
    actor_id: userId,
    action,
    resource_type: 'users',
    resource_id: userId,
    request_id: c.var.requestId,
    details: { attributes: ['otp_app_enabled'] },
  });

twoFactorRoutes.get('/auth/two-factor', authenticate, async (c) => {
  const u = await loadUser(c, sessionUserId(c));
  return c.json({
    enabled: u.otp_app_enabled,
    pending: !u.otp_app_enabled && Boolean(u.otp_secret_encrypted),
    recovery_codes_left: u.otp_app_enabled ? u.otp_recovery_hashes.length : 0,
  });
});

twoFactorRoutes.post('/auth/two-factor', authenticate, async (c) => {
  const u = await loadUser(c, sessionUserId(c));
  if (u.otp_app_enabled) throw new ApiError('conflict', 'Two-factor authentication is on already; turn it off first to set up another app.');
  const secret = newTotpSecret();
  await c.var.db
    .update(users)
    .set({
      otp_secret_encrypted: await sealTotpSecret(secret, u.id, c.env.SECRET_KEY),
      otp_last_step: null,
      otp_recovery_hashes: [],
      updated_at: new Date(),
    })
    .where(eq(users.id, u.id));
  return c.json({ secret, otpauth_uri: otpauthUri({ secret, account: u.email, issuer: 'Cairn' }) }, 201);
});

const codeBody = z.object({ code: z.string().trim().min(1, 'is required.').max(20) }).strict();

twoFactorRoutes.post('/auth/two-factor/confirm', authenticate, async (c) => {
  const userId = sessionUserId(c);
  const body = await readBody(c, codeBody, 'action');
  const u = await loadUser(c, userId);
  if (u.otp_app_enabled) throw new ApiError('conflict', 'Two-factor authentication is on already.');
  if (!u.otp_secret_encrypted) throw new ApiError('invalid_state', 'Start setting up two-factor authentication first (POST /auth/two-factor).');
  const limited = await codeGate(c, userId);
  if (limited) return limited;
  if (!(await useTotpCode(c.var.db, c.env.SECRET_KEY, u, body.code))) throw wrongCode('code');
  const { codes, hashes } = await newRecoveryCodes();
  await c.var.db.update(users).set({ otp_app_enabled: true, otp_recovery_hashes: hashes, updated_at: new Date() }).where(eq(users.id, userId));
  await audit(c, userId, 'enable_two_factor');
  return c.json({ enabled: true, recovery_codes: codes });
});

const disableBody = z
  .object({
    current_password: z.string().min(1, 'is required.').max(1024),
    code: z.string().trim().max(20).optional(),
    recovery_code: z.string().trim().max(40).optional(),
  })
  .strict();

twoFactorRoutes.post('/auth/two-factor/disable', authenticate, async (c) => {
  const userId = sessionUserId(c);
  const body = await readBody(c, disableBody, 'action');
  const u = await loadUser(c, userId);
  if (!u.otp_app_enabled) throw new ApiError('invalid_state', 'Two-factor authentication is not on.');
  if (!body.code && !body.recovery_code) {
    throw new ApiError('missing_attribute', 'code: a code of your authenticator app (or a recovery code) is required.', { source: { pointer: '/code' } });
  }
  const limited = await codeGate(c, userId);
  if (limited) return limited;
  const ok = u.password_hash ? await verifyPassword(body.current_password, u.password_hash) : false;
  if (!ok) throw new ApiError('invalid_attribute', 'current_password: is not your current password.', { source: { pointer: '/current_password' } });
  const used = body.code ? await useTotpCode(c.var.db, c.env.SECRET_KEY, u, body.code) : await useRecoveryCode(c.var.db, userId, body.recovery_code!);
  if (!used) throw wrongCode(body.code ? 'code' : 'recovery_code');
  await c.var.db
    .update(users)
    .set({
      otp_app_enabled: false,
      otp_secret_encrypted: null,
      otp_last_step: null,
      otp_recovery_hashes: [],
      updated_at: new Date(),
    })
    .where(eq(users.id, userId));
  await c.var.db.delete(signInChallenges).where(eq(signInChallenges.user_id, userId));
  await audit(c, userId, 'disable_two_factor');
  return c.body(null, 204);
});
