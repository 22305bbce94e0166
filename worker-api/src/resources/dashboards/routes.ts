import { OpenAPIHono, createRoute } from '@hono/zod-openapi';
import type { AppEnv } from '../../env.ts';
import { serviceContext } from '../../lib/context.ts';
import { parseInclude, parseListQuery, sendDocument, sendList } from '../../lib/jsonapi.ts';
import { readBody } from '../../lib/body.ts';
import { readResourceBody, resourceRequestSchema } from '../../lib/resource-body.ts';
import { defineRoute } from '../../lib/routes.ts';
import { sortFields } from '../../lib/list.ts';
import { actionBody, errorResponses, idParam, includeQuery, jsonApiBody, listDocument, noContent, oneDocument, listQuery } from '../../lib/openapi.ts';
import { Dashboard, DASHBOARD_INCLUDES, dashboardBody, layoutBody, SeriesColors, seriesColorsBody, shareBody } from './schema.ts';
import { dashboardBackup } from './backup-format.ts';
import {
  assignSeriesColors,
  createDashboard,
  deleteDashboard,
  findDashboard,
  getDashboard,
  listDashboards,
  putLayout,
  setLock,
  updateDashboard,
  DASHBOARD_LIST,
} from './service.ts';
import { shareDashboard } from './share.ts';
import { backupDashboard } from './backup.ts';
import { thumbnailImage, touchDashboard } from './thumbnails.ts';
import { requirePermissionOn } from '../../auth/principal.ts';
import { z } from '@hono/zod-openapi';
import { duplicateDashboard, restoreDashboard } from './restore.ts';

export const dashboardRoutes = new OpenAPIHono<AppEnv>();
const tags = ['Dashboards'];
const LOCKED = 'A locked dashboard answers 422 invalid_state until it is unlocked.';
const dashboardAnswer = (description: string) => oneDocument(description, Dashboard);

defineRoute(
  dashboardRoutes,
  createRoute({
    method: 'get',
    path: '/dashboards',
    cache: 'org-version' as const,
    tags,
    summary: 'List dashboards',
    description:
      'Dashboards the caller may see, ordered by name. Needs View Dashboards (or Manage Dashboards). Private dashboards (share_mode none) are listed for API keys, admins and their creator only.',
    'x-permissions': ['view_dashboards'],
    request: { query: listQuery(sortFields(DASHBOARD_LIST), 'by name', DASHBOARD_INCLUDES) },
    responses: { 200: listDocument('A page of dashboards', Dashboard), ...errorResponses(400, 401, 403, 429) },
  }),
  async (c) => {
    const page = parseListQuery(c, sortFields(DASHBOARD_LIST));
    const include = parseInclude(c, DASHBOARD_INCLUDES);
    return sendList(c, page, await listDashboards({ ctx: serviceContext(c), page, include }), include);
  },
);

defineRoute(
  dashboardRoutes,
  createRoute({
    method: 'post',
    path: '/dashboards',
    tags,
    summary: 'Create a dashboard',
    description: `Needs Manage Dashboards (a key restricted to named dashboards cannot create new ones). \`name\` is required; the other attributes take their defaults (data_refresh_rate 1440, default_page_width 1600, color_scheme scheme_6, time_zone_config {type: organization}, …). Read-only attributes (published, layout, floating_enabled, thumbnail_image_url, thumbnail_created_at, share_mode, created_at, updated_at) are refused with 422 read_only_attribute and a pointer to them: layout, sharing and locking have their own calls. \`filters\` (ordered) and \`sql_snippets\` relationships may be set. A new dashboard is private (share_mode none) and owned by the signed-in user who creates it.`,
    'x-permissions': ['manage_dashboards'],
    request: { body: jsonApiBody(resourceRequestSchema(dashboardBody, 'create')) },
    responses: { 201: dashboardAnswer('The new dashboard'), ...errorResponses(400, 401, 403, 409, 415, 422, 429) },
  }),
  async (c) => {
    const body = await readResourceBody(c, dashboardBody, 'create');
    const res = await createDashboard({ ctx: serviceContext(c), input: body });
    return sendDocument(c, { data: res.data }, 201);
  },
);

