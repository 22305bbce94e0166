import { OpenAPIHono, createRoute } from '@hono/zod-openapi';
import type { AppEnv } from '../../env.ts';
import { serviceContext } from '../../lib/context.ts';
import { parseInclude, parseListQuery, sendDocument, sendList } from '../../lib/jsonapi.ts';
import { readBody } from '../../lib/body.ts';
import { readResourceBody, resourceRequestSchema } from '../../lib/resource-body.ts';
import { defineRoute } from '../../lib/routes.ts';
import { sortFields } from '../../lib/list.ts';
import { actionBody, errorResponses, idParam, includeQuery, jsonApiBody, listDocument, noContent, oneDocument, listQuery } from '../../lib/openapi.ts';
import { DashboardGroup, DASHBOARD_GROUP_INCLUDES, dashboardGroupBody, sortBody } from './schema.ts';
import {
  createDashboardGroup,
  deleteDashboardGroup,
  getDashboardGroup,
  listDashboardGroups,
  sortDashboardGroups,
  updateDashboardGroup,
  DASHBOARD_GROUP_LIST,
} from './service.ts';

export const dashboardGroupRoutes = new OpenAPIHono<AppEnv>();
const tags = ['Dashboard groups'];

// Registered before /{id} so "sort" is never taken for an id.
for (const method of ['get', 'post'] as const) {
  defineRoute(
    dashboardGroupRoutes,
    createRoute({
      method,
      path: '/dashboard_groups/sort',
      // The GET form changes the order too: it must drop the organization's kept answers.
      writes: true,
      tags,
      summary: method === 'get' ? 'Sort dashboard groups (documented form: GET with a body)' : 'Sort dashboard groups',
      description:
        'Puts the listed groups first, in the given order; groups left out follow in their previous order. Needs Manage Dashboards. The reference documents this call as GET with a JSON body; POST with the same body is accepted too, for clients that cannot send a body with GET.',
      'x-permissions': ['manage_dashboards'],
      request: { body: actionBody(sortBody, true) },
      responses: { 204: noContent('Sorted'), ...errorResponses(400, 401, 403, 415, 422, 429) },
    }),
    async (c) => {
      const body = await readBody(c, sortBody, 'action');
      await sortDashboardGroups({ ctx: serviceContext(c), ids: body.dashboard_group_ids });
      return c.body(null, 204);
    },
  );
}

defineRoute(
  dashboardGroupRoutes,
  createRoute({
    method: 'get',
    path: '/dashboard_groups',
    cache: 'org-version' as const,
    tags,
    summary: 'List dashboard groups',
    description: 'Groups in their sorted order. API keys never see personal groups. Needs View Dashboards.',
    'x-permissions': ['view_dashboards'],
    request: { query: listQuery(sortFields(DASHBOARD_GROUP_LIST), 'by position, then name', DASHBOARD_GROUP_INCLUDES) },
    responses: { 200: listDocument('A page of dashboard groups', DashboardGroup), ...errorResponses(400, 401, 403, 429) },
  }),
  async (c) => {
    const page = parseListQuery(c, sortFields(DASHBOARD_GROUP_LIST));
    const include = parseInclude(c, DASHBOARD_GROUP_INCLUDES);
    return sendList(c, page, await listDashboardGroups({ ctx: serviceContext(c), page, include }), include);
  },
);

defineRoute(
  dashboardGroupRoutes,
  createRoute({
    method: 'post',
    path: '/dashboard_groups',
    tags,
    summary: 'Create a dashboard group',
    description:
      "Needs Manage Dashboards for a shared group. `name` is required; `dashboards` (ordered) sets the members. `personal: true` (signed-in users only, never API keys) creates the user's own group, which needs only View Dashboards.",
    'x-permissions': ['manage_dashboards'],
    request: { body: jsonApiBody(resourceRequestSchema(dashboardGroupBody, 'create')) },
    responses: { 201: oneDocument('The new group', DashboardGroup), ...errorResponses(400, 401, 403, 409, 415, 422, 429) },
  }),
  async (c) => {
    const body = await readResourceBody(c, dashboardGroupBody, 'create');
    const res = await createDashboardGroup({ ctx: serviceContext(c), input: body });
    return sendDocument(c, { data: res.data }, 201);
  },
);

defineRoute(
  dashboardGroupRoutes,
  createRoute({
    method: 'get',
    path: '/dashboard_groups/{id}',
    cache: 'org-version' as const,
    tags,
    summary: 'Get a dashboard group',
    description: 'Needs View Dashboards. `include=dashboards` adds the member dashboards the caller may see.',
    'x-permissions': ['view_dashboards'],
    request: { params: idParam, query: includeQuery(DASHBOARD_GROUP_INCLUDES) },
    responses: { 200: oneDocument('The group', DashboardGroup), ...errorResponses(400, 401, 403, 404, 429) },
  }),
  async (c) => {
    const include = parseInclude(c, DASHBOARD_GROUP_INCLUDES);
    const res = await getDashboardGroup({ ctx: serviceContext(c), id: c.req.param('id')!, include });
    return sendDocument(c, { data: res.data, ...(include.size ? { included: res.included } : {}) });
  },
);

defineRoute(
  dashboardGroupRoutes,
  createRoute({
    method: 'patch',
    path: '/dashboard_groups/{id}',
    tags,
    summary: 'Update a dashboard group',
    description:
      'Needs Manage Dashboards (a personal group: its owner, with View Dashboards). Only the attributes sent change; `dashboards` replaces the members.',
    'x-permissions': ['manage_dashboards'],
    request: { params: idParam, body: jsonApiBody(resourceRequestSchema(dashboardGroupBody, 'update')) },
    responses: { 200: oneDocument('The group', DashboardGroup), ...errorResponses(400, 401, 403, 404, 409, 415, 422, 429) },
  }),
  async (c) => {
    const id = c.req.param('id')!;
    const body = await readResourceBody(c, dashboardGroupBody, 'update', id);
    const res = await updateDashboardGroup({ ctx: serviceContext(c), id, input: body });
    return sendDocument(c, { data: res.data });
  },
);

defineRoute(
  dashboardGroupRoutes,
  createRoute({
    method: 'delete',
    path: '/dashboard_groups/{id}',
    tags,
    summary: 'Delete a dashboard group',
    description: 'Needs Manage Dashboards (a personal group: its owner, with View Dashboards). The dashboards themselves stay.',
    'x-permissions': ['manage_dashboards'],
    request: { params: idParam },
    responses: { 204: noContent('Deleted'), ...errorResponses(401, 403, 404, 429) },
  }),
  async (c) => {
    await deleteDashboardGroup({ ctx: serviceContext(c), id: c.req.param('id')! });
    return c.body(null, 204);
  },
);
