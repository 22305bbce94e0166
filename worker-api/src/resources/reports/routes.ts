import { OpenAPIHono, createRoute } from '@hono/zod-openapi';
import type { AppEnv } from '../../env.ts';
import { serviceContext } from '../../lib/context.ts';
import { readBody } from '../../lib/body.ts';
import { parseInclude, parseListQuery, sendDocument, sendList } from '../../lib/jsonapi.ts';
import { readResourceBody, resourceRequestSchema } from '../../lib/resource-body.ts';
import { defineRoute } from '../../lib/routes.ts';
import { sortFields } from '../../lib/list.ts';
import { actionBody, errorResponses, idParam, includeQuery, jsonApiBody, listDocument, noContent, oneDocument, listQuery } from '../../lib/openapi.ts';
import { dataHandle, duplicateBody, Report, REPORT_INCLUDES, reportBody, reportBodyReader, reportBodyUserReader, reportDataBody } from './schema.ts';
import { createReport, deleteReport, duplicateReport, getReport, listReports, reportData, updateReport, REPORT_LIST } from './service.ts';

export const reportRoutes = new OpenAPIHono<AppEnv>();
const tags = ['Reports'];
/** chart_configuration is written by the app's report editor (signed-in users); API keys may not write it. */
const bodyReaderFor = (ctx: ReturnType<typeof serviceContext>) => (ctx.principal.kind === 'user' ? reportBodyUserReader : reportBodyReader);
const INCLUDE_NOTE = '`include` accepts dashboard, datasource (needs View Datasources, Manage Datasources or Manage Dashboards), filters and sql_snippets.';

defineRoute(
  reportRoutes,
  createRoute({
    method: 'get',
    path: '/reports',
    cache: 'org-version' as const,
    tags,
    summary: 'List reports',
    description: `Reports on the dashboards the caller may see, oldest first. Needs View Dashboards. ${INCLUDE_NOTE}`,
    'x-permissions': ['view_dashboards'],
    request: { query: listQuery(sortFields(REPORT_LIST), 'oldest first', REPORT_INCLUDES) },
    responses: { 200: listDocument('A page of reports', Report), ...errorResponses(400, 401, 403, 429) },
  }),
  async (c) => {
    const page = parseListQuery(c, sortFields(REPORT_LIST));
    const include = parseInclude(c, REPORT_INCLUDES);
    return sendList(c, page, await listReports({ ctx: serviceContext(c), page, include }), include);
  },
);

defineRoute(
  reportRoutes,
  createRoute({
    method: 'post',
    path: '/reports',
    tags,
    summary: 'Create a report',
    description: [
      'Needs Manage Dashboards (for the dashboard, when the key is restricted to dashboards) and access to the datasource:',
      'it must exist in the organization and be enabled, and a key restricted to datasources must name it.',
      '`name`, `sql_query` and the `dashboard` and `datasource` relationships are required.',
      'The new tile goes to column 1 of the first free row below the other tiles; `width` (1–12, default 6) and `height` (rows, default 6) are accepted on create only.',
      '`row`, `column`, `chart_configuration`, `query_error` and the `filters`/`sql_snippets` relationships are read-only (422 read_only_attribute):',
      'saving records the filters and snippets the SQL uses, and a variable no filter of the dashboard defines gets an ad hoc filter (dropdown_multi, TEXT) on the dashboard.',
      'A locked dashboard refuses new reports (422 invalid_state).',
    ].join(' '),
    'x-permissions': ['manage_dashboards'],
    request: { body: jsonApiBody(resourceRequestSchema(reportBody, 'create')) },
    responses: { 201: oneDocument('The new report', Report), ...errorResponses(400, 401, 403, 409, 415, 422, 429) },
  }),
  async (c) => {
    const ctx = serviceContext(c);
    const body = await readResourceBody(c, bodyReaderFor(ctx), 'create');
    const res = await createReport({ ctx, input: body });
    return sendDocument(c, { data: res.data }, 201);
  },
);

defineRoute(
  reportRoutes,
  createRoute({
    method: 'get',
    path: '/reports/{id}',
    cache: 'org-version' as const,
    tags,
    summary: 'Get a report',
    description: `Needs View Dashboards; a report on a dashboard the caller may not see is a 404. ${INCLUDE_NOTE}`,
    'x-permissions': ['view_dashboards'],
    request: { params: idParam, query: includeQuery(REPORT_INCLUDES) },
    responses: { 200: oneDocument('The report', Report), ...errorResponses(400, 401, 403, 404, 429) },
  }),
  async (c) => {
    const include = parseInclude(c, REPORT_INCLUDES);
    const res = await getReport({ ctx: serviceContext(c), id: c.req.param('id')!, include });
    return sendDocument(c, { data: res.data, ...(include.size ? { included: res.included } : {}) });
  },
);