// Registered before /dashboards/{id}/… so "restore" is never taken for an id.
defineRoute(
  dashboardRoutes,
  createRoute({
    method: 'post',
    path: '/dashboards/restore',
    tags,
    summary: 'Restore a dashboard from a backup',
    description:
      'Takes the JSON of a dashboard backup (POST /dashboards/{id}/backup) as the body and creates a new dashboard from it, with new ids for the dashboard and its reports. Datasources are matched by id and must exist in this organization (422 naming every missing one otherwise); SQL snippets are reused by name or created; filters are reused when one with the same variable_name, control_type and value_type exists, else created. The restored dashboard is private. Needs Manage Dashboards (not restricted to named dashboards) and access to the datasources.',
    'x-permissions': ['manage_dashboards'],
    request: { body: actionBody(dashboardBackup, true) },
    responses: { 201: dashboardAnswer('The restored dashboard'), ...errorResponses(400, 401, 403, 415, 422, 429) },
  }),
  async (c) => {
    const body = await readBody(c, dashboardBackup, 'action');
    const res = await restoreDashboard(serviceContext(c), body);
    return sendDocument(c, { data: res.data }, 201);
  },
);

defineRoute(
  dashboardRoutes,
  createRoute({
    method: 'get',
    path: '/dashboards/{id}',
    cache: 'org-version' as const,
    tags,
    summary: 'Get a dashboard',
    description:
      'One dashboard. Needs View Dashboards on it. `include` accepts reports, filters, sql_snippets, dashboard_groups, dashboard_sharing_links (needs Manage Dashboards), user and user_groups (need View Users, Manage Users or Manage Dashboards). Included dashboard groups list only the dashboards the caller may see.',
    'x-permissions': ['view_dashboards'],
    request: { params: idParam, query: includeQuery(DASHBOARD_INCLUDES) },
    responses: { 200: dashboardAnswer('The dashboard'), ...errorResponses(400, 401, 403, 404, 429) },
  }),
  async (c) => {
    const include = parseInclude(c, DASHBOARD_INCLUDES);
    const ctx = serviceContext(c);
    const res = await getDashboard({ ctx, id: c.req.param('id')!, include });
    // A view: last_accessed_at (at most once an hour), which makes the dashboard due a thumbnail (D62).
    await touchDashboard(ctx.env, ctx.principal.organizationId, res.data.id);
    return sendDocument(c, { data: res.data, ...(include.size ? { included: res.included } : {}) });
  },
);

defineRoute(
  dashboardRoutes,
  createRoute({
    method: 'get',
    path: '/dashboards/{id}/thumbnail',
    tags,
    summary: "Get a dashboard's thumbnail",
    description:
      "The dashboard's thumbnail as a PNG image: the address `thumbnail_image_url` names. Thumbnails are drawn at most once a day, for dashboards with `thumbnail_enabled` that were viewed in the last 24 hours; until the first one exists this answers 404. Needs View Dashboards on it. `v` is ignored (the address changes with each new image, so caches never serve an old one).",
    'x-permissions': ['view_dashboards'],
    request: { params: idParam, query: z.object({ v: z.string().max(20).optional().openapi({ description: 'Ignored: tells one image from the next.' }) }) },
    responses: {
      200: { description: 'The image', content: { 'image/png': { schema: z.string().openapi({ format: 'binary' }) } } },
      ...errorResponses(400, 401, 403, 404, 429),
    },
  }),
  async (c) => {
    const ctx = serviceContext(c);
    const id = c.req.param('id')!;
    await requirePermissionOn(ctx.principal, 'view_dashboards', { type: 'dashboards', id }, () => findDashboard(ctx, id));
    const bytes = await thumbnailImage(ctx, await findDashboard(ctx, id));
    return new Response(bytes, { headers: { 'content-type': 'image/png', 'cache-control': 'private, max-age=86400', 'x-content-type-options': 'nosniff' } });
  },
);

