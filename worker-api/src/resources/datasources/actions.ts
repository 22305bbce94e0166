import { OpenAPIHono, createRoute, z } from '@hono/zod-openapi';
import { ApiError } from '@cairn/core';
import type { AppEnv } from '../../env.ts';
import { serviceContext } from '../../lib/context.ts';
import { defineRoute } from '../../lib/routes.ts';
import { errorResponses, idParam } from '../../lib/openapi.ts';
import { datasourceSchema, refreshDatasource, testConnection } from './engine-actions.ts';

/** Action calls of datasources that talk to the database (registered in app.ts beside datasourceRoutes). */
export const datasourceActionRoutes = new OpenAPIHono<AppEnv>();
const tags = ['Datasources'];
const json = (schema: z.ZodType, description: string) => ({ description, content: { 'application/json': { schema } } });
const NO_DRIVER = 'A database type without a driver yet, an SSH tunnel or an agent connection: 422 invalid_state naming what is missing.';

const ConnectionTest = z.object({
  status: z.enum(['ok', 'error']),
  error_message: z.string().nullable().openapi({ description: 'The database’s or the network’s own message when status is error.' }),
}).openapi('ConnectionTest');

const SchemaHandle = z.object({
  data_key: z.string(),
  data_access_token: z.string().openapi({ description: 'A schema token for GET /schema/{data_key} on this region’s data server (`Authorization: Data <token>`); expires within minutes.' }),
  data_url: z.string(),
}).openapi('SchemaHandle');

const schemaQuery = z.object({
  name: z.string().min(1).max(255).optional().openapi({ description: 'Only this schema (Postgres) or database (MySQL); 404 when the datasource has none of that name.' }),
});

defineRoute(datasourceActionRoutes, createRoute({
  method: 'post', path: '/datasources/{id}/test_connection', tags, summary: 'Test a datasource connection',
  description: `Connects with the stored settings and answers within 15 s: \`ok\`, or \`error\` with the database’s own message (or “no answer within 15 s” for a port that never speaks the database’s protocol). An ok test records the server_version. Disabled datasources can be tested. ${NO_DRIVER} A datasource that points at Cairn’s own metadata database, or at a private network where the operator blocks those, is a 422 invalid_state with meta.refused. Needs Manage Datasources. No request body.`,
  'x-permissions': ['manage_datasources'],
  request: { params: idParam },
  responses: { 200: json(ConnectionTest, 'The outcome of the test'), ...errorResponses(401, 403, 404, 422, 429) },
}), async (c) => c.json(await testConnection(serviceContext(c), c.req.param('id')!)));

defineRoute(datasourceActionRoutes, createRoute({
  method: 'post', path: '/datasources/{id}/refresh', tags, summary: 'Refresh a datasource’s schema',
  description: `Reads the schema again in the background — the included_schemas / included_databases, with row counts when update_schema_row_counts is on — and updates schema_updated_at, total_row_count and total_row_count_exact. Answers with the execution (type almanach_query) to follow with GET /executions/{id}. ${NO_DRIVER} Needs Manage Datasources. No request body.`,
  'x-permissions': ['manage_datasources'],
  request: { params: idParam },
  responses: { 200: json(z.object({ execution_id: z.string() }).openapi('DatasourceRefresh'), 'The refresh started'), ...errorResponses(401, 403, 404, 422, 429) },
}), async (c) => c.json(await refreshDatasource(serviceContext(c), c.req.param('id')!)));

defineRoute(datasourceActionRoutes, createRoute({
  method: 'get', path: '/datasources/{id}/schema', tags, summary: 'Get a datasource’s schema (data key)',
  description: `A data key and token for the data server’s GET /schema/{data_key}, which returns schemas → tables → columns (name, db_type, data_type). The schema is cached for a day: when the cache is older (or empty) this call reads it first and waits for it (422 invalid_state with the database’s message when that fails). With \`name\`, the token returns that one schema. ${NO_DRIVER} Needs View Datasources.`,
  'x-permissions': ['view_datasources'],
  request: { params: idParam, query: schemaQuery },
  responses: { 200: json(SchemaHandle, 'Where and how to fetch the schema'), ...errorResponses(400, 401, 403, 404, 422, 429) },
}), async (c) => {
  const known = new Set(['name']);
  for (const k of Object.keys(c.req.queries())) {
    if (!known.has(k)) throw new ApiError('invalid_query_parameter', `Unknown query parameter "${k}"; this call takes name.`, { source: { parameter: k } });
  }
  const name = c.req.query('name');
  if (name !== undefined && (name.length === 0 || name.length > 255)) {
    throw new ApiError('invalid_query_parameter', 'name must be 1 to 255 characters.', { source: { parameter: 'name' } });
  }
  return c.json(await datasourceSchema(serviceContext(c), c.req.param('id')!, name));
});
