import { OpenAPIHono, createRoute } from '@hono/zod-openapi';
import type { AppEnv } from '../../env.ts';
import { serviceContext } from '../../lib/context.ts';
import { readBody } from '../../lib/body.ts';
import { errorResponses, idParam } from '../../lib/openapi.ts';
import { dataHandle, reportDataBody } from './schema.ts';
import { reportData } from './service.ts';

export const reportRoutes = new OpenAPIHono<AppEnv>();

const data = createRoute({
  method: 'post',
  path: '/reports/{id}/data',
  tags: ['Reports'],
  summary: 'Get report data',
  description:
    "Runs the report with the parameters (or reuses a result that is still fresh) and returns a data key and a short-lived data access token. Fetch the rows from the data server of the same region: `GET /data/{data_key}` with `Authorization: Data {token}`. 204 when the result has no rows.",
  'x-permissions': ['view_dashboards'],
  request: {
    params: idParam,
    body: { required: false, content: { 'application/json': { schema: reportDataBody } } },
  },
  responses: {
    200: { description: 'Where and how to fetch the result', content: { 'application/json': { schema: dataHandle } } },
    204: { description: 'The result has no rows' },
    ...errorResponses(400, 401, 403, 404, 415, 422, 429),
  },
});

// Documented from the same schema, but validated once, by readBody: it also accepts an empty body
// and answers 415/400/422 with pointers (the generated validator would parse the body a second time).
reportRoutes.openAPIRegistry.registerPath(data);
reportRoutes.post('/reports/:id/data', async (c) => {
  const body = await readBody(c, reportDataBody, 'action');
  const res = await reportData({ ctx: serviceContext(c), id: c.req.param('id'), parameters: body.parameters, format: body.data_format });
  if (!res) return c.body(null, 204);
  return c.json(res, 200);
});
