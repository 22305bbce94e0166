import { OpenAPIHono, createRoute, z } from '@hono/zod-openapi';
import type { AppEnv } from '../../env.ts';
import { serviceContext } from '../../lib/context.ts';
import { parseInclude, parseListQuery, sendDocument, sendList } from '../../lib/jsonapi.ts';
import { readResourceBody, resourceRequestSchema } from '../../lib/resource-body.ts';
import { defineRoute } from '../../lib/routes.ts';
import { sortFields } from '../../lib/list.ts';
import { errorResponses, idParam, includeQuery, jsonApiBody, listDocument, noContent, oneDocument, listQuery, actionBody } from '../../lib/openapi.ts';
import { Filter, FILTER_INCLUDES, filterBody, filterBodyReader } from './schema.ts';
import { createFilter, deleteFilter, getFilter, listFilters, updateFilter, FILTER_LIST } from './service.ts';
import { readBody } from '../../lib/body.ts';
import { inputParametersSchema } from '../reports/schema.ts';
import { filterOptions, refreshFilter } from './options.ts';

export const filterRoutes = new OpenAPIHono<AppEnv>();
const tags = ['Filters'];

const RULES = [
  'Rules: `variable_name` letters, digits, underscore and hyphen only.',
  'Value types per control: input and input_multi TEXT, NUMBER, DATE, TIME or DATE_TIME; checkbox and checkbox_two_way BOOLEAN;',
  'date and date_range DATE; date_time and date_time_range DATE_TIME; time and time_range TIME; date_time_aggregation TEXT; every dropdown any type.',
  '`values`/`value_names` (write-only, same length, no NUL character, values of the value type) only for dropdown_manual and dropdown_multi_manual.',
  '`sql_query` only for dropdown and dropdown_multi (optional) and dropdown_dynamic and dropdown_multi_dynamic (required); with a query the `datasource` relationship is required and access-checked.',
  'The four `*_range_enabled` switches only for date_range, date_time_range and time_range; `allowed_aggregations` only for date_time_aggregation, date_range and date_time_range.',
  '`parent_filter` only for the dynamic dropdowns: another filter of the organization, never forming a cycle.',
  '`default_values` must fit the control (one value for single-value controls, "start~end" for ranges, aggregation names for date_time_aggregation) and the value type.',
  'Changing `control_type` clears stored attributes that no longer apply; sending one that does not apply is a 422.',
  "`dashboards` (an extra relationship) puts the filter on those dashboards' filter bars (new ones at the end); a dashboard shows one filter per variable name; locked dashboards refuse.",
  '`sql_snippets` is read-only: the snippets `sql_query` uses.',
].join(' ');

defineRoute(
  filterRoutes,
  createRoute({
    method: 'get',
    path: '/filters',
    cache: 'org-version' as const,
    tags,
    summary: 'List filters',
    description:
      'Filters on no dashboard and filters on dashboards the caller may see, oldest first. Needs View Dashboards. `include` accepts datasource (needs View Datasources, Manage Datasources or Manage Dashboards), sql_snippets, parent_filter and dashboards.',
    'x-permissions': ['view_dashboards'],
    request: { query: listQuery(sortFields(FILTER_LIST), 'oldest first; name is the display name, else the variable name', FILTER_INCLUDES) },
    responses: { 200: listDocument('A page of filters', Filter), ...errorResponses(400, 401, 403, 429) },
  }),
  async (c) => {
    const page = parseListQuery(c, sortFields(FILTER_LIST));
    const include = parseInclude(c, FILTER_INCLUDES);
    return sendList(c, page, await listFilters({ ctx: serviceContext(c), page, include }), include);
  },
);

defineRoute(
  filterRoutes,
  createRoute({
    method: 'post',
    path: '/filters',
    tags,
    summary: 'Create a filter',
    description: `Needs Manage Dashboards. \`variable_name\`, \`control_type\` and \`value_type\` are required. ${RULES}`,
    'x-permissions': ['manage_dashboards'],
    request: { body: jsonApiBody(resourceRequestSchema(filterBody, 'create')) },
    responses: { 201: oneDocument('The new filter', Filter), ...errorResponses(400, 401, 403, 409, 415, 422, 429) },
  }),
  async (c) => {
    const body = await readResourceBody(c, filterBodyReader, 'create');
    const res = await createFilter({ ctx: serviceContext(c), input: body });
    return sendDocument(c, { data: res.data }, 201);
  },
);

defineRoute(
  filterRoutes,
  createRoute({
    method: 'get',
    path: '/filters/{id}',
    cache: 'org-version' as const,
    tags,
    summary: 'Get a filter',
    description:
      'Needs View Dashboards. `values` and `value_names` are write-only and never shown. `include` accepts datasource (needs View Datasources, Manage Datasources or Manage Dashboards), sql_snippets, parent_filter and dashboards.',
    'x-permissions': ['view_dashboards'],
    request: { params: idParam, query: includeQuery(FILTER_INCLUDES) },
    responses: { 200: oneDocument('The filter', Filter), ...errorResponses(400, 401, 403, 404, 429) },
  }),
  async (c) => {
    const include = parseInclude(c, FILTER_INCLUDES);
    const res = await getFilter({ ctx: serviceContext(c), id: c.req.param('id')!, include });
    return sendDocument(c, { data: res.data, ...(include.size ? { included: res.included } : {}) });
  },
);

