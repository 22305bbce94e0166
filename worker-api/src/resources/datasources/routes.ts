import { OpenAPIHono, createRoute, z } from '@hono/zod-openapi';
import type { AppEnv } from '../../env.ts';
import { serviceContext } from '../../lib/context.ts';
import { parseInclude, parseListQuery, sendDocument, sendList } from '../../lib/jsonapi.ts';
import { readResourceBody, resourceRequestSchema } from '../../lib/resource-body.ts';
import { defineRoute } from '../../lib/routes.ts';
import { sortFields } from '../../lib/list.ts';
import { errorResponses, idParam, includeQuery, jsonApiBody, listDocument, noContent, oneDocument, listQuery } from '../../lib/openapi.ts';
import { Datasource, DATASOURCE_INCLUDES, datasourceBody } from './schema.ts';
import { createDatasource, deleteDatasource, getDatasource, listDatasources, updateDatasource, DATASOURCE_LIST } from './service.ts';
import { ApiError } from '@cairn/core';
import { datasourceSchema, refreshDatasource, testConnection } from './engine-actions.ts';
import { testSettings } from './test-settings.ts';

export const datasourceRoutes = new OpenAPIHono<AppEnv>();
const tags = ['Datasources'];
const CREDENTIALS =
  'Credentials (`username`, `ssh_tunnel_user`, `password_set`, `bigquery_service_key_set`) are shown only with Manage Datasources; the password and the BigQuery key are write-only and never shown.';

defineRoute(
  datasourceRoutes,
  createRoute({
    method: 'get',
    path: '/datasources',
    tags,
    summary: 'List datasources',
    description: `Ordered by name. A key restricted to some datasources lists only those. Needs View Datasources. ${CREDENTIALS}`,
    'x-permissions': ['view_datasources'],
    request: { query: listQuery(sortFields(DATASOURCE_LIST), 'by name', DATASOURCE_INCLUDES) },
    responses: { 200: listDocument('A page of datasources', Datasource), ...errorResponses(400, 401, 403, 429) },
  }),
  async (c) => {
    const page = parseListQuery(c, sortFields(DATASOURCE_LIST));
    const include = parseInclude(c, DATASOURCE_INCLUDES);
    return sendList(c, page, await listDatasources({ ctx: serviceContext(c), page, include }), include);
  },
);

defineRoute(
  datasourceRoutes,
  createRoute({
    method: 'post',
    path: '/datasources',
    tags,
    summary: 'Create a datasource',
    description: [
      'Needs Manage Datasources (not restricted to particular datasources). Requires `name`, `database_type` and `connection_mode`.',
      'Per type: server databases need `host` (the port defaults per type: postgres 5432, redshift 5439, mysql/mariadb 3306, oracle 1521, mssql 1433, presto/trino 8080, vertica 5433, mongodb 27017, clickhouse 8123 or 8443 with require_ssl, databricks 443);',
      'athena needs `athena_s3_output_location` (s3://…), `username` (access key ID) and `password` (secret access key); databricks needs `databricks_http_path` and `password`, and with `databricks_auth_mode` oauth_m2m also `username` (client ID) and `databricks_auth_expires_at`;',
      'snowflake needs `snowflake_identifier`, `username` and `password`; bigquery needs `bigquery_service_key`.',
      '`ssh_tunnel` needs `ssh_tunnel_host` and `ssh_tunnel_user` (port 22 by default) and is not available for bigquery, athena, snowflake, databricks and mongodbatlas; `agent` needs the `agents` relationship.',
      'The plan limits the number of datasources (the sample datasource does not count): 422 `plan_limit`.',
    ].join(' '),
    'x-permissions': ['manage_datasources'],
    request: { body: jsonApiBody(resourceRequestSchema(datasourceBody, 'create')) },
    responses: { 201: oneDocument('The new datasource', Datasource), ...errorResponses(400, 401, 403, 409, 415, 422, 429) },
  }),
  async (c) => {
    const body = await readResourceBody(c, datasourceBody, 'create');
    const res = await createDatasource({ ctx: serviceContext(c), input: body });
    return sendDocument(c, { data: res.data }, 201);
  },
);

defineRoute(
  datasourceRoutes,
  createRoute({
    method: 'get',
    path: '/datasources/{id}',
    tags,
    summary: 'Get a datasource',
    description: `Needs View Datasources on this datasource. \`include=agents\` adds its agents. ${CREDENTIALS}`,
    'x-permissions': ['view_datasources'],
    request: { params: idParam, query: includeQuery(DATASOURCE_INCLUDES) },
    responses: { 200: oneDocument('The datasource', Datasource), ...errorResponses(400, 401, 403, 404, 429) },
  }),
  async (c) => {
    const include = parseInclude(c, DATASOURCE_INCLUDES);
    const res = await getDatasource({ ctx: serviceContext(c), id: c.req.param('id')!, include });
    return sendDocument(c, { data: res.data, ...(include.size ? { included: res.included } : {}) });
  },
);

defineRoute(
  datasourceRoutes,
  createRoute({
    method: 'patch',
    path: '/datasources/{id}',
    tags,
    summary: 'Update a datasource',
    description:
      'Needs Manage Datasources on this datasource. Only the attributes sent change; the result must still satisfy the rules of its type (see create). `database_type` is set on create only. `port: null` restores the default port; `password: null` removes the password. `agents` replaces the agent list; leaving agent mode drops it. The Sample data datasource cannot be changed (422 `invalid_state`).',
    'x-permissions': ['manage_datasources'],
    request: { params: idParam, body: jsonApiBody(resourceRequestSchema(datasourceBody, 'update')) },
    responses: { 200: oneDocument('The datasource', Datasource), ...errorResponses(400, 401, 403, 404, 409, 415, 422, 429) },
  }),
  async (c) => {
    const id = c.req.param('id')!;
    const body = await readResourceBody(c, datasourceBody, 'update', id);
    const res = await updateDatasource({ ctx: serviceContext(c), id, input: body });
    return sendDocument(c, { data: res.data });
  },
);

defineRoute(
  datasourceRoutes,
  createRoute({
    method: 'delete',
    path: '/datasources/{id}',
    tags,
    summary: 'Delete a datasource',
    description:
      'Needs Manage Datasources on this datasource. Refused (422 `invalid_state`, naming one of them) while a report, filter or SQL alert uses it; the Sample data datasource cannot be deleted.',
    'x-permissions': ['manage_datasources'],
    request: { params: idParam },
    responses: { 204: noContent('Deleted'), ...errorResponses(401, 403, 404, 422, 429) },
  }),
  async (c) => {
    await deleteDatasource({ ctx: serviceContext(c), id: c.req.param('id')! });
    return c.body(null, 204);
  },
);

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
  datasourceRoutes,
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
  datasourceRoutes,
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
  datasourceRoutes,
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
  datasourceRoutes,
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
