import { Hono } from 'hono';
import { and, eq, gt, isNotNull, isNull, lt, sql } from 'drizzle-orm';
import { z } from 'zod';
import { ApiError, permissionsForRole, regionToken, sha256Hex, tokenRegion, verifyPassword, wrongRegion } from '@cairn/core';
import { organizations, sessions, signInChallenges, users } from '@cairn/db';
import type { AppEnv } from '../env.ts';
import { readBody } from '../lib/body.ts';
import { authenticate } from './authenticate.ts';
import { clientAddress, spendAttempt, type Budget } from './failures.ts';
import { auditFailedSignIn } from './org-security.ts';
import { enrolmentRequiredFor } from './two-factor-rule.ts';
import { publicUser, signedIn } from './session-start.ts';
import { requireSsoRefusal } from './sso/sign-in.ts';
import { CHALLENGE_MINUTES, codeGate, useRecoveryCode, useTotpCode, wrongCode } from './two-factor.ts';

/**
 * Sign-in for the web app (not part of the public API). The app trades e-mail and password for a
 * session token, keeps it in an HttpOnly cookie and sends it back as `Authorization: Session <token>`.
 * Only the SHA-256 of the token is stored.
 *
 * With two-factor authentication on, the right password answers 200 `{two_factor_required: true,
 * challenge, expires_at}` instead: `POST /auth/sessions/two-factor` `{challenge, code | recovery_code}`
 * then starts the session. A challenge lasts 5 minutes and works once; wrong codes are rate-limited.
 */
export const sessionRoutes = new Hono<AppEnv>();

// A hash to compare against when the e-mail is unknown, so both paths cost one PBKDF2.
const DUMMY_HASH = 'pbkdf2$100000$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';

/**
 * Failed sign-ins are counted per e-mail address and client address (10, then one a minute) and per
 * e-mail address from all client addresses together (100, then one every 30 s). A stranger guessing
 * from one address uses up only that address's budget, so the account's owner signs in from anywhere
 * else; the total guesses of a distributed attack stay bounded by the e-mail's budget, which one
 * address alone (one a minute) cannot empty (it refills twice as fast). Only failures count.
 */
const SIGN_IN_PER_ADDRESS = { rate: 1 / 60, burst: 10 };
const SIGN_IN_PER_EMAIL = { rate: 1 / 30, burst: 100 };

const signIn = z.object({ email: z.string().trim().email().max(320), password: z.string().min(1).max(1024) }).strict();

sessionRoutes.post('/auth/sessions', async (c) => {
  const body = await readBody(c, signIn, 'action');
  // Each attempt takes a token of both budgets before the password is checked; a right password gives them back.
  const email = body.email.toLowerCase();
  // Addresses of a domain whose organization requires single sign-on: refused before any password check.
  const ssoOnly = await requireSsoRefusal(c, email);
  if (ssoOnly) throw ssoOnly;
  const address = clientAddress(c.req.header('cf-connecting-ip'));
  const budgets: Budget[] = [{ bucket: `signin:${email}`, ...SIGN_IN_PER_EMAIL }];
  if (address) budgets.push({ bucket: `signin:${email}:${address}`, ...SIGN_IN_PER_ADDRESS });
  const spent = await spendAttempt(c.env.RATE_LIMITER, budgets, 'sign-in attempts');
  const [user] = await c.var.db
    .select()
    .from(users)
    // E-mails keep the case they were given; they are unique (and looked up) case-insensitively.
    // Only accounts with a password: a pending invitation of the same address (in another organization) is not one.
    .where(and(eq(sql`lower(${users.email})`, body.email.toLowerCase()), isNull(users.deactivated_at), isNotNull(users.password_hash)))
    .limit(1);
  const ok = await verifyPassword(body.password, user?.password_hash ?? DUMMY_HASH);
  if (user && !ok) auditFailedSignIn(c, user, 'password');
  if (!user || !ok) throw new ApiError('unauthorized', 'The e-mail or password is not correct.', { meta: { reason: 'invalid_credentials' } });
  await spent.refund();
  // A user of such an organization whose address is outside its domains: after the right password only.
  const orgSsoOnly = await requireSsoRefusal(c, email, user.organization_id);
  if (orgSsoOnly) throw orgSsoOnly;
  // The right password of another region's organization: name that region's server (the web app
  // retries there), and start nothing here.
  const [home] = await c.var.db.select({ region: organizations.region }).from(organizations).where(eq(organizations.id, user.organization_id));
  if (home && home.region !== c.env.REGION) throw wrongRegion(c.env, home.region, c.env.REGION, 'api');
  if (user.otp_app_enabled) {
    // The password was right; the session waits for the code. Old challenges of the user go.
    const challenge = regionToken(c.env.REGION);
    const expires = new Date(Date.now() + CHALLENGE_MINUTES * 60_000);
    await c.var.db.delete(signInChallenges).where(and(eq(signInChallenges.user_id, user.id), lt(signInChallenges.expires_at, new Date())));
    await c.var.db
      .insert(signInChallenges)
      .values({ id: await sha256Hex(challenge), organization_id: user.organization_id, user_id: user.id, expires_at: expires });
    return c.json({ two_factor_required: true, challenge, expires_at: expires.toISOString() });
  }
  return signedIn(c, user);
});

