import { OpenAPIHono, createRoute } from '@hono/zod-openapi';
import type { AppEnv } from '../../env.ts';
import { serviceContext } from '../../lib/context.ts';
import { parseInclude, parseListQuery, sendDocument, sendList } from '../../lib/jsonapi.ts';
import { readResourceBody, resourceRequestSchema } from '../../lib/resource-body.ts';
import { defineRoute } from '../../lib/routes.ts';
import { sortFields } from '../../lib/list.ts';
import { errorResponses, idParam, includeQuery, jsonApiBody, listDocument, noContent, oneDocument, listQuery } from '../../lib/openapi.ts';
import { MAX_SNIPPET_DEPTH, SNIPPET_INCLUDES, snippetBody, SqlSnippet } from './schema.ts';
import { createSnippet, deleteSnippet, getSnippet, listSnippets, updateSnippet, SNIPPET_LIST } from './service.ts';

export const sqlSnippetRoutes = new OpenAPIHono<AppEnv>();
const tags = ['SQL snippets'];
const INCLUDES = '`include` accepts datasource (needs View Datasources, Manage Datasources or Manage Dashboards) and sql_snippets.';
const RULES = [
  '`name` is an identifier (letters, digits, underscore; not starting with a digit), unique in the organization ignoring case (409 conflict otherwise); names starting with CAIRN_ are reserved for the built-ins.',
  '`params` is a list of distinct identifiers (at most 20).',
  '`sql_snippets` lists snippets this one uses besides those its text names as `[name]`; the relationship shows both.',
  `A cycle (a → b → a, through the relationship or the text) is refused with 422 naming it, and so is a chain deeper than ${MAX_SNIPPET_DEPTH} levels.`,
  'The optional `datasource` (for editor completion) must be a datasource of the organization the caller may use.',
].join(' ');

defineRoute(
  sqlSnippetRoutes,
  createRoute({
    method: 'get',
    path: '/sql_snippets',
    cache: 'org-version' as const,
    tags,
    summary: 'List SQL snippets',
    description: `The organization's snippets by name. Needs View Dashboards. ${INCLUDES}`,
    'x-permissions': ['view_dashboards'],
    request: { query: listQuery(sortFields(SNIPPET_LIST), 'by name', SNIPPET_INCLUDES) },
    responses: { 200: listDocument('A page of snippets', SqlSnippet), ...errorResponses(400, 401, 403, 429) },
  }),
  async (c) => {
    const page = parseListQuery(c, sortFields(SNIPPET_LIST));
    const include = parseInclude(c, SNIPPET_INCLUDES);
    return sendList(c, page, await listSnippets({ ctx: serviceContext(c), page, include }), include);
  },
);

defineRoute(
  sqlSnippetRoutes,
  createRoute({
    method: 'post',
    path: '/sql_snippets',
    tags,
    summary: 'Create a SQL snippet',
    description: `Needs Manage Dashboards. \`name\` and \`text\` are required. ${RULES}`,
    'x-permissions': ['manage_dashboards'],
    request: { body: jsonApiBody(resourceRequestSchema(snippetBody, 'create')) },
    responses: { 201: oneDocument('The new snippet', SqlSnippet), ...errorResponses(400, 401, 403, 409, 415, 422, 429) },
  }),
  async (c) => {
    const body = await readResourceBody(c, snippetBody, 'create');
    const res = await createSnippet({ ctx: serviceContext(c), input: body });
    return sendDocument(c, { data: res.data }, 201);
  },
);

defineRoute(
  sqlSnippetRoutes,
  createRoute({
    method: 'get',
    path: '/sql_snippets/{id}',
    cache: 'org-version' as const,
    tags,
    summary: 'Get a SQL snippet',
    description: `Needs View Dashboards. ${INCLUDES}`,
    'x-permissions': ['view_dashboards'],
    request: { params: idParam, query: includeQuery(SNIPPET_INCLUDES) },
    responses: { 200: oneDocument('The snippet', SqlSnippet), ...errorResponses(400, 401, 403, 404, 429) },
  }),
  async (c) => {
    const include = parseInclude(c, SNIPPET_INCLUDES);
    const res = await getSnippet({ ctx: serviceContext(c), id: c.req.param('id')!, include });
    return sendDocument(c, { data: res.data, ...(include.size ? { included: res.included } : {}) });
  },
);

defineRoute(
  sqlSnippetRoutes,
  createRoute({
    method: 'patch',
    path: '/sql_snippets/{id}',
    tags,
    summary: 'Update a SQL snippet',
    description: `Needs Manage Dashboards. Only the attributes sent change; a new text applies to every query that uses the snippet. ${RULES}`,
    'x-permissions': ['manage_dashboards'],
    request: { params: idParam, body: jsonApiBody(resourceRequestSchema(snippetBody, 'update')) },
    responses: { 200: oneDocument('The snippet', SqlSnippet), ...errorResponses(400, 401, 403, 404, 409, 415, 422, 429) },
  }),
  async (c) => {
    const id = c.req.param('id')!;
    const body = await readResourceBody(c, snippetBody, 'update', id);
    const res = await updateSnippet({ ctx: serviceContext(c), id, input: body });
    return sendDocument(c, { data: res.data });
  },
);

defineRoute(
  sqlSnippetRoutes,
  createRoute({
    method: 'delete',
    path: '/sql_snippets/{id}',
    tags,
    summary: 'Delete a SQL snippet',
    description:
      'Needs Manage Dashboards. Refused with 422 invalid_state, naming the users, while a report, filter, SQL alert, dashboard or other snippet still uses it.',
    'x-permissions': ['manage_dashboards'],
    request: { params: idParam },
    responses: { 204: noContent('Deleted'), ...errorResponses(401, 403, 404, 422, 429) },
  }),
  async (c) => {
    await deleteSnippet({ ctx: serviceContext(c), id: c.req.param('id')! });
    return c.body(null, 204);
  },
);