defineRoute(
  filterRoutes,
  createRoute({
    method: 'patch',
    path: '/filters/{id}',
    tags,
    summary: 'Update a filter',
    description: `Needs Manage Dashboards (for one of the filter's dashboards when the key is restricted). Only the attributes sent change. ${RULES}`,
    'x-permissions': ['manage_dashboards'],
    request: { params: idParam, body: jsonApiBody(resourceRequestSchema(filterBody, 'update')) },
    responses: { 200: oneDocument('The filter', Filter), ...errorResponses(400, 401, 403, 404, 409, 415, 422, 429) },
  }),
  async (c) => {
    const id = c.req.param('id')!;
    const body = await readResourceBody(c, filterBodyReader, 'update', id);
    const res = await updateFilter({ ctx: serviceContext(c), id, input: body });
    return sendDocument(c, { data: res.data });
  },
);

defineRoute(
  filterRoutes,
  createRoute({
    method: 'delete',
    path: '/filters/{id}',
    tags,
    summary: 'Delete a filter',
    description:
      'Needs Manage Dashboards. The filter leaves every dashboard; filters that had it as parent lose their parent; reports that mention its variable see it unset. Refused (422 invalid_state) while one of its dashboards is locked.',
    'x-permissions': ['manage_dashboards'],
    request: { params: idParam },
    responses: { 204: noContent('Deleted'), ...errorResponses(401, 403, 404, 422, 429) },
  }),
  async (c) => {
    await deleteFilter({ ctx: serviceContext(c), id: c.req.param('id')! });
    return c.body(null, 204);
  },
);

const optionsBody = z
  .object({
    dashboard_id: z.string().min(1).max(64).optional().openapi({
      description:
        'The dashboard the options are for: its filters, default parameters and time zone apply. Required for dropdowns whose options come from SQL.',
    }),
    parameters: inputParametersSchema.optional().openapi({
      description: 'The current selection (merged over the dashboard’s default_parameters); parent filters’ values reach the filter’s SQL through it.',
    }),
  })
  .strict()
  .openapi('FilterOptionsRequest');

const OptionSet = z
  .object({
    values: z.array(z.unknown()).openapi({ description: 'Option values: what reaches SQL when selected (first column of the filter’s query).' }),
    value_names: z.array(z.string()).openapi({ description: 'Labels in the same order (second column; the value’s text when there is none).' }),
    parent_values: z.array(z.unknown()).openapi({ description: 'The parent filter’s value these options belong to (third column of the query), or empty.' }),
  })
  .openapi('FilterOptionSet');

const FilterOptions = z
  .object({
    data_timestamp: z.string().nullable().openapi({ description: 'When the options were computed (manual dropdowns: when the filter was last changed).' }),
    options: z.array(OptionSet).openapi({ description: 'Option sets: one per parent value when the query returns a third column, else one.' }),
  })
  .openapi('FilterOptions');

defineRoute(
  filterRoutes,
  createRoute({
    method: 'post',
    path: '/filters/{id}/options',
    tags,
    summary: 'Get a dropdown filter’s options',
    description: [
      'Manual dropdowns: the stored values and value_names. Dropdowns with SQL: the options from the filter’s query run for `dashboard_id` with `parameters`',
      '(first column values, second labels, optional third the parent filter’s value); parent filters are variables of that SQL, so a child’s options follow the parent’s selection.',
      'A result within the filter’s data_refresh_rate is reused (shared with the dashboard’s status polling); otherwise the query runs now and the call waits for it.',
      'Unavailable — 422 invalid_state — when the query has not run successfully within the last 24 hours. Other controls have no options (422 invalid_state).',
      'Needs View Dashboards (and access to the dashboard).',
    ].join(' '),
    'x-permissions': ['view_dashboards'],
    request: { params: idParam, body: actionBody(optionsBody) },
    responses: {
      200: { description: 'The options', content: { 'application/json': { schema: FilterOptions } } },
      ...errorResponses(400, 401, 403, 404, 415, 422, 429),
    },
  }),
  async (c) => {
    const body = await readBody(c, optionsBody, 'action');
    return c.json(await filterOptions(serviceContext(c), c.req.param('id')!, body));
  },
);

defineRoute(
  filterRoutes,
  createRoute({
    method: 'post',
    path: '/filters/{id}/refresh',
    tags,
    summary: 'Refresh a dropdown filter’s options',
    description:
      'Re-runs the filter’s SQL now for `dashboard_id` (default: the first dashboard showing the filter) with `parameters`, and answers with the execution id to follow with GET /executions/{id}. 204 for manual dropdowns and filters without SQL. A filter on no dashboard runs on its own and needs Manage Dashboards. Needs View Dashboards.',
    'x-permissions': ['view_dashboards'],
    request: { params: idParam, body: actionBody(optionsBody) },
    responses: {
      200: {
        description: 'The run started',
        content: { 'application/json': { schema: z.object({ execution_id: z.string().nullable() }).openapi('FilterRefresh') } },
      },
      204: noContent('Nothing to refresh (manual dropdown, no SQL)'),
      ...errorResponses(400, 401, 403, 404, 415, 422, 429),
    },
  }),
  async (c) => {
    const body = await readBody(c, optionsBody, 'action');
    const res = await refreshFilter(serviceContext(c), c.req.param('id')!, body);
    return res ? c.json(res) : c.body(null, 204);
  },
);
