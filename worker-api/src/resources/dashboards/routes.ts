import { OpenAPIHono, createRoute } from '@hono/zod-openapi';
import type { AppEnv } from '../../env.ts';
import { serviceContext } from '../../lib/context.ts';
import { pageLinks, parseInclude, parsePage, sendDocument } from '../../lib/jsonapi.ts';
import { documentSchema, errorResponses, idParam, includeQuery, pageQuery } from '../../lib/openapi.ts';
import { DASHBOARD_INCLUDES } from './relations.ts';
import { getDashboard, listDashboards } from './service.ts';

export const dashboardRoutes = new OpenAPIHono<AppEnv>();

const list = createRoute({
  method: 'get',
  path: '/dashboards',
  tags: ['Dashboards'],
  summary: 'List dashboards',
  description: 'Dashboards the key may see, ordered by name. Needs View Dashboards (or Manage Dashboards).',
  'x-permissions': ['view_dashboards'],
  request: { query: pageQuery.extend(includeQuery(DASHBOARD_INCLUDES).shape) },
  responses: { 200: documentSchema('A page of dashboards'), ...errorResponses(400, 401, 403, 429) },
});

dashboardRoutes.openapi(list, async (c) => {
  const page = parsePage(c);
  const include = parseInclude(c, DASHBOARD_INCLUDES);
  const res = await listDashboards({ ctx: serviceContext(c), page, include });
  return sendDocument(c, {
    data: res.data,
    ...(include.size ? { included: res.included } : {}),
    links: pageLinks(c, page, res.total),
    meta: { total: res.total, page: { size: page.size, number: page.number } },
  });
});

const get = createRoute({
  method: 'get',
  path: '/dashboards/{id}',
  tags: ['Dashboards'],
  summary: 'Get a dashboard',
  description:
    'One dashboard. `include` accepts reports, filters, sql_snippets, dashboard_groups, dashboard_sharing_links (needs Manage Dashboards), user and user_groups (need View Users, Manage Users or Manage Dashboards).',
  'x-permissions': ['view_dashboards'],
  request: { params: idParam, query: includeQuery(DASHBOARD_INCLUDES) },
  responses: { 200: documentSchema('The dashboard'), ...errorResponses(400, 401, 403, 404, 429) },
});

dashboardRoutes.openapi(get, async (c) => {
  const include = parseInclude(c, DASHBOARD_INCLUDES);
  const ctx = serviceContext(c);
  const res = await getDashboard({ ctx, id: c.req.valid('param').id, include });
  return sendDocument(c, { data: res.data, ...(include.size ? { included: res.included } : {}) });
});

