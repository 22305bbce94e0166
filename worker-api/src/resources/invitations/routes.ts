import { Hono } from 'hono';
import { z } from 'zod';
import type { AppEnv } from '../../env.ts';
import { readBody } from '../../lib/body.ts';
import { acceptInvitation, describeInvitation, MIN_PASSWORD_LENGTH } from './service.ts';

/**
 * Accepting an invitation (web app only, not part of the public API; no key, no session): the link in
 * the invitation e-mail, `/app/invitation/{token}`, is the app's page, which calls these two.
 * Registered before the authenticate middleware, like the session routes.
 */
export const invitationRoutes = new Hono<AppEnv>();

const acceptBody = z
  .object({
    password: z.string().min(MIN_PASSWORD_LENGTH, `must be at least ${MIN_PASSWORD_LENGTH} characters long.`).max(1024),
    firstname: z.string().trim().min(1, 'is required.').max(100),
    lastname: z.string().trim().max(100).default(''),
  })
  .strict();

invitationRoutes.get('/auth/invitations/:token', async (c) => {
  return c.json(await describeInvitation(c.var.db, c.req.param('token'), c.env));
});

invitationRoutes.post('/auth/invitations/:token', async (c) => {
  const body = await readBody(c, acceptBody, 'action');
  const session = await acceptInvitation(c.var.db, c.req.param('token'), body, {
    requestId: c.var.requestId,
    userAgent: c.req.header('user-agent'),
    env: c.env,
  });
  return c.json(session, 201);
});
