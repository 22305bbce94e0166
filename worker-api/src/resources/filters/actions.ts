import { OpenAPIHono, createRoute, z } from '@hono/zod-openapi';
import type { AppEnv } from '../../env.ts';
import { serviceContext } from '../../lib/context.ts';
import { readBody } from '../../lib/body.ts';
import { defineRoute } from '../../lib/routes.ts';
import { actionBody, errorResponses, idParam, noContent } from '../../lib/openapi.ts';
import { inputParametersSchema } from '../reports/schema.ts';
import { filterOptions, refreshFilter } from './options.ts';

/** Action calls of filters: options and refresh (registered in app.ts beside filterRoutes). */
export const filterActionRoutes = new OpenAPIHono<AppEnv>();
const tags = ['Filters'];

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
  filterActionRoutes,
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
  filterActionRoutes,
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
