import { OpenAPIHono, createRoute } from '@hono/zod-openapi';
import { regionUrls } from '@cairn/core';
import type { AppEnv } from '../../env.ts';
import { serviceContext } from '../../lib/context.ts';
import { parseInclude, parseListQuery, sendDocument, sendList } from '../../lib/jsonapi.ts';
import { readResourceBody, resourceRequestSchema } from '../../lib/resource-body.ts';
import { defineRoute } from '../../lib/routes.ts';
import { sortFields } from '../../lib/list.ts';
import { errorResponses, idParam, includeQuery, jsonApiBody, listDocument, noContent, oneDocument, listQuery } from '../../lib/openapi.ts';
import { AGENT_INCLUDES, agentBody, agentServerMeta, DatasourceAgent, NewDatasourceAgent } from './schema.ts';
import { createAgent, deleteAgent, getAgent, listAgents, updateAgent, AGENT_LIST } from './service.ts';

export const datasourceAgentRoutes = new OpenAPIHono<AppEnv>();
const tags = ['Datasource agents'];

defineRoute(
  datasourceAgentRoutes,
  createRoute({
    method: 'get',
    path: '/datasource_agents',
    tags,
    summary: 'List datasource agents',
    description: 'Ordered by name. Needs View Datasources. `include=datasources` adds the datasources (the caller may see) that use each agent.',
    'x-permissions': ['view_datasources'],
    request: { query: listQuery(sortFields(AGENT_LIST), 'by name', AGENT_INCLUDES) },
    responses: { 200: listDocument('A page of agents', DatasourceAgent), ...errorResponses(400, 401, 403, 429) },
  }),
  async (c) => {
    const page = parseListQuery(c, sortFields(AGENT_LIST));
    const include = parseInclude(c, AGENT_INCLUDES);
    return sendList(c, page, await listAgents({ ctx: serviceContext(c), page, include }), include);
  },
);

defineRoute(
  datasourceAgentRoutes,
  createRoute({
    method: 'post',
    path: '/datasource_agents',
    tags,
    summary: 'Create a datasource agent',
    description:
      'Needs Manage Datasources. Requires `name`. The answer holds the generated `agent_id` and `secret_key`; the secret key is shown only here (Cairn stores its hash), so configure the agent with it now. `meta.agent_server` is the URL to start the agent with (`cairn-agent --server <agent_server> --agent <agent_id> --secret <secret_key>`).',
    'x-permissions': ['manage_datasources'],
    request: { body: jsonApiBody(resourceRequestSchema(agentBody, 'create')) },
    responses: {
      201: oneDocument('The new agent, with its one-time secret key', NewDatasourceAgent, agentServerMeta),
      ...errorResponses(400, 401, 403, 409, 415, 422, 429),
    },
  }),
  async (c) => {
    const body = await readResourceBody(c, agentBody, 'create');
    // meta.agent_server: the --server the agent starts with (this region's public API base URL).
    return sendDocument(
      c,
      { ...(await createAgent({ ctx: serviceContext(c), input: body })), meta: { agent_server: regionUrls(c.env, c.env.REGION).api } },
      201,
    );
  },
);

defineRoute(
  datasourceAgentRoutes,
  createRoute({
    method: 'get',
    path: '/datasource_agents/{id}',
    tags,
    summary: 'Get a datasource agent',
    description: 'Needs View Datasources. `version`, `address`, `connected` and `active_queries` are reported by the running agent.',
    'x-permissions': ['view_datasources'],
    request: { params: idParam, query: includeQuery(AGENT_INCLUDES) },
    responses: { 200: oneDocument('The agent', DatasourceAgent), ...errorResponses(400, 401, 403, 404, 429) },
  }),
  async (c) => {
    const include = parseInclude(c, AGENT_INCLUDES);
    const res = await getAgent({ ctx: serviceContext(c), id: c.req.param('id')!, include });
    return sendDocument(c, { data: res.data, ...(include.size ? { included: res.included } : {}) });
  },
);

defineRoute(
  datasourceAgentRoutes,
  createRoute({
    method: 'patch',
    path: '/datasource_agents/{id}',
    tags,
    summary: 'Update a datasource agent',
    description:
      'Needs Manage Datasources. `name` and `enabled` can change; everything else is read-only. Which datasources use an agent is set on the datasource (its `agents` relationship).',
    'x-permissions': ['manage_datasources'],
    request: { params: idParam, body: jsonApiBody(resourceRequestSchema(agentBody, 'update')) },
    responses: { 200: oneDocument('The agent', DatasourceAgent), ...errorResponses(400, 401, 403, 404, 409, 415, 422, 429) },
  }),
  async (c) => {
    const id = c.req.param('id')!;
    const body = await readResourceBody(c, agentBody, 'update', id);
    const res = await updateAgent({ ctx: serviceContext(c), id, input: body });
    return sendDocument(c, { data: res.data });
  },
);

defineRoute(
  datasourceAgentRoutes,
  createRoute({
    method: 'delete',
    path: '/datasource_agents/{id}',
    tags,
    summary: 'Delete a datasource agent',
    description: 'Needs Manage Datasources. Refused (422 `invalid_state`, naming the datasource) while a datasource uses the agent.',
    'x-permissions': ['manage_datasources'],
    request: { params: idParam },
    responses: { 204: noContent('Deleted'), ...errorResponses(401, 403, 404, 422, 429) },
  }),
  async (c) => {
    await deleteAgent({ ctx: serviceContext(c), id: c.req.param('id')! });
    return c.body(null, 204);
  },
);
