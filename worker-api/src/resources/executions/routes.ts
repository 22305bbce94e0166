import { OpenAPIHono, createRoute, z } from '@hono/zod-openapi';
import type { AppEnv } from '../../env.ts';
import { serviceContext } from '../../lib/context.ts';
import { readBody } from '../../lib/body.ts';
import { defineRoute } from '../../lib/routes.ts';
import { actionBody, errorResponses, idParam, noContent } from '../../lib/openapi.ts';
import { dataHandle } from '../reports/schema.ts';
import { Execution, runBody } from './schema.ts';
import { cancelExecution, executionData, getExecution, runAdHoc } from './service.ts';

export const executionRoutes = new OpenAPIHono<AppEnv>();
const tags = ['Executions'];
const json = (schema: z.ZodType, description: string) => ({ description, content: { 'application/json': { schema } } });

defineRoute(
  executionRoutes,
  createRoute({
    method: 'post',
    path: '/datasources/{id}/executions',
    tags,
    summary: 'Run SQL on a datasource',
    description:
      'Starts an execution and answers at once (201) with its status: `starting`, or `waiting` when the datasource already runs its max_concurrent_executions. Poll `GET /executions/{id}` (back off: 0.5 s, then 1 s, 2 s …) until a final status, then fetch the rows with `GET /executions/{id}/data`. The filter syntax works with `parameters`; values are always bound. Needs Manage Datasources, Manage Dashboards or Manage Alerts (a key restricted to datasources runs only on those).',
    'x-permissions': ['manage_datasources', 'manage_dashboards', 'manage_alerts'],
    request: { params: idParam, body: actionBody(runBody, true) },
    responses: { 201: json(Execution, 'The execution, just started'), ...errorResponses(400, 401, 403, 404, 415, 422, 429) },
  }),
  async (c) => {
    const body = await readBody(c, runBody, 'action');
    return c.json(await runAdHoc({ ctx: serviceContext(c), datasourceId: c.req.param('id')!, input: body }), 201);
  },
);

defineRoute(
  executionRoutes,
  createRoute({
    method: 'get',
    path: '/executions/{id}',
    tags,
    summary: 'Get an execution',
    description:
      'Statuses: starting, running, waiting (the datasource is at its concurrency limit), scheduled, and the final ones: success, query_error (the database refused the SQL; `error_message` holds its words), timed_out (the statement timeout), cancelled, internal_error (the database could not be reached or refused the login — the driver’s message —, or the result could not be stored), internal_timeout (Cairn’s overall limit of 10 minutes per execution). Executions are kept 24 hours. Who may see it: whoever may see what it ran for (View Dashboards on the report’s or dropdown filter’s dashboard, View Alerts on the alert, View Datasources for a schema read), whoever started an ad hoc run, and Manage Datasources on its datasource; others get 404.',
    'x-permissions': ['view_dashboards', 'view_alerts', 'view_datasources'],
    request: { params: idParam },
    responses: { 200: json(Execution, 'The execution'), ...errorResponses(401, 403, 404, 429) },
  }),
  async (c) => c.json(await getExecution({ ctx: serviceContext(c), id: c.req.param('id')! })),
);

defineRoute(
  executionRoutes,
  createRoute({
    method: 'post',
    path: '/executions/{id}/cancel',
    tags,
    summary: 'Cancel an execution',
    description:
      'A waiting execution leaves the queue; a running one is cancelled in the database. Cancelling a finished execution changes nothing. Always 204. Needs the Manage permission for what it ran for (Manage Dashboards on the report’s dashboard or on every dashboard showing the filter, Manage Alerts or Manage Datasources for an alert), Manage Datasources on its datasource, or having started the ad hoc run; 403 for a caller who may only see it (viewers), 404 for one who may not see it.',
    'x-permissions': ['manage_dashboards', 'manage_alerts', 'manage_datasources'],
    request: { params: idParam },
    responses: { 204: noContent('Cancelled, or already finished'), ...errorResponses(401, 403, 404, 429) },
  }),
  async (c) => {
    await cancelExecution({ ctx: serviceContext(c), id: c.req.param('id')! });
    return c.body(null, 204);
  },
);

defineRoute(
  executionRoutes,
  createRoute({
    method: 'get',
    path: '/executions/{id}/data',
    tags,
    summary: 'Get an execution’s data handle',
    description:
      'For a successful execution: the data key and a data access token (valid for minutes) to fetch the rows from the data server of this region, `GET /data/{data_key}` with `Authorization: Data <token>`. With `data_format` csv or xlsx the same call opens the whole result as a CSV file (comma, point) or an Excel workbook named after the report (an ad hoc run: “Query results”); 403 when the report has data_download_enabled off, 422 for another format. 204 when the execution produced no rows, did not succeed, or is a schema read (almanach_query: its document is fetched with GET /datasources/{id}/schema); 422 while it still runs. Who may see it: whoever may see what it ran for (View Dashboards on the report’s or dropdown filter’s dashboard, View Alerts on the alert, View Datasources for a schema read), whoever started an ad hoc run, and Manage Datasources on its datasource; others get 404.',
    'x-permissions': ['view_dashboards', 'view_alerts', 'view_datasources'],
    request: {
      params: idParam,
      query: z.object({
        data_format: z.string().optional().openapi({ description: 'json (default), csv or xlsx: how the data server answers the token.', example: 'csv' }),
      }),
    },
    responses: { 200: json(dataHandle, 'Where and how to fetch the rows'), 204: noContent('No data'), ...errorResponses(401, 403, 404, 422, 429) },
  }),
  async (c) => {
    const res = await executionData({ ctx: serviceContext(c), id: c.req.param('id')!, dataFormat: c.req.query('data_format') });
    return res ? c.json(res) : c.body(null, 204);
  },
);
