import { Hono } from 'hono';
import { z } from 'zod';
import { ApiError } from '@cairn/core';
import type { AppEnv } from '../env.ts';
import { readBody } from '../lib/body.ts';
import { errorResponse } from '../lib/errors.ts';
import { createMailer, mailUnavailable } from '../mail/mailer.ts';
import { requireSsoRefusal } from './sso/sign-in.ts';
import { passwordResetLink, passwordResetMessage } from '../mail/password-reset.ts';
import { completeReset, describeReset, findReset, issueResetToken, MIN_PASSWORD_LENGTH, RESET_MINUTES, resettableUser } from './password-reset.ts';
import { rateLimiterStub } from '../durable/stubs.ts';

/**
 * "Forgot password?" (web app only, not part of the public API; no key, no session). Registered before
 * the authenticate middleware, like the session routes.
 *
 * - `POST /auth/password-resets` `{email}`: always 202 with the same answer, whether or not an account
 *   uses the address (no account enumeration); for an active user, an e-mail with a one-time link
 *   `/app/reset-password/{token}` that works for RESET_MINUTES. 3 requests per address, then one
 *   every 10 minutes (429 with Retry-After).
 * - `GET /auth/password-resets/{token}`: the address and expiry the page shows; 404 for an unknown or
 *   forged link, 422 (`meta.reason` reset_used / reset_expired) for a used or expired one.
 * - `POST /auth/password-resets/{token}` `{password}`: sets it, ends every session of the user and the
 *   link; 204.
 */
export const passwordResetRoutes = new Hono<AppEnv>();

export const RESET_REQUESTED =
  'If an active Cairn account uses this address, an e-mail with a link to choose a new password is on its way. The link works once, for 60 minutes.';

const requestBody = z.object({ email: z.string().trim().email().max(320) }).strict();
const completeBody = z
  .object({
    password: z.string().min(MIN_PASSWORD_LENGTH, `must be at least ${MIN_PASSWORD_LENGTH} characters long.`).max(1024),
  })
  .strict();

passwordResetRoutes.post('/auth/password-resets', async (c) => {
  const body = await readBody(c, requestBody, 'action');
  const email = body.email.toLowerCase();
  // Per address, known or not (so the limit tells nothing either): 3 requests, then one every 10 minutes.
  const limiter = rateLimiterStub(c.env, `password-reset:${email}`);
  const gate = await limiter.take(1 / 600, 3);
  if (!gate.allowed) {
    return errorResponse(c, new ApiError('rate_limited', `Too many password reset requests for this address; try again in ${gate.retryAfter} s.`), {
      'retry-after': String(gate.retryAfter),
    });
  }
  // A domain whose organization requires single sign-on: no password to reset, and the answer says so
  // (it is about the domain, not about an account). A member outside its domains gets the usual answer, no mail.
  const ssoOnly = await requireSsoRefusal(c, email);
  if (ssoOnly) throw ssoOnly;
  const found = await resettableUser(c.var.db, email);
  if (found && !(await requireSsoRefusal(c, email, found.user.organization_id))) {
    const token = await issueResetToken(c.var.db, found.user, Date.now(), c.env.REGION);
    const link = passwordResetLink(c.env.APP_URL, token);
    if (!link) console.warn('password reset e-mail not sent: APP_URL is not set, so there is no link to send');
    else if (!mailUnavailable(c.env)) {
      const message = passwordResetMessage({
        to: found.user.email,
        firstname: found.user.firstname || undefined,
        organization: found.organization,
        link,
        minutes: RESET_MINUTES,
      });
      // Sent after the answer, so its time does not tell whether the address has an account.
      c.executionCtx.waitUntil(
        createMailer(c.env)
          .sendMail(message)
          .then((r) => {
            if (!r.sent) console.warn(`password reset e-mail not sent: ${r.reason}`);
          }),
      );
    }
  }
  return c.json({ message: RESET_REQUESTED }, 202);
});

passwordResetRoutes.get('/auth/password-resets/:token', async (c) => {
  return c.json(await describeReset(c.var.db, c.req.param('token'), c.env));
});

passwordResetRoutes.post('/auth/password-resets/:token', async (c) => {
  const body = await readBody(c, completeBody, 'action');
  const { user } = await findReset(c.var.db, c.req.param('token'), c.env);
  const ssoOnly = await requireSsoRefusal(c, user.email, user.organization_id);
  if (ssoOnly) throw ssoOnly;
  await completeReset(c.var.db, c.req.param('token'), body.password, { requestId: c.var.requestId, env: c.env });
  return c.body(null, 204);
});
