import { OpenAPIHono, createRoute } from '@hono/zod-openapi';
import type { AppEnv } from '../../env.ts';
import { serviceContext } from '../../lib/context.ts';
import { parseInclude, parseListQuery, sendDocument, sendList } from '../../lib/jsonapi.ts';
import { readResourceBody, resourceRequestSchema } from '../../lib/resource-body.ts';
import { defineRoute } from '../../lib/routes.ts';
import { sortFields } from '../../lib/list.ts';
import { errorResponses, idParam, includeQuery, jsonApiBody, listDocument, noContent, oneDocument, listQuery } from '../../lib/openapi.ts';
import { DashboardSharingLink, SHARING_LINK_INCLUDES, sharingLinkBody } from './schema.ts';
import { createSharingLink, deleteSharingLink, getSharingLink, listSharingLinks, updateSharingLink, SHARING_LINK_LIST } from './service.ts';

export const dashboardSharingLinkRoutes = new OpenAPIHono<AppEnv>();
const tags = ['Dashboard sharing links'];
const PERMISSION =
  "Needs Manage Dashboards on the link's dashboard — reading links too, since a link's token opens its dashboard to anyone who has it (the same rule as the dashboard_sharing_links include).";

defineRoute(
  dashboardSharingLinkRoutes,
  createRoute({
    method: 'get',
    path: '/dashboard_sharing_links',
    tags,
    summary: 'List sharing links',
    description: `Links of the dashboards the caller may manage, oldest first. ${PERMISSION} \`include=dashboard\` adds their dashboards.`,
    'x-permissions': ['manage_dashboards'],
    request: { query: listQuery(sortFields(SHARING_LINK_LIST), 'oldest first', SHARING_LINK_INCLUDES) },
    responses: { 200: listDocument('A page of sharing links', DashboardSharingLink), ...errorResponses(400, 401, 403, 429) },
  }),
  async (c) => {
    const page = parseListQuery(c, sortFields(SHARING_LINK_LIST));
    const include = parseInclude(c, SHARING_LINK_INCLUDES);
    return sendList(c, page, await listSharingLinks({ ctx: serviceContext(c), page, include }), include);
  },
);

defineRoute(
  dashboardSharingLinkRoutes,
  createRoute({
    method: 'post',
    path: '/dashboard_sharing_links',
    tags,
    summary: 'Create a sharing link',
    description: `\`name\` and the \`dashboard\` relationship are required. The token is generated (192 random bits, url-safe) and read-only. filter_bar_enabled needs toolbar_enabled and parameters_enabled; ip_whitelist takes comma-separated IPv4/IPv6 addresses and CIDR ranges; sharing_password is write-only (stored hashed; the answer shows sharing_password_set). ${PERMISSION}`,
    'x-permissions': ['manage_dashboards'],
    request: { body: jsonApiBody(resourceRequestSchema(sharingLinkBody, 'create')) },
    responses: { 201: oneDocument('The new link', DashboardSharingLink), ...errorResponses(400, 401, 403, 409, 415, 422, 429) },
  }),
  async (c) => {
    const body = await readResourceBody(c, sharingLinkBody, 'create');
    const res = await createSharingLink({ ctx: serviceContext(c), input: body });
    return sendDocument(c, { data: res.data }, 201);
  },
);

defineRoute(
  dashboardSharingLinkRoutes,
  createRoute({
    method: 'get',
    path: '/dashboard_sharing_links/{id}',
    tags,
    summary: 'Get a sharing link',
    description: `${PERMISSION} \`include=dashboard\` adds the dashboard.`,
    'x-permissions': ['manage_dashboards'],
    request: { params: idParam, query: includeQuery(SHARING_LINK_INCLUDES) },
    responses: { 200: oneDocument('The link', DashboardSharingLink), ...errorResponses(400, 401, 403, 404, 429) },
  }),
  async (c) => {
    const include = parseInclude(c, SHARING_LINK_INCLUDES);
    const res = await getSharingLink({ ctx: serviceContext(c), id: c.req.param('id')!, include });
    return sendDocument(c, { data: res.data, ...(include.size ? { included: res.included } : {}) });
  },
);

defineRoute(
  dashboardSharingLinkRoutes,
  createRoute({
    method: 'patch',
    path: '/dashboard_sharing_links/{id}',
    tags,
    summary: 'Update a sharing link',
    description: `Only the attributes sent change; the switch rule (filter_bar_enabled needs toolbar_enabled and parameters_enabled) is checked against the stored values. The dashboard cannot be changed. Answers **201** with the link, as the reference specifies. ${PERMISSION}`,
    'x-permissions': ['manage_dashboards'],
    request: { params: idParam, body: jsonApiBody(resourceRequestSchema(sharingLinkBody, 'update')) },
    responses: { 201: oneDocument('The updated link', DashboardSharingLink), ...errorResponses(400, 401, 403, 404, 409, 415, 422, 429) },
  }),
  async (c) => {
    const id = c.req.param('id')!;
    const body = await readResourceBody(c, sharingLinkBody, 'update', id);
    const res = await updateSharingLink({ ctx: serviceContext(c), id, input: body });
    return sendDocument(c, { data: res.data }, 201);
  },
);

defineRoute(
  dashboardSharingLinkRoutes,
  createRoute({
    method: 'delete',
    path: '/dashboard_sharing_links/{id}',
    tags,
    summary: 'Delete a sharing link',
    description: `The link stops working at once. ${PERMISSION}`,
    'x-permissions': ['manage_dashboards'],
    request: { params: idParam },
    responses: { 204: noContent('Deleted'), ...errorResponses(401, 403, 404, 429) },
  }),
  async (c) => {
    await deleteSharingLink({ ctx: serviceContext(c), id: c.req.param('id')! });
    return c.body(null, 204);
  },
);
