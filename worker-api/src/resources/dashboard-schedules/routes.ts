import { OpenAPIHono, createRoute } from '@hono/zod-openapi';
import type { AppEnv } from '../../env.ts';
import { serviceContext } from '../../lib/context.ts';
import { readBody } from '../../lib/body.ts';
import { parseInclude, parseListQuery, sendDocument, sendList } from '../../lib/jsonapi.ts';
import { readResourceBody, resourceRequestSchema } from '../../lib/resource-body.ts';
import { defineRoute } from '../../lib/routes.ts';
import { sortFields } from '../../lib/list.ts';
import { actionBody, errorResponses, idParam, includeQuery, jsonApiBody, listDocument, noContent, oneDocument, listQuery } from '../../lib/openapi.ts';
import { SCHEDULE_ATTACH_AS as ATTACH_AS } from '@cairn/core';
import { DashboardSchedule, MAX_RECIPIENTS, PAGE_WIDTH, SCHEDULE_INCLUDES, scheduleBody, sendNowAnswer, sendNowBody } from './schema.ts';
import { createSchedule, deleteSchedule, getSchedule, listSchedules, sendScheduleNow, updateSchedule, SCHEDULE_LIST } from './service.ts';

export const dashboardScheduleRoutes = new OpenAPIHono<AppEnv>();
const tags = ['Dashboard schedules'];
const INCLUDES = '`include` accepts dashboard and report (both need View Dashboards or Manage Dashboards as well).';
const RULES = [
  'Grammar of `schedule`: `disabled` | `daily;TIMES` | `weekly;DAYS;TIMES` (days 0 Monday … 6 Sunday) | `monthly;DAYS;TIMES` (days 1–31; a month without the day is skipped);',
  'lists are comma-separated; a time is 24-hour `H:MM`/`HH:MM` or 12-hour `h[:mm] am|pm` (`12 am` midnight, `12 pm` noon); at most 24 times; nothing twice.',
  "Times are read in `time_zone` (default: the organization's); a time skipped by a DST change is sent at the same wall time plus the gap, one that happens twice is sent once, the first time.",
  '`next_send_at` (read-only) is the next send time.',
  `\`emails\`, \`cc_emails\`, \`bcc_emails\`: comma-separated valid addresses, at most ${MAX_RECIPIENTS} each, none twice (stored trimmed).`,
  `\`attach_as\`: comma list of ${ATTACH_AS.join(', ')}, each at most once. \`page_width\`: ${PAGE_WIDTH.min}–${PAGE_WIDTH.max} px.`,
  'A `dashboard` or a `report` relationship is needed; when both are given the report wins (its dashboard is stored too).',
].join(' ');

defineRoute(
  dashboardScheduleRoutes,
  createRoute({
    method: 'get',
    path: '/dashboard_schedules',
    tags,
    summary: 'List dashboard schedules',
    description: `Schedules of the dashboards the caller reaches (a key: those its schedule permissions allow), oldest first. Needs View Schedules. ${INCLUDES}`,
    'x-permissions': ['view_schedules'],
    request: { query: listQuery(sortFields(SCHEDULE_LIST), 'oldest first', SCHEDULE_INCLUDES) },
    responses: { 200: listDocument('A page of schedules', DashboardSchedule), ...errorResponses(400, 401, 403, 429) },
  }),
  async (c) => {
    const page = parseListQuery(c, sortFields(SCHEDULE_LIST));
    const include = parseInclude(c, SCHEDULE_INCLUDES);
    return sendList(c, page, await listSchedules({ ctx: serviceContext(c), page, include }), include);
  },
);

defineRoute(
  dashboardScheduleRoutes,
  createRoute({
    method: 'post',
    path: '/dashboard_schedules',
    tags,
    summary: 'Create a dashboard schedule',
    description: `Needs Manage Schedules (for the dashboard, when the key is restricted to dashboards). \`name\`, \`attach_as\`, \`schedule\` and \`emails\` are required. ${RULES}`,
    'x-permissions': ['manage_schedules'],
    request: { body: jsonApiBody(resourceRequestSchema(scheduleBody, 'create')) },
    responses: { 201: oneDocument('The new schedule', DashboardSchedule), ...errorResponses(400, 401, 403, 409, 415, 422, 429) },
  }),
  async (c) => {
    const body = await readResourceBody(c, scheduleBody, 'create');
    const res = await createSchedule({ ctx: serviceContext(c), input: body });
    return sendDocument(c, { data: res.data }, 201);
  },
);

