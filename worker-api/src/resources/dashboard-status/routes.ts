import { OpenAPIHono, createRoute, z } from '@hono/zod-openapi';
import type { AppEnv } from '../../env.ts';
import { serviceContext } from '../../lib/context.ts';
import { readBody } from '../../lib/body.ts';
import { defineRoute } from '../../lib/routes.ts';
import { actionBody, errorResponses, idParam, noContent } from '../../lib/openapi.ts';
import { inputParametersSchema } from '../reports/schema.ts';
import { DashboardStatus } from './schema.ts';
import { dashboardStatus, refreshDashboard, refreshReport } from './service.ts';

export const dashboardStatusRoutes = new OpenAPIHono<AppEnv>();

const statusBody = z
  .object({
    parameters: inputParametersSchema.optional(),
    refresh_data: z.boolean().default(false).openapi({ description: 'Re-run every report now instead of reusing results that are still fresh.' }),
  })
  .strict()
  .openapi('DashboardStatusRequest');
const paramsBody = z.object({ parameters: inputParametersSchema.optional() }).strict().openapi('RefreshRequest');

defineRoute(
  dashboardStatusRoutes,
  createRoute({
    method: 'post',
    path: '/dashboards/{id}/status',
    cache: 'poll' as const,
    tags: ['Dashboards'],
    summary: 'Dashboard status (poll)',
    description:
      "Where each report’s data stands for these parameters (merged over the dashboard’s default_parameters). Results still within the report’s data_refresh_rate are reused; otherwise one execution per report is started, shared by every caller asking with the same parameters. Poll again after `status_check_delay` seconds until every report is success, no_data or error. Values outside a dropdown_validate dropdown's options and an all_time aggregation a filter does not allow are 422 invalid_attribute, and so are a variable_name that names no filter of the dashboard (nor a variable of the SQL it runs) and a timerange that is not a range (pointing at them); while a required filter has no value, every report is an error item with code required_filter_missing (no data) and query-driven filters still load their options. Needs View Dashboards.",
    'x-permissions': ['view_dashboards'],
    request: { params: idParam, body: actionBody(statusBody) },
    responses: {
      200: { description: 'The status', content: { 'application/json': { schema: DashboardStatus } } },
      ...errorResponses(400, 401, 403, 404, 415, 422, 429),
    },
  }),
  async (c) => {
    const body = await readBody(c, statusBody, 'action');
    return c.json(await dashboardStatus({ ctx: serviceContext(c), id: c.req.param('id')!, input: body, rules: 'values' }));
  },
);

defineRoute(
  dashboardStatusRoutes,
  createRoute({
    method: 'post',
    path: '/dashboards/{id}/refresh',
    tags: ['Dashboards'],
    summary: 'Refresh a dashboard',
    description:
      "Re-runs every report (and dynamic filter) of the dashboard with these parameters. Poll the status call for the outcome. The dashboard's filter rules hold: a required filter without a value (and no default) is 422 missing_attribute, a value outside a dropdown_validate dropdown's options or an all_time aggregation the filter does not allow is 422 invalid_attribute, each naming the filter with a pointer into parameters; a variable_name that names no filter of the dashboard (nor a variable of the SQL it runs) and a timerange that is not a range are 422 invalid_attribute pointing at them. Needs View Dashboards.",
    'x-permissions': ['view_dashboards'],
    request: { params: idParam, body: actionBody(paramsBody) },
    responses: { 204: noContent('Started'), ...errorResponses(400, 401, 403, 404, 415, 422, 429) },
  }),
  async (c) => {
    const body = await readBody(c, paramsBody, 'action');
    await refreshDashboard({ ctx: serviceContext(c), id: c.req.param('id')!, parameters: body.parameters });
    return c.body(null, 204);
  },
);

defineRoute(
  dashboardStatusRoutes,
  createRoute({
    method: 'post',
    path: '/reports/{id}/refresh',
    tags: ['Reports'],
    summary: 'Refresh a report',
    description:
      "Re-runs this report alone (the dashboard's other reports and filters keep their results) with these parameters and returns the execution id to follow with GET /executions/{id}. A report whose refresh_enabled is off answers 422 invalid_state (its dashboard's refresh still re-runs it). The dashboard's filter rules hold: a required filter without a value (and no default) is 422 missing_attribute, a value outside a dropdown_validate dropdown's options or an all_time aggregation the filter does not allow is 422 invalid_attribute, each naming the filter with a pointer into parameters; a variable_name that names no filter of the dashboard (nor a variable of the SQL it runs) and a timerange that is not a range are 422 invalid_attribute pointing at them. Needs View Dashboards.",
    'x-permissions': ['view_dashboards'],
    request: { params: idParam, body: actionBody(paramsBody) },
    responses: {
      200: { description: 'The execution', content: { 'application/json': { schema: z.object({ execution_id: z.string().nullable() }) } } },
      ...errorResponses(400, 401, 403, 404, 415, 422, 429),
    },
  }),
  async (c) => {
    const body = await readBody(c, paramsBody, 'action');
    return c.json(await refreshReport({ ctx: serviceContext(c), id: c.req.param('id')!, parameters: body.parameters }));
  },
);
