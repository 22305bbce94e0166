import { OpenAPIHono, createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { AppEnv } from '../../env.ts';
import { serviceContext } from '../../lib/context.ts';
import { parseInclude, parseListQuery, sendDocument, sendList } from '../../lib/jsonapi.ts';
import { readBody } from '../../lib/body.ts';
import { readResourceBody, resourceRequestSchema } from '../../lib/resource-body.ts';
import { defineRoute } from '../../lib/routes.ts';
import { sortFields } from '../../lib/list.ts';
import { actionBody, errorResponses, idParam, includeQuery, jsonApiBody, listDocument, noContent, oneDocument, listQuery } from '../../lib/openapi.ts';
import { mailMeta, type MailResult } from '../../mail/index.ts';
import { activateBody, inviteBody, User, USER_INCLUDES, userBody } from './schema.ts';
import { activateUser, deactivateUser, getUser, inviteUser, listUsers, resendInvitation, revokeInvitation, updateUser, USER_LIST } from './service.ts';

export const userRoutes = new OpenAPIHono<AppEnv>();

// The invitation e-mail: reported in meta.mail of the invite answer, in headers of the (bodiless) resend answer.
const mailStatus = z
  .object({
    sent: z.boolean(),
    reason: z.string().optional().openapi({ description: 'Why the e-mail was not sent (no mail server configured, a refused address…).' }),
  })
  .openapi('InvitationMailStatus');
const invitedDocument = {
  description: 'The invited user. `meta.mail` says whether the invitation e-mail was sent; the invitation stands either way (resend it later).',
  content: { 'application/vnd.api+json': { schema: z.object({ data: User, meta: z.object({ mail: mailStatus }) }) } },
};
const resentAnswer = {
  ...noContent('A new invitation link was issued; the headers say whether its e-mail was sent.'),
  headers: z.object({
    'Cairn-Mail': z.enum(['sent', 'not-sent']).openapi({ description: 'Whether the invitation e-mail was sent.' }),
    'Cairn-Mail-Reason': z.string().optional().openapi({ description: 'Why not, when not sent.' }),
  }),
};
function setMailHeaders(c: Context, mail: MailResult) {
  c.header('Cairn-Mail', mail.sent ? 'sent' : 'not-sent');
  if (!mail.sent) c.header('Cairn-Mail-Reason', mail.reason.replace(/[^\x20-\x7e]+/g, ' ').slice(0, 300));
}
const tags = ['Users'];
const MANAGE = 'Needs Manage Users. API keys cannot promote anyone to admin, update an admin or deactivate an admin.';

defineRoute(
  userRoutes,
  createRoute({
    method: 'post',
    path: '/users/invite',
    tags,
    summary: 'Invite a user',
    description: `Creates a user in the invited state and e-mails the invitation link (\`meta.mail\` says whether the e-mail was sent). \`role\` defaults to viewer; an analyst (or admin) invitation needs a free analyst seat of the plan (422 plan_limit). \`user_group_ids\` defaults to none. An e-mail address that already has an account is a 409. ${MANAGE}`,
    'x-permissions': ['manage_users'],
    request: { body: actionBody(inviteBody, true) },
    responses: { 201: invitedDocument, ...errorResponses(400, 401, 403, 409, 415, 422, 429) },
  }),
  async (c) => {
    const body = await readBody(c, inviteBody, 'action');
    const res = await inviteUser({ ctx: serviceContext(c), input: body });
    return sendDocument(c, { data: res.data, meta: { mail: mailMeta(res.mail) } }, 201);
  },
);

for (const [method, summary, run] of [
  ['post', 'Resend an invitation', resendInvitation],
  ['delete', 'Revoke an invitation', revokeInvitation],
] as const) {
  defineRoute(
    userRoutes,
    createRoute({
      method,
      path: '/users/invite/{id}',
      tags,
      summary,
      description: `${method === 'post' ? 'Issues a new invitation link (the previous one stops working) and e-mails it (header Cairn-Mail: sent or not-sent, with Cairn-Mail-Reason).' : 'Removes the invited user.'} 422 invalid_state when the user has no pending invitation. Needs Manage Users.`,
      'x-permissions': ['manage_users'],
      request: { params: idParam },
      responses: { 204: method === 'post' ? resentAnswer : noContent(), ...errorResponses(401, 403, 404, 422, 429) },
    }),
    async (c) => {
      const mail = await run({ ctx: serviceContext(c), id: c.req.param('id')! });
      if (mail) setMailHeaders(c, mail);
      return c.body(null, 204);
    },
  );
}

defineRoute(
  userRoutes,
  createRoute({
    method: 'get',
    path: '/users',
    tags,
    summary: 'List users',
    description:
      'Every user of the organization (invited, active and deactivated), ordered by e-mail. Needs View Users. `otp_app_enabled`/`otp_phone_enabled` only with Manage Users.',
    'x-permissions': ['view_users'],
    request: { query: listQuery(sortFields(USER_LIST), 'by email; name is firstname and lastname, and filter[name] also searches the email', USER_INCLUDES) },
    responses: { 200: listDocument('A page of users', User), ...errorResponses(400, 401, 403, 429) },
  }),
  async (c) => {
    const page = parseListQuery(c, sortFields(USER_LIST));
    const include = parseInclude(c, USER_INCLUDES);
    return sendList(c, page, await listUsers({ ctx: serviceContext(c), page, include }), include);
  },
);

defineRoute(
  userRoutes,
  createRoute({
    method: 'get',
    path: '/users/{id}',
    tags,
    summary: 'Get a user',
    description: 'Needs View Users. Include user_groups or invited_by_user.',
    'x-permissions': ['view_users'],
    request: { params: idParam, query: includeQuery(USER_INCLUDES) },
    responses: { 200: oneDocument('The user', User), ...errorResponses(400, 401, 403, 404, 429) },
  }),
  async (c) => {
    const include = parseInclude(c, USER_INCLUDES);
    const res = await getUser({ ctx: serviceContext(c), id: c.req.param('id')!, include });
    return sendDocument(c, { data: res.data, ...(include.size ? { included: res.included } : {}) });
  },
);

defineRoute(
  userRoutes,
  createRoute({
    method: 'patch',
    path: '/users/{id}',
    tags,
    summary: 'Update a user’s role and groups',
    description: `\`role\`: analyst or viewer (a viewer becoming analyst needs a free seat). The \`user_groups\` relationship replaces the user’s explicit groups; the built-in groups keep their members by rule. ${MANAGE}`,
    'x-permissions': ['manage_users'],
    request: { params: idParam, body: jsonApiBody(resourceRequestSchema(userBody, 'update')) },
    responses: { 200: oneDocument('The user', User), ...errorResponses(400, 401, 403, 404, 409, 415, 422, 429) },
  }),
  async (c) => {
    const id = c.req.param('id')!;
    const body = await readResourceBody(c, userBody, 'update', id);
    const res = await updateUser({ ctx: serviceContext(c), id, input: body });
    return sendDocument(c, { data: res.data });
  },
);

defineRoute(
  userRoutes,
  createRoute({
    method: 'post',
    path: '/users/{id}/deactivate',
    tags,
    summary: 'Deactivate a user',
    description: `Signs the user out everywhere and blocks sign-in; frees their analyst seat. The last active admin cannot be deactivated. ${MANAGE}`,
    'x-permissions': ['manage_users'],
    request: { params: idParam },
    responses: { 204: noContent('Deactivated (or already was)'), ...errorResponses(401, 403, 404, 422, 429) },
  }),
  async (c) => {
    await deactivateUser({ ctx: serviceContext(c), id: c.req.param('id')! });
    return c.body(null, 204);
  },
);

defineRoute(
  userRoutes,
  createRoute({
    method: 'post',
    path: '/users/{id}/activate',
    tags,
    summary: 'Reactivate a user',
    description: 'Optional `role`: viewer or analyst (admins come back as viewer or analyst). Analyst needs a free seat (422 plan_limit). Needs Manage Users.',
    'x-permissions': ['manage_users'],
    request: { params: idParam, body: actionBody(activateBody) },
    responses: { 204: noContent('Active'), ...errorResponses(401, 403, 404, 415, 422, 429) },
  }),
  async (c) => {
    const body = await readBody(c, activateBody, 'action');
    await activateUser({ ctx: serviceContext(c), id: c.req.param('id')!, role: body.role });
    return c.body(null, 204);
  },
);
