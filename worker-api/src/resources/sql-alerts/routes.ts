import { OpenAPIHono, createRoute, z } from '@hono/zod-openapi';
import type { AppEnv } from '../../env.ts';
import { serviceContext } from '../../lib/context.ts';
import { parseInclude, parseListQuery, sendDocument, sendList } from '../../lib/jsonapi.ts';
import { readResourceBody, resourceRequestSchema } from '../../lib/resource-body.ts';
import { defineRoute } from '../../lib/routes.ts';
import { sortFields } from '../../lib/list.ts';
import { errorResponses, idParam, includeQuery, jsonApiBody, listDocument, noContent, oneDocument, listQuery } from '../../lib/openapi.ts';
import { resultsQuery, SqlAlert, SQL_ALERT_INCLUDES, sqlAlertBody, SqlAlertResults } from './schema.ts';
import { createAlert, deleteAlert, getAlert, listAlerts, updateAlert, SQL_ALERT_LIST } from './service.ts';
import { alertResults } from './results.ts';
import { runAlertQuery } from './run.ts';

export const sqlAlertRoutes = new OpenAPIHono<AppEnv>();
const tags = ['SQL alerts'];
const INCLUDE = '`include` accepts `datasource` (needs View Datasources, Manage Datasources or Manage Dashboards) and `sql_snippets`.';
const WRITE = 'Needs Manage Alerts or Manage Datasources, reaching both the alert and its datasource (keys may be restricted to alerts and to datasources).';

defineRoute(
  sqlAlertRoutes,
  createRoute({
    method: 'get',
    path: '/sql_alerts',
    tags,
    summary: 'List SQL alerts',
    description: `Ordered by name. Needs View Alerts; a key restricted to some alerts or datasources lists only those. ${INCLUDE}`,
    'x-permissions': ['view_alerts'],
    request: { query: listQuery(sortFields(SQL_ALERT_LIST), 'by name', SQL_ALERT_INCLUDES) },
    responses: { 200: listDocument('A page of SQL alerts', SqlAlert), ...errorResponses(400, 401, 403, 429) },
  }),
  async (c) => {
    const page = parseListQuery(c, sortFields(SQL_ALERT_LIST));
    const include = parseInclude(c, SQL_ALERT_INCLUDES);
    return sendList(c, page, await listAlerts({ ctx: serviceContext(c), page, include }), include);
  },
);

defineRoute(
  sqlAlertRoutes,
  createRoute({
    method: 'post',
    path: '/sql_alerts',
    tags,
    summary: 'Create a SQL alert',
    description: [
      'Needs Manage Alerts, reaching the datasource. Requires `name`, `sql_query`, `run_schedule`, `trigger_condition`, `email_condition` and the `datasource` relationship.',
      '`run_at` is required with `at` (times in the organization time zone), `run_every` (minutes, 1–10080) with `every`, neither with `disabled`;',
      '`trigger_value` is required with greater_than, lower_than, equal and not_equal. `next_run_at` is computed.',
    ].join(' '),
    'x-permissions': ['manage_alerts'],
    request: { body: jsonApiBody(resourceRequestSchema(sqlAlertBody, 'create')) },
    responses: { 201: oneDocument('The new alert', SqlAlert), ...errorResponses(400, 401, 403, 409, 415, 422, 429) },
  }),
  async (c) => {
    const body = await readResourceBody(c, sqlAlertBody, 'create');
    const res = await createAlert({ ctx: serviceContext(c), input: body });
    return sendDocument(c, { data: res.data }, 201);
  },
);

defineRoute(
  sqlAlertRoutes,
  createRoute({
    method: 'get',
    path: '/sql_alerts/{id}/results',
    tags,
    summary: 'SQL alert results',
    description:
      "Needs View Alerts. Results of the last 30 days, newest first, `limit` per answer (default 100, at most 1000); pass the answer's `cursor` to get older ones. `sql_query` and `sql_query_duration` (ms) only with Include SQL Details. A plain JSON answer (application/json), not a JSON:API document.",
    'x-permissions': ['view_alerts'],
    request: { params: idParam, query: resultsQuery },
    responses: {
      200: { description: 'A page of results', content: { 'application/json': { schema: SqlAlertResults } } },
      ...errorResponses(400, 401, 403, 404, 429),
    },
  }),
  async (c) => {
    const res = await alertResults(serviceContext(c), c.req.param('id')!, { cursor: c.req.query('cursor'), limit: c.req.query('limit') });
    return c.json(res);
  },
);