defineRoute(
  dashboardRoutes,
  createRoute({
    method: 'patch',
    path: '/dashboards/{id}',
    tags,
    summary: 'Update a dashboard',
    description: `Needs Manage Dashboards on it. Only the attributes sent change; \`filters\` and \`sql_snippets\` replace the lists. ${LOCKED} A request that sends is_locked: false unlocks and changes the dashboard in one step.`,
    'x-permissions': ['manage_dashboards'],
    request: { params: idParam, body: jsonApiBody(resourceRequestSchema(dashboardBody, 'update')) },
    responses: { 200: dashboardAnswer('The dashboard'), ...errorResponses(400, 401, 403, 404, 409, 415, 422, 429) },
  }),
  async (c) => {
    const id = c.req.param('id')!;
    const body = await readResourceBody(c, dashboardBody, 'update', id);
    const res = await updateDashboard({ ctx: serviceContext(c), id, input: body });
    return sendDocument(c, { data: res.data });
  },
);

defineRoute(
  dashboardRoutes,
  createRoute({
    method: 'delete',
    path: '/dashboards/{id}',
    tags,
    summary: 'Delete a dashboard',
    description: `Needs Manage Dashboards on it. Deletes its reports, sharing links, schedules and export jobs too; filters and snippets stay. ${LOCKED}`,
    'x-permissions': ['manage_dashboards'],
    request: { params: idParam },
    responses: { 204: noContent('Deleted'), ...errorResponses(401, 403, 404, 422, 429) },
  }),
  async (c) => {
    await deleteDashboard({ ctx: serviceContext(c), id: c.req.param('id')! });
    return c.body(null, 204);
  },
);

for (const method of ['post', 'delete'] as const) {
  const locking = method === 'post';
  defineRoute(
    dashboardRoutes,
    createRoute({
      method,
      path: '/dashboards/{id}/lock',
      tags,
      summary: locking ? 'Lock a dashboard' : 'Unlock a dashboard',
      description: locking
        ? 'Protects the dashboard from edits: while locked, PATCH, layout, share and DELETE answer 422 invalid_state. Locking a locked dashboard changes nothing. Needs Manage Dashboards on it. Answers the dashboard.'
        : 'Lifts the lock set by POST /dashboards/{id}/lock. Unlocking an unlocked dashboard changes nothing. Needs Manage Dashboards on it. Answers the dashboard.',
      'x-permissions': ['manage_dashboards'],
      request: { params: idParam },
      responses: { 200: dashboardAnswer('The dashboard, with is_locked set'), ...errorResponses(401, 403, 404, 429) },
    }),
    async (c) => {
      const res = await setLock({ ctx: serviceContext(c), id: c.req.param('id')!, locked: locking });
      return sendDocument(c, { data: res.data });
    },
  );
}

defineRoute(
  dashboardRoutes,
  createRoute({
    method: 'post',
    path: '/dashboards/{id}/duplicate',
    tags,
    summary: 'Duplicate a dashboard',
    description:
      'Creates "<name> (copy)": copies of the reports (new ids, same datasources), the same filters and SQL snippets, and the layout pointing at the new reports. The copy is unlocked, private (share_mode none) and owned by the caller; sharing links, schedules and group memberships are not copied. Needs View Dashboards on the original and Manage Dashboards (not restricted to named dashboards).',
    'x-permissions': ['manage_dashboards'],
    request: { params: idParam },
    responses: { 201: dashboardAnswer('The copy'), ...errorResponses(401, 403, 404, 429) },
  }),
  async (c) => {
    const res = await duplicateDashboard(serviceContext(c), c.req.param('id')!);
    return sendDocument(c, { data: res.data }, 201);
  },
);

defineRoute(
  dashboardRoutes,
  createRoute({
    method: 'put',
    path: '/dashboards/{id}/layout',
    tags,
    summary: 'Set the layout',
    description: `Replaces the tiles on the 12-column grid: each tile is {type: report, id, row ≥ 1, column 1–12, width 1–12, height ≥ 1} with column + width − 1 ≤ 12; ids must be reports of this dashboard, each placed at most once; tiles may not overlap unless floating_enabled (kept as it is when left out). Errors point at the tile, e.g. /layout/3/column. Needs Manage Dashboards on it. ${LOCKED}`,
    'x-permissions': ['manage_dashboards'],
    request: { params: idParam, body: actionBody(layoutBody, true) },
    responses: { 200: dashboardAnswer('The dashboard with its new layout'), ...errorResponses(400, 401, 403, 404, 415, 422, 429) },
  }),
  async (c) => {
    const body = await readBody(c, layoutBody, 'action');
    const res = await putLayout({ ctx: serviceContext(c), id: c.req.param('id')!, input: body });
    return sendDocument(c, { data: res.data });
  },
);