const secondStep = z
  .object({
    challenge: z.string().min(1, 'is required.').max(200),
    code: z.string().trim().max(20).optional(),
    recovery_code: z.string().trim().max(40).optional(),
  })
  .strict();

const challengeGone = () =>
  new ApiError('unauthorized', 'This sign-in has expired or was used; sign in with your password again.', {
    source: { pointer: '/challenge' },
    meta: { reason: 'challenge_expired' },
  });

sessionRoutes.post('/auth/sessions/two-factor', async (c) => {
  const body = await readBody(c, secondStep, 'action');
  if (!body.code && !body.recovery_code) {
    throw new ApiError('missing_attribute', 'code: the code of your authenticator app (or a recovery code) is required.', { source: { pointer: '/code' } });
  }
  // A challenge of the other region's sign-in lives in that region's database (D53).
  const home = tokenRegion(body.challenge);
  if (home && home !== c.env.REGION) throw wrongRegion(c.env, home, c.env.REGION, 'api');
  const id = await sha256Hex(body.challenge);
  const [row] = await c.var.db
    .select({ user: users, region: organizations.region })
    .from(signInChallenges)
    .innerJoin(users, eq(users.id, signInChallenges.user_id))
    .innerJoin(organizations, eq(organizations.id, users.organization_id))
    .where(and(eq(signInChallenges.id, id), gt(signInChallenges.expires_at, new Date()), isNull(users.deactivated_at)))
    .limit(1);
  if (!row) throw challengeGone();
  if (row.region !== c.env.REGION) throw wrongRegion(c.env, row.region, c.env.REGION, 'api');
  const user = row.user;
  const limited = await codeGate(c, user.id);
  if (limited) return limited;
  const used = body.code ? await useTotpCode(c.var.db, c.env.SECRET_KEY, user, body.code) : await useRecoveryCode(c.var.db, user.id, body.recovery_code!);
  if (!used) {
    auditFailedSignIn(c, user, body.code ? 'two_factor_code' : 'recovery_code');
    throw wrongCode(body.code ? 'code' : 'recovery_code');
  }
  // Single use: only the request that deletes the challenge goes on.
  const taken = await c.var.db.delete(signInChallenges).where(eq(signInChallenges.id, id)).returning({ id: signInChallenges.id });
  if (!taken.length) throw challengeGone();
  return signedIn(c, user);
});

sessionRoutes.get('/auth/session', authenticate, async (c) => {
  const p = c.var.principal;
  if (p.kind !== 'user') throw new ApiError('forbidden', 'Only a signed-in user has a session.');
  const [row] = await c.var.db
    .select({ user: users, org: organizations })
    .from(users)
    .innerJoin(organizations, eq(organizations.id, users.organization_id))
    .where(eq(users.id, p.userId));
  return c.json({
    user: publicUser(row!.user),
    organization: { id: row!.org.id, name: row!.org.name, region: row!.org.region, time_zone: row!.org.time_zone },
    permissions: permissionsForRole(row!.user.role).map((g) => g.permission),
    // The organization requires two-factor authentication and this password session has none yet (D65).
    two_factor_enrolment_required: await enrolmentRequiredFor(c.var.db, row!.org, row!.user, p.sessionId),
  });
});

sessionRoutes.delete('/auth/session', authenticate, async (c) => {
  const p = c.var.principal;
  if (p.kind !== 'user') throw new ApiError('forbidden', 'Only a signed-in user has a session.');
  await c.var.db.delete(sessions).where(eq(sessions.id, p.sessionId));
  return c.body(null, 204);
});
