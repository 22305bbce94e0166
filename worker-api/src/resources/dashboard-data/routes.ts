import { OpenAPIHono, createRoute } from '@hono/zod-openapi';
import type { AppEnv } from '../../env.ts';
import { serviceContext } from '../../lib/context.ts';
import { readBody } from '../../lib/body.ts';
import { defineRoute } from '../../lib/routes.ts';
import { actionBody, errorResponses, idParam, noContent } from '../../lib/openapi.ts';
import { dashboardDataBody, dashboardDataHandle } from './schema.ts';
import { dashboardData } from './service.ts';

export const dashboardDataRoutes = new OpenAPIHono<AppEnv>();

defineRoute(
  dashboardDataRoutes,
  createRoute({
    method: 'post',
    path: '/dashboards/{id}/data',
    tags: ['Dashboards'],
    summary: 'Get dashboard data',
    description: [
      "Runs every report of the dashboard with the parameters (merged over the dashboard's default_parameters; results still within",
      'their refresh rate are reused) and returns a data process token. Fetch the download from the data server of the same region:',
      '`POST /process` with `{"data_access_token": <data_process_token>}` (JSON, or a form post from a browser) within 5 minutes.',
      '`data_format` json gives one document keyed by report id, csv_zip a zip with one CSV per report (named after the reports;',
      'UTF-8 with a byte order mark, header row, CRLF), xlsx one workbook with a sheet per report.',
      'Reports with data_download_enabled off are left out, and so are reports whose query fails; both are listed under `skipped`.',
      '204 when no report has rows. csv_decimal_separator comma with csv_column_separator comma is refused (422).',
      "The dashboard's filter rules hold: a required filter without a value (and no default) is 422 missing_attribute, a value outside a dropdown_validate dropdown's options or an all_time aggregation the filter does not allow is 422 invalid_attribute, each naming the filter with a pointer into parameters; a variable_name that names no filter of the dashboard (nor a variable of the SQL it runs) and a timerange that is not a range are 422 invalid_attribute pointing at them.",
      'Needs View Dashboards on the dashboard.',
    ].join(' '),
    'x-permissions': ['view_dashboards'],
    request: { params: idParam, body: actionBody(dashboardDataBody) },
    responses: {
      200: { description: 'The data process token and where to use it', content: { 'application/json': { schema: dashboardDataHandle } } },
      204: noContent('No report of the dashboard has rows'),
      ...errorResponses(400, 401, 403, 404, 415, 422, 429),
    },
  }),
  async (c) => {
    const body = await readBody(c, dashboardDataBody, 'action');
    const res = await dashboardData({ ctx: serviceContext(c), id: c.req.param('id')!, input: body });
    if (!res) return c.body(null, 204);
    return c.json(res, 200);
  },
);
