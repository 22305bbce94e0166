import { OpenAPIHono, createRoute } from '@hono/zod-openapi';
import type { AppEnv } from '../../env.ts';
import { serviceContext } from '../../lib/context.ts';
import { parseInclude, parseListQuery, sendDocument, sendList } from '../../lib/jsonapi.ts';
import { readResourceBody, resourceRequestSchema } from '../../lib/resource-body.ts';
import { defineRoute } from '../../lib/routes.ts';
import { sortFields } from '../../lib/list.ts';
import { errorResponses, idParam, includeQuery, jsonApiBody, listDocument, noContent, oneDocument, listQuery } from '../../lib/openapi.ts';
import { Datasource, DATASOURCE_INCLUDES, datasourceBody } from './schema.ts';
import { createDatasource, deleteDatasource, getDatasource, listDatasources, updateDatasource, DATASOURCE_LIST } from './service.ts';

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
    return sendList(c, page, await listDatasources(serviceContext(c), page, include), include);
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
    const res = await createDatasource(serviceContext(c), body);
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
    const res = await getDatasource(serviceContext(c), c.req.param('id')!, include);
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
    const res = await updateDatasource(serviceContext(c), id, body);
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
    await deleteDatasource(serviceContext(c), c.req.param('id')!);
    return c.body(null, 204);
  },
);
