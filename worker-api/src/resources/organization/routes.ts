import { OpenAPIHono, createRoute } from '@hono/zod-openapi';
import type { AppEnv } from '../../env.ts';
import { serviceContext } from '../../lib/context.ts';
import { sendDocument } from '../../lib/jsonapi.ts';
import { readResourceBody, resourceRequestSchema } from '../../lib/resource-body.ts';
import { defineRoute } from '../../lib/routes.ts';
import { errorResponses, jsonApiBody, oneDocument } from '../../lib/openapi.ts';
import { Organization, organizationBody } from './schema.ts';
import { getOrganization, updateOrganization } from './service.ts';

/** The caller's organization: settings, region, plan limits and their use. */
export const organizationRoutes = new OpenAPIHono<AppEnv>();
const tags = ['Organization'];

defineRoute(
  organizationRoutes,
  createRoute({
    method: 'get',
    path: '/organization',
    tags,
    summary: 'Get the organization',
    description:
      'Name, time zone, region, plan, and the plan limits with their use: analyst seats (analysts and admins who are not deactivated, pending invitations included) and datasources (the sample datasource does not count). Needs Manage Users.',
    'x-permissions': ['manage_users'],
    responses: { 200: oneDocument('The organization', Organization), ...errorResponses(401, 403, 429) },
  }),
  async (c) => sendDocument(c, { data: await getOrganization({ ctx: serviceContext(c) }) }),
);

defineRoute(
  organizationRoutes,
  createRoute({
    method: 'patch',
    path: '/organization',
    tags,
    summary: 'Update the organization',
    description:
      '`name` and `time_zone` (an IANA name). The body’s `id` is the organization id. Only admins signed in to the web app; API keys are refused with 403.',
    'x-permissions': ['admin session'],
    request: { body: jsonApiBody(resourceRequestSchema(organizationBody, 'update')) },
    responses: { 200: oneDocument('The organization', Organization), ...errorResponses(400, 401, 403, 409, 415, 422, 429) },
  }),
  async (c) => {
    const ctx = serviceContext(c);
    const body = await readResourceBody(c, organizationBody, 'update', ctx.principal.organizationId);
    return sendDocument(c, { data: await updateOrganization({ ctx, input: body.attributes }) });
  },
);