defineRoute(
  dashboardScheduleRoutes,
  createRoute({
    method: 'get',
    path: '/dashboard_schedules/{id}',
    tags,
    summary: 'Get a dashboard schedule',
    description: `Needs View Schedules. ${INCLUDES}`,
    'x-permissions': ['view_schedules'],
    request: { params: idParam, query: includeQuery(SCHEDULE_INCLUDES) },
    responses: { 200: oneDocument('The schedule', DashboardSchedule), ...errorResponses(400, 401, 403, 404, 429) },
  }),
  async (c) => {
    const include = parseInclude(c, SCHEDULE_INCLUDES);
    const res = await getSchedule({ ctx: serviceContext(c), id: c.req.param('id')!, include });
    return sendDocument(c, { data: res.data, ...(include.size ? { included: res.included } : {}) });
  },
);

defineRoute(
  dashboardScheduleRoutes,
  createRoute({
    method: 'patch',
    path: '/dashboard_schedules/{id}',
    tags,
    summary: 'Update a dashboard schedule',
    description: `Needs Manage Schedules. Only the attributes sent change. A \`report\` sent moves the schedule to that report; a \`dashboard\` sent alone makes it send the whole dashboard; \`report: null\` alone keeps the dashboard. ${RULES}`,
    'x-permissions': ['manage_schedules'],
    request: { params: idParam, body: jsonApiBody(resourceRequestSchema(scheduleBody, 'update')) },
    responses: { 200: oneDocument('The schedule', DashboardSchedule), ...errorResponses(400, 401, 403, 404, 409, 415, 422, 429) },
  }),
  async (c) => {
    const id = c.req.param('id')!;
    const body = await readResourceBody(c, scheduleBody, 'update', id);
    const res = await updateSchedule({ ctx: serviceContext(c), id, input: body });
    return sendDocument(c, { data: res.data });
  },
);

defineRoute(
  dashboardScheduleRoutes,
  createRoute({
    method: 'delete',
    path: '/dashboard_schedules/{id}',
    tags,
    summary: 'Delete a dashboard schedule',
    description: 'Needs Manage Schedules.',
    'x-permissions': ['manage_schedules'],
    request: { params: idParam },
    responses: { 204: noContent('Deleted'), ...errorResponses(401, 403, 404, 429) },
  }),
  async (c) => {
    await deleteSchedule({ ctx: serviceContext(c), id: c.req.param('id')! });
    return c.body(null, 204);
  },
);

defineRoute(
  dashboardScheduleRoutes,
  createRoute({
    method: 'post',
    path: '/dashboard_schedules/{id}/send_now',
    tags,
    summary: 'Send a schedule now',
    description:
      "Needs Manage Schedules. Builds and sends the e-mail at once, outside the regular cadence (next_send_at does not change), and answers when the mail server has accepted it: 200 with the recipients and attachments. Attachments follow attach_as (excel, csv, png, dark_png, inline_png, dark_inline_png, pdf, dark_pdf; images and PDFs come from the renderer) with the schedule's parameters and page_width; a report relationship sends that report only. The data is read as the dashboard's viewer without a user (built-in user snippets are NULL). On success last_sent_at is set. When nothing could be sent (no mail server, the renderer missing or failing, the dashboard gone) the answer is 422 invalid_state with the reason, which is also kept as last_error_message. Body: none or `{}`.",
    'x-permissions': ['manage_schedules'],
    request: { params: idParam, body: actionBody(sendNowBody) },
    responses: {
      200: { description: 'The e-mail was sent', content: { 'application/json': { schema: sendNowAnswer } } },
      ...errorResponses(400, 401, 403, 404, 415, 422, 429),
    },
  }),
  async (c) => {
    await readBody(c, sendNowBody, 'action');
    return c.json(await sendScheduleNow({ ctx: serviceContext(c), id: c.req.param('id')! }), 200);
  },
);
