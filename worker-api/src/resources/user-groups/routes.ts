import { OpenAPIHono, createRoute } from '@hono/zod-openapi';
import type { AppEnv } from '../../env.ts';
import { serviceContext } from '../../lib/context.ts';
import { parseInclude, parseListQuery, sendDocument, sendList } from '../../lib/jsonapi.ts';
import { readResourceBody, resourceRequestSchema } from '../../lib/resource-body.ts';
import { defineRoute } from '../../lib/routes.ts';
import { sortFields } from '../../lib/list.ts';
import { errorResponses, includeQuery, jsonApiBody, listDocument, noContent, oneDocument, listQuery } from '../../lib/openapi.ts';
import { z } from '@hono/zod-openapi';
import { USER_GROUP_INCLUDES, UserGroup, userGroupBody } from './schema.ts';
import { createUserGroup, deleteUserGroup, getUserGroup, listUserGroups, updateUserGroup, USER_GROUP_LIST } from './service.ts';

export const userGroupRoutes = new OpenAPIHono<AppEnv>();
const tags = ['User groups'];
const idOrAlias = z.object({
  id: z
    .string()
    .min(1)
    .max(64)
    .openapi({ param: { name: 'id', in: 'path' }, description: 'A group id, or all_users / all_analysts for the built-in groups.', example: 'all_users' }),
});

defineRoute(
  userGroupRoutes,
  createRoute({
    method: 'get',
    path: '/user_groups',
    tags,
    summary: 'List user groups',
    description: 'The built-in groups first, then by name. Needs View Users.',
    'x-permissions': ['view_users'],
    request: { query: listQuery(sortFields(USER_GROUP_LIST), 'built-in groups first, then by name', USER_GROUP_INCLUDES) },
    responses: { 200: listDocument('A page of user groups', UserGroup), ...errorResponses(400, 401, 403, 429) },
  }),
  async (c) => {
    const page = parseListQuery(c, sortFields(USER_GROUP_LIST));
    const include = parseInclude(c, USER_GROUP_INCLUDES);
    return sendList(c, page, await listUserGroups({ ctx: serviceContext(c), page, include }), include);
  },
);

defineRoute(
  userGroupRoutes,
  createRoute({
    method: 'post',
    path: '/user_groups',
    tags,
    summary: 'Create a user group',
    description: 'Needs Manage Users. `name` is required and unique (case-insensitive); `users` sets the members.',
    'x-permissions': ['manage_users'],
    request: { body: jsonApiBody(resourceRequestSchema(userGroupBody, 'create')) },
    responses: { 201: oneDocument('The new group', UserGroup), ...errorResponses(400, 401, 403, 409, 415, 422, 429) },
  }),
  async (c) => {
    const body = await readResourceBody(c, userGroupBody, 'create');
    return sendDocument(c, { data: (await createUserGroup({ ctx: serviceContext(c), input: body })).data }, 201);
  },
);

defineRoute(
  userGroupRoutes,
  createRoute({
    method: 'get',
    path: '/user_groups/{id}',
    tags,
    summary: 'Get a user group',
    description: 'Needs View Users. Include users or dashboards (the dashboards shared with the group that the caller may see).',
    'x-permissions': ['view_users'],
    request: { params: idOrAlias, query: includeQuery(USER_GROUP_INCLUDES) },
    responses: { 200: oneDocument('The group', UserGroup), ...errorResponses(400, 401, 403, 404, 429) },
  }),
  async (c) => {
    const include = parseInclude(c, USER_GROUP_INCLUDES);
    const res = await getUserGroup({ ctx: serviceContext(c), id: c.req.param('id')!, include });
    return sendDocument(c, { data: res.data, ...(include.size ? { included: res.included } : {}) });
  },
);

defineRoute(
  userGroupRoutes,
  createRoute({
    method: 'patch',
    path: '/user_groups/{id}',
    tags,
    summary: 'Update a user group',
    description: 'Needs Manage Users. `users` replaces the members; the built-in groups keep theirs by rule (422 when set).',
    'x-permissions': ['manage_users'],
    request: { params: idOrAlias, body: jsonApiBody(resourceRequestSchema(userGroupBody, 'update')) },
    responses: { 200: oneDocument('The group', UserGroup), ...errorResponses(400, 401, 403, 404, 409, 415, 422, 429) },
  }),
  async (c) => {
    const id = c.req.param('id')!;
    const group = await getUserGroup({ ctx: serviceContext(c), id, include: new Set() });
    const body = await readResourceBody(c, userGroupBody, 'update', group.data.id);
    return sendDocument(c, { data: (await updateUserGroup({ ctx: serviceContext(c), id, input: body })).data });
  },
);

defineRoute(
  userGroupRoutes,
  createRoute({
    method: 'delete',
    path: '/user_groups/{id}',
    tags,
    summary: 'Delete a user group',
    description: 'Needs Manage Users. The built-in groups cannot be deleted (422). Dashboards shared with the group are no longer shared with its members.',
    'x-permissions': ['manage_users'],
    request: { params: idOrAlias },
    responses: { 204: noContent('Deleted'), ...errorResponses(401, 403, 404, 422, 429) },
  }),
  async (c) => {
    await deleteUserGroup({ ctx: serviceContext(c), id: c.req.param('id')! });
    return c.body(null, 204);
  },
);
