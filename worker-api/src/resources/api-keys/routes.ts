import { OpenAPIHono, createRoute } from '@hono/zod-openapi';
import type { AppEnv } from '../../env.ts';
import { serviceContext } from '../../lib/context.ts';
import { parseListQuery, sendDocument, sendList } from '../../lib/jsonapi.ts';
import { readResourceBody, resourceRequestSchema } from '../../lib/resource-body.ts';
import { defineRoute } from '../../lib/routes.ts';
import { sortFields } from '../../lib/list.ts';
import { errorResponses, idParam, jsonApiBody, listDocument, noContent, oneDocument, listQuery } from '../../lib/openapi.ts';
import { ApiKey, apiKeyBody } from './schema.ts';
import { createKey, deleteKey, getKey, listKeys, updateKey, API_KEY_LIST } from './service.ts';

/**
 * API keys, for the app's Administration page. Only admins signed in to the app may call these;
 * an API key gets 403 whatever its permissions (keys never mint keys).
 */
export const apiKeyRoutes = new OpenAPIHono<AppEnv>();
const tags = ['API keys (admins in the app)'];
const WHO = 'Only for admins signed in to the web app (session); API keys are refused with 403.';

defineRoute(
  apiKeyRoutes,
  createRoute({
    method: 'get',
    path: '/api_keys',
    tags,
    summary: 'List API keys',
    description: `Oldest first. ${WHO}`,
    'x-permissions': ['admin session'],
    request: { query: listQuery(sortFields(API_KEY_LIST), 'oldest first') },
    responses: { 200: listDocument('A page of API keys', ApiKey), ...errorResponses(400, 401, 403, 429) },
  }),
  async (c) => {
    const page = parseListQuery(c, sortFields(API_KEY_LIST));
    return sendList(c, page, await listKeys({ ctx: serviceContext(c), page }));
  },
);

defineRoute(
  apiKeyRoutes,
  createRoute({
    method: 'post',
    path: '/api_keys',
    tags,
    summary: 'Create an API key',
    description: `The answer's \`secret\` is the whole key, shown this once. Restricted resources must exist in the organization. ${WHO}`,
    'x-permissions': ['admin session'],
    request: { body: jsonApiBody(resourceRequestSchema(apiKeyBody, 'create')) },
    responses: { 201: oneDocument('The new key, with its secret', ApiKey), ...errorResponses(400, 401, 403, 409, 415, 422, 429) },
  }),
  async (c) => {
    const body = await readResourceBody(c, apiKeyBody, 'create');
    return sendDocument(c, { data: await createKey({ ctx: serviceContext(c), input: body.attributes }) }, 201);
  },
);

defineRoute(
  apiKeyRoutes,
  createRoute({
    method: 'get',
    path: '/api_keys/{id}',
    tags,
    summary: 'Get an API key',
    description: WHO,
    'x-permissions': ['admin session'],
    request: { params: idParam },
    responses: { 200: oneDocument('The key (never its secret)', ApiKey), ...errorResponses(401, 403, 404, 429) },
  }),
  async (c) => sendDocument(c, { data: await getKey({ ctx: serviceContext(c), id: c.req.param('id')! }) }),
);

defineRoute(
  apiKeyRoutes,
  createRoute({
    method: 'patch',
    path: '/api_keys/{id}',
    tags,
    summary: 'Update an API key',
    description: `Rename, change permissions, or disable/enable (a disabled key is refused with 401 api_key_disabled until enabled again). ${WHO}`,
    'x-permissions': ['admin session'],
    request: { params: idParam, body: jsonApiBody(resourceRequestSchema(apiKeyBody, 'update')) },
    responses: { 200: oneDocument('The key', ApiKey), ...errorResponses(400, 401, 403, 404, 409, 415, 422, 429) },
  }),
  async (c) => {
    const id = c.req.param('id')!;
    const body = await readResourceBody(c, apiKeyBody, 'update', id);
    return sendDocument(c, { data: await updateKey({ ctx: serviceContext(c), id, input: body.attributes }) });
  },
);

defineRoute(
  apiKeyRoutes,
  createRoute({
    method: 'delete',
    path: '/api_keys/{id}',
    tags,
    summary: 'Delete an API key',
    description: `The key stops working at once. ${WHO}`,
    'x-permissions': ['admin session'],
    request: { params: idParam },
    responses: { 204: noContent('Deleted'), ...errorResponses(401, 403, 404, 429) },
  }),
  async (c) => {
    await deleteKey({ ctx: serviceContext(c), id: c.req.param('id')! });
    return c.body(null, 204);
  },
);