defineRoute(
  sqlAlertRoutes,
  createRoute({
    method: 'get',
    path: '/sql_alerts/{id}',
    tags,
    summary: 'Get a SQL alert',
    description: `Needs View Alerts on this alert. ${INCLUDE}`,
    'x-permissions': ['view_alerts'],
    request: { params: idParam, query: includeQuery(SQL_ALERT_INCLUDES) },
    responses: { 200: oneDocument('The alert', SqlAlert), ...errorResponses(400, 401, 403, 404, 429) },
  }),
  async (c) => {
    const include = parseInclude(c, SQL_ALERT_INCLUDES);
    const res = await getAlert({ ctx: serviceContext(c), id: c.req.param('id')!, include });
    return sendDocument(c, { data: res.data, ...(include.size ? { included: res.included } : {}) });
  },
);

defineRoute(
  sqlAlertRoutes,
  createRoute({
    method: 'patch',
    path: '/sql_alerts/{id}',
    tags,
    summary: 'Update a SQL alert',
    description: `${WRITE} Only the attributes sent change; a value the new schedule or condition does not use is cleared. Answers 200 with the alert.`,
    'x-permissions': ['manage_alerts', 'manage_datasources'],
    request: { params: idParam, body: jsonApiBody(resourceRequestSchema(sqlAlertBody, 'update')) },
    responses: { 200: oneDocument('The alert', SqlAlert), ...errorResponses(400, 401, 403, 404, 409, 415, 422, 429) },
  }),
  async (c) => {
    const id = c.req.param('id')!;
    const body = await readResourceBody(c, sqlAlertBody, 'update', id);
    const res = await updateAlert({ ctx: serviceContext(c), id, input: body });
    return sendDocument(c, { data: res.data });
  },
);

defineRoute(
  sqlAlertRoutes,
  createRoute({
    method: 'delete',
    path: '/sql_alerts/{id}',
    tags,
    summary: 'Delete a SQL alert',
    description: `${WRITE} Its results are deleted with it.`,
    'x-permissions': ['manage_alerts', 'manage_datasources'],
    request: { params: idParam },
    responses: { 204: noContent('Deleted'), ...errorResponses(401, 403, 404, 429) },
  }),
  async (c) => {
    await deleteAlert({ ctx: serviceContext(c), id: c.req.param('id')! });
    return c.body(null, 204);
  },
);

const RunAnswer = z
  .object({
    execution_id: z
      .string()
      .openapi({ description: 'Follow it with GET /executions/{id}; the alert result appears in GET /sql_alerts/{id}/results once it has been evaluated.' }),
  })
  .openapi('SqlAlertRun');

defineRoute(
  sqlAlertRoutes,
  createRoute({
    method: 'post',
    path: '/sql_alerts/{id}/run_query',
    tags: ['SQL alerts'],
    summary: 'Run a SQL alert now',
    description: [
      "Runs the alert's SQL on its datasource now, whatever its run_schedule, and answers at once with the execution id.",
      'When the query has finished, the trigger condition is evaluated (has_results, no_results, or a comparison of the single value with trigger_value),',
      'e-mails are sent per email_condition (error_emails when the run could not be evaluated), a result is recorded (ok, alert_triggered, alert_error, query_error, internal_error, internal_timeout, cancelled)',
      "and the alert's last_* fields are updated. While it runs, the alert shows `running_execution_id`; a second run meanwhile is a 422 invalid_state.",
      'A datasource that cannot run queries (no driver for its type, disabled) and SQL that does not compile (a snippet cycle) are 422s.',
      'Needs Manage Alerts, reaching the alert and its datasource. No request body.',
    ].join(' '),
    'x-permissions': ['manage_alerts'],
    request: { params: idParam },
    responses: {
      200: { description: 'The run started', content: { 'application/json': { schema: RunAnswer } } },
      ...errorResponses(401, 403, 404, 422, 429),
    },
  }),
  async (c) => c.json(await runAlertQuery(serviceContext(c), c.req.param('id')!)),
);