defineRoute(
  reportRoutes,
  createRoute({
    method: 'patch',
    path: '/reports/{id}',
    tags,
    summary: 'Update a report',
    description:
      "Needs Manage Dashboards and access to the report's datasource (or the new one, which must be enabled). Only the attributes sent change. `width`, `height` and the `dashboard` relationship are create-only; the layout is changed through `PUT /dashboards/{id}/layout`. A locked dashboard refuses changes (422 invalid_state).",
    'x-permissions': ['manage_dashboards'],
    request: { params: idParam, body: jsonApiBody(resourceRequestSchema(reportBody, 'update')) },
    responses: { 200: oneDocument('The report', Report), ...errorResponses(400, 401, 403, 404, 409, 415, 422, 429) },
  }),
  async (c) => {
    const id = c.req.param('id')!;
    const ctx = serviceContext(c);
    const body = await readResourceBody(c, bodyReaderFor(ctx), 'update', id);
    const res = await updateReport({ ctx, id, input: body });
    return sendDocument(c, { data: res.data });
  },
);

defineRoute(
  reportRoutes,
  createRoute({
    method: 'delete',
    path: '/reports/{id}',
    tags,
    summary: 'Delete a report',
    description:
      'Needs Manage Dashboards. Removes the report and its tile; schedules that send this report are deleted with it. A locked dashboard refuses (422 invalid_state).',
    'x-permissions': ['manage_dashboards'],
    request: { params: idParam },
    responses: { 204: noContent('Deleted'), ...errorResponses(401, 403, 404, 422, 429) },
  }),
  async (c) => {
    await deleteReport({ ctx: serviceContext(c), id: c.req.param('id')! });
    return c.body(null, 204);
  },
);

defineRoute(
  reportRoutes,
  createRoute({
    method: 'post',
    path: '/reports/{id}/duplicate',
    tags,
    summary: 'Duplicate a report',
    description:
      'Copies the report (SQL, settings, chart, tile size) onto the same dashboard, below the other tiles, and answers 201 with the copy. Optional body `{"name": …}` (default "<name> (copy)"). Needs Manage Dashboards and access to the datasource; a locked dashboard refuses (422 invalid_state).',
    'x-permissions': ['manage_dashboards'],
    request: { params: idParam, body: actionBody(duplicateBody) },
    responses: { 201: oneDocument('The copy', Report), ...errorResponses(400, 401, 403, 404, 415, 422, 429) },
  }),
  async (c) => {
    const body = await readBody(c, duplicateBody, 'action');
    const res = await duplicateReport({ ctx: serviceContext(c), id: c.req.param('id')!, name: body.name });
    return sendDocument(c, { data: res.data }, 201);
  },
);

const data = createRoute({
  method: 'post',
  path: '/reports/{id}/data',
  tags,
  summary: 'Get report data',
  description:
    "Runs the report with the parameters (or reuses a result that is still fresh) and returns a data key and a short-lived data access token. Fetch the rows from the data server of the same region: `GET /data/{data_key}` with `Authorization: Data {token}`. 204 when the result has no rows. The dashboard's filter rules hold: a required filter without a value (and no default) is 422 missing_attribute, a value outside a dropdown_validate dropdown's options or an all_time aggregation the filter does not allow is 422 invalid_attribute, each naming the filter with a pointer into parameters; a variable_name that names no filter of the dashboard (nor a variable of the SQL it runs) and a timerange that is not a range are 422 invalid_attribute pointing at them.",
  'x-permissions': ['view_dashboards'],
  request: {
    params: idParam,
    body: { required: false, content: { 'application/json': { schema: reportDataBody } } },
  },
  responses: {
    200: { description: 'Where and how to fetch the result', content: { 'application/json': { schema: dataHandle } } },
    204: { description: 'The result has no rows' },
    ...errorResponses(400, 401, 403, 404, 415, 422, 429),
  },
});

// Validated once, by readBody: it also accepts an empty body and answers 415/400/422 with pointers.
defineRoute(reportRoutes, data, async (c) => {
  const body = await readBody(c, reportDataBody, 'action');
  const res = await reportData({ ctx: serviceContext(c), id: c.req.param('id')!, parameters: body.parameters, format: body.data_format });
  if (!res) return c.body(null, 204);
  return c.json(res, 200);
});
