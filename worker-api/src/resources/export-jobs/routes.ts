import { OpenAPIHono, createRoute } from '@hono/zod-openapi';
import type { AppEnv } from '../../env.ts';
import { serviceContext } from '../../lib/context.ts';
import { sendDocument } from '../../lib/jsonapi.ts';
import { defineRoute } from '../../lib/routes.ts';
import { errorResponses, idParam, noContent, oneDocument } from '../../lib/openapi.ts';
import { ExportJob } from './schema.ts';
import { deleteExportJob, getExportJob } from './service.ts';

export const exportJobRoutes = new OpenAPIHono<AppEnv>();
const tags = ['Export jobs'];

defineRoute(exportJobRoutes, createRoute({
  method: 'get', path: '/export_jobs/{id}', tags, summary: 'Get an export job',
  description: 'Poll until job_status is success (file_url: a URL of the file, valid for a few minutes — fetch it at once) or error (error_message). Needs View Dashboards on the job\'s dashboard (for a report export, the report\'s dashboard).',
  'x-permissions': ['view_dashboards'],
  request: { params: idParam },
  responses: { 200: oneDocument('The job', ExportJob), ...errorResponses(401, 403, 404, 429) },
}), async (c) => {
  const res = await getExportJob(serviceContext(c), c.req.param('id')!);
  return sendDocument(c, { data: res.data });
});

defineRoute(exportJobRoutes, createRoute({
  method: 'delete', path: '/export_jobs/{id}', tags, summary: 'Delete an export job',
  description: 'Removes the job; a running job is abandoned and its file is no longer handed out. Needs Manage Dashboards on the job\'s dashboard — or View Dashboards for the key or user that started the job.',
  'x-permissions': ['manage_dashboards'],
  request: { params: idParam },
  responses: { 204: noContent('Deleted'), ...errorResponses(401, 403, 404, 429) },
}), async (c) => {
  await deleteExportJob(serviceContext(c), c.req.param('id')!);
  return c.body(null, 204);
});