defineRoute(
  dashboardRoutes,
  createRoute({
    method: 'post',
    path: '/dashboards/{id}/series_colors',
    tags,
    summary: 'Colour new series values',
    description:
      "The dashboard's colour map (attribute series_colors) learns the values sent that it does not hold yet: each gets the next colour ordinal, in the order sent, so a value keeps one colour on every tile of the dashboard. Values it holds keep theirs. At most 2,000 values are kept; later ones get none. Answers the whole map as plain JSON. Needs View Dashboards on it (also while it is locked); updated_at does not change.",
    'x-permissions': ['view_dashboards'],
    request: { params: idParam, body: actionBody(seriesColorsBody, true) },
    responses: {
      200: { description: 'The colour map', content: { 'application/json': { schema: SeriesColors } } },
      ...errorResponses(400, 401, 403, 404, 415, 422, 429),
    },
  }),
  async (c) => {
    const body = await readBody(c, seriesColorsBody, 'action');
    return c.json(await assignSeriesColors({ ctx: serviceContext(c), id: c.req.param('id')!, input: body }));
  },
);

defineRoute(
  dashboardRoutes,
  createRoute({
    method: 'post',
    path: '/dashboards/{id}/share',
    tags,
    summary: 'Share a dashboard',
    description: `Sets share_mode: none (private: creator and admins), all_users, all_analysts, or custom with user_group_ids (group ids, or the built-in aliases all_users and all_analysts). user_group_ids is refused for the other modes. With notify_new_users: true, every active user who can see the dashboard after the call but could not before gets an e-mail with a link to it; \`meta.notify_new_users\` of the answer counts them (\`new_users\`), says how many notices were \`sent\` and lists the ones \`not_sent\` with the reason (a mail problem never undoes the share). With include_thumbnail: true the e-mail shows the dashboard's thumbnail when one has been drawn (thumbnails are drawn once a day for dashboards viewed in the last 24 hours). Sharing with users (any share_mode but none) publishes the dashboard (\`published\` true); none makes it a draft again. Needs Manage Dashboards on it. ${LOCKED} Answers the dashboard.`,
    'x-permissions': ['manage_dashboards'],
    request: { params: idParam, body: actionBody(shareBody, true) },
    responses: { 200: dashboardAnswer('The dashboard with its sharing'), ...errorResponses(400, 401, 403, 404, 415, 422, 429) },
  }),
  async (c) => {
    const body = await readBody(c, shareBody, 'action');
    const res = await shareDashboard(serviceContext(c), c.req.param('id')!, body);
    return sendDocument(c, { data: res.data, ...(res.notice ? { meta: { notify_new_users: res.notice } } : {}) });
  },
);

defineRoute(
  dashboardRoutes,
  createRoute({
    method: 'post',
    path: '/dashboards/{id}/backup',
    tags,
    summary: 'Back up a dashboard',
    description:
      'Answers a JSON backup (format "cairn.dashboard-backup", version 1) holding the dashboard\'s attributes and layout, its reports, the filters and SQL snippets they use (nested ones too, and manual dropdown options) and the ids and names of their datasources (never credentials). POST /dashboards/restore recreates a dashboard from it. Needs Manage Dashboards on the dashboard.',
    'x-permissions': ['manage_dashboards'],
    request: { params: idParam },
    responses: {
      200: { description: 'The backup', content: { 'application/json': { schema: dashboardBackup } } },
      ...errorResponses(401, 403, 404, 429),
    },
  }),
  async (c) => {
    return c.json(await backupDashboard(serviceContext(c), c.req.param('id')!), 200);
  },
);
