import { OpenAPIHono, createRoute, z } from '@hono/zod-openapi';
import { ApiError } from '@cairn/core';
import type { AppEnv } from '../../env.ts';
import { serviceContext } from '../../lib/context.ts';
import { defineRoute } from '../../lib/routes.ts';
import { errorResponses, idParam, jsonApiBody } from '../../lib/openapi.ts';
import { readResourceBody, resourceRequestSchema } from '../../lib/resource-body.ts';
import { datasourceSchema, refreshDatasource, testConnection } from './engine-actions.ts';
import { datasourceBody } from './schema.ts';
import { testSettings } from './test-settings.ts';

/** Action calls of datasources that talk to the database (registered in app.ts beside datasourceRoutes). */
export const datasourceActionRoutes = new OpenAPIHono<AppEnv>();
const tags = ['Datasources'];
const json = (schema: z.ZodType, description: string) => ({ description, content: { 'application/json': { schema } } });
const NO_DRIVER = 'A database type without a driver yet, an SSH tunnel or an agent connection: 422 invalid_state naming what is missing.';

const ConnectionTest = z
  .object({
    status: z.enum(['ok', 'error']),
    error_message: z.string().nullable().openapi({ description: 'The database’s or the network’s own message when status is error.' }),
  })
  .openapi('ConnectionTest');

const SchemaHandle = z
  .object({
    data_key: z.string(),
    data_access_token: z.string().openapi({
      description: 'A schema token for GET /schema/{data_key} on this region’s data server (`Authorization: Data <token>`); expires within minutes.',
    }),
    data_url: z.string(),
  })
  .openapi('SchemaHandle');

const schemaQuery = z.object({
  name: z
    .string()
    .min(1)
    .max(255)
    .optional()
    .openapi({ description: 'Only this schema (Postgres) or database (MySQL); 404 when the datasource has none of that name.' }),
});

defineRoute(
  datasourceActionRoutes,
  createRoute({
    method: 'post',
    path: '/datasources/{id}/test_connection',
    tags,
    summary: 'Test a datasource connection',
    description: `Connects with the stored settings and answers within 10 s: \`ok\`, or \`error\` with the database’s own message (or “no answer within 10 s” for a port that never speaks the database’s protocol). An ok test records the server_version. Disabled datasources can be tested. ${NO_DRIVER} A datasource that points at Cairn’s own metadata database, or at a private network where the operator blocks those, is a 422 invalid_state with meta.refused. Needs Manage Datasources. No request body.`,
    'x-permissions': ['manage_datasources'],
    request: { params: idParam },
    responses: { 200: json(ConnectionTest, 'The outcome of the test'), ...errorResponses(401, 403, 404, 422, 429) },
  }),
  async (c) => c.json(await testConnection(serviceContext(c), c.req.param('id')!)),
);

/** The settings a test reads: those of a create, without a name (a form is tested before it is named). */
const testBody = { ...datasourceBody, required: ['database_type', 'connection_mode'] } as typeof datasourceBody;

defineRoute(
  datasourceActionRoutes,
  createRoute({
    method: 'post',
    path: '/datasources/test_connection',
    tags,
    summary: 'Test unsaved datasource settings',
    description: `Tests settings before they are saved, the way POST /datasources/{id}/test_connection tests stored ones, and saves nothing. The body is a datasource document as for create (\`database_type\` and \`connection_mode\` required, \`name\` optional). With \`data.id\` it tests the edits of that datasource: the sent attributes over the stored ones (a password that is not sent is the stored one). The per-type rules of create/update apply first (422 for what a save would refuse). Answers within 10 s: \`ok\`, or \`error\` with the database’s own message. ${NO_DRIVER} Needs Manage Datasources (with \`data.id\`, on that datasource).`,
    'x-permissions': ['manage_datasources'],
    request: { body: jsonApiBody(resourceRequestSchema(testBody, 'create')) },
    responses: { 200: json(ConnectionTest, 'The outcome of the test'), ...errorResponses(400, 401, 403, 404, 415, 422, 429) },
  }),
  async (c) => {
    const raw = await c.req.text();
    let id: string | null = null;
    try {
      const data = (JSON.parse(raw) as { data?: { id?: unknown } } | null)?.data;
      if (data && typeof data === 'object' && data.id !== undefined) {
        if (typeof data.id !== 'string' || !data.id)
          throw new ApiError('invalid_attribute', 'data.id must be the id of a datasource.', { source: { pointer: '/data/id' } });
        id = data.id;
      }
    } catch (err) {
      if (err instanceof ApiError) throw err;
      // Not JSON: readResourceBody answers it.
    }
    const body = id ? await readResourceBody(c, datasourceBody, 'update', id) : await readResourceBody(c, testBody, 'create');
    return c.json(await testSettings(serviceContext(c), body, id));
  },
);

defineRoute(
  datasourceActionRoutes,
  createRoute({
    method: 'post',
    path: '/datasources/{id}/refresh',
    tags,
    summary: 'Refresh a datasource’s schema',
    description: `Reads the schema again in the background — the included_schemas / included_databases, with row counts when update_schema_row_counts is on — and updates schema_updated_at, total_row_count and total_row_count_exact. Answers with the execution (type almanach_query) to follow with GET /executions/{id}. ${NO_DRIVER} Needs Manage Datasources. No request body.`,
    'x-permissions': ['manage_datasources'],
    request: { params: idParam },
    responses: {
      200: json(z.object({ execution_id: z.string() }).openapi('DatasourceRefresh'), 'The refresh started'),
      ...errorResponses(401, 403, 404, 422, 429),
    },
  }),
  async (c) => c.json(await refreshDatasource(serviceContext(c), c.req.param('id')!)),
);

defineRoute(
  datasourceActionRoutes,
  createRoute({
    method: 'get',
    path: '/datasources/{id}/schema',
    tags,
    summary: 'Get a datasource’s schema (data key)',
    description: `A data key and token for the data server’s GET /schema/{data_key}, which returns schemas → tables → columns (name, db_type, data_type). The schema is cached for a day: when the cache is older (or empty) this call reads it first and waits for it (422 invalid_state with the database’s message when that fails). With \`name\`, the token returns that one schema. ${NO_DRIVER} Needs View Datasources.`,
    'x-permissions': ['view_datasources'],
    request: { params: idParam, query: schemaQuery },
    responses: { 200: json(SchemaHandle, 'Where and how to fetch the schema'), ...errorResponses(400, 401, 403, 404, 422, 429) },
  }),
  async (c) => {
    const name = c.req.query('name');
    if (name !== undefined && (name.length === 0 || name.length > 255)) {
      throw new ApiError('invalid_query_parameter', 'name must be 1 to 255 characters.', { source: { parameter: 'name' } });
    }
    return c.json(await datasourceSchema(serviceContext(c), c.req.param('id')!, name));
  },
);
