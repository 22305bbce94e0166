import { OpenAPIHono, createRoute, z } from '@hono/zod-openapi';
import { CSV_COLUMN_SEPARATORS, CSV_DECIMAL_SEPARATORS, CSV_QUOTE_STYLES } from '@cairn/core/export/index';
import type { AppEnv } from '../../env.ts';
import { serviceContext } from '../../lib/context.ts';
import { sendDocument } from '../../lib/jsonapi.ts';
import { defineRoute } from '../../lib/routes.ts';
import { actionBody, errorResponses, idParam, noContent, oneDocument } from '../../lib/openapi.ts';
import { readBody } from '../../lib/body.ts';
import { inputParametersSchema } from '../reports/schema.ts';
import { exportDashboard, exportReportCsv, exportReportImage, PAGE_WIDTH } from './create.ts';
import { ExportJob } from './schema.ts';
import { deleteExportJob, getExportJob } from './service.ts';

export const exportJobRoutes = new OpenAPIHono<AppEnv>();
const tags = ['Export jobs'];

defineRoute(
  exportJobRoutes,
  createRoute({
    method: 'get',
    path: '/export_jobs/{id}',
    tags,
    summary: 'Get an export job',
    description:
      "Poll until job_status is success (file_url: a URL of the file, valid for a few minutes — fetch it at once) or error (error_message). Needs View Dashboards on the job's dashboard (for a report export, the report's dashboard).",
    'x-permissions': ['view_dashboards'],
    request: { params: idParam },
    responses: { 200: oneDocument('The job', ExportJob), ...errorResponses(401, 403, 404, 429) },
  }),
  async (c) => {
    const res = await getExportJob({ ctx: serviceContext(c), id: c.req.param('id')! });
    return sendDocument(c, { data: res.data });
  },
);

defineRoute(
  exportJobRoutes,
  createRoute({
    method: 'delete',
    path: '/export_jobs/{id}',
    tags,
    summary: 'Delete an export job',
    description:
      "Removes the job; a running job is abandoned and its file is no longer handed out. Needs Manage Dashboards on the job's dashboard — or View Dashboards for the key or user that started the job.",
    'x-permissions': ['manage_dashboards'],
    request: { params: idParam },
    responses: { 204: noContent('Deleted'), ...errorResponses(401, 403, 404, 429) },
  }),
  async (c) => {
    await deleteExportJob({ ctx: serviceContext(c), id: c.req.param('id')! });
    return c.body(null, 204);
  },
);

const renderBody = z
  .object({
    parameters: inputParametersSchema
      .optional()
      .openapi({ description: "Filter values, time range, aggregation and time zone, as for the status call; the dashboard's defaults fill the rest." }),
    color_mode: z.enum(['light', 'dark']).default('light').openapi({ description: 'Light or dark rendering.' }),
    page_width: z.number().int().min(PAGE_WIDTH.min).max(PAGE_WIDTH.max).optional().openapi({
      description:
        "Page width in CSS pixels. Default: the dashboard's default_page_width (1600), or the report's default_page_width (800) for a single report, drawn at its default_page_height (600).",
    }),
  })
  .strict()
  .openapi('ExportRenderRequest');

const csvBody = z
  .object({
    parameters: inputParametersSchema.optional(),
    unlimited: z.boolean().default(false).openapi({
      description: `Export every row. Without it the file holds at most 100,000 rows. Needs the report's unlimited_csv_export_enabled (422 otherwise); a second unlimited export with the same parameters and CSV options within 10 minutes answers the recent job's id instead of starting another.`,
    }),
    csv_column_separator: z.enum(CSV_COLUMN_SEPARATORS).optional().openapi({ description: 'Default comma.' }),
    csv_decimal_separator: z
      .enum(CSV_DECIMAL_SEPARATORS)
      .optional()
      .openapi({ description: 'Default point. comma needs a semicolon or tab column separator.' }),
    csv_quote_style: z.enum(CSV_QUOTE_STYLES).optional().openapi({ description: 'Default necessary.' }),
  })
  .strict()
  .openapi('ExportCsvRequest');

const jobAnswer = z
  .object({
    job_id: z.string().openapi({ description: 'Poll GET /export_jobs/{job_id}.' }),
    job_status: z.enum(['started', 'running', 'success', 'error']),
    reused: z.boolean().openapi({ description: 'true when an unlimited CSV export of the same parameters from the last 10 minutes is answered again.' }),
  })
  .openapi('ExportJobStarted');

const started = {
  202: {
    description: 'The job was created (or, for a repeated unlimited CSV export, the recent one is answered)',
    content: { 'application/json': { schema: jobAnswer } },
  },
};
const RENDER_NOTE =
  'The file is drawn by a headless browser from a print view of the web app, as a viewer of this dashboard with no user (built-in user snippets are NULL), once every report has drawn. Without a configured renderer the job ends in error with a message saying so.';

for (const format of ['pdf', 'png'] as const) {
  defineRoute(
    exportJobRoutes,
    createRoute({
      method: 'post',
      path: `/dashboards/{id}/export_${format}`,
      tags,
      summary: `Export a dashboard as ${format.toUpperCase()}`,
      description: `Starts an export job and answers its id at once (202). Poll GET /export_jobs/{id} until success (file_url) or error. ${RENDER_NOTE} Needs View Dashboards on the dashboard.`,
      'x-permissions': ['view_dashboards'],
      request: { params: idParam, body: actionBody(renderBody) },
      responses: { ...started, ...errorResponses(400, 401, 403, 404, 415, 422, 429) },
    }),
    async (c) => {
      const body = await readBody(c, renderBody, 'action');
      return c.json(await exportDashboard(serviceContext(c), c.req.param('id')!, format, body), 202);
    },
  );

  defineRoute(
    exportJobRoutes,
    createRoute({
      method: 'post',
      path: `/reports/{id}/export_${format}`,
      tags,
      summary: `Export a report as ${format.toUpperCase()}`,
      description: `Starts an export job of one report (drawn alone at its default_page_width × default_page_height, 800 × 600 by default; page_width overrides the width) and answers its id at once (202). ${RENDER_NOTE} Needs View Dashboards on the report's dashboard.`,
      'x-permissions': ['view_dashboards'],
      request: { params: idParam, body: actionBody(renderBody) },
      responses: { ...started, ...errorResponses(400, 401, 403, 404, 415, 422, 429) },
    }),
    async (c) => {
      const body = await readBody(c, renderBody, 'action');
      return c.json(await exportReportImage(serviceContext(c), c.req.param('id')!, format, body), 202);
    },
  );
}

defineRoute(
  exportJobRoutes,
  createRoute({
    method: 'post',
    path: '/reports/{id}/export_csv',
    tags,
    summary: 'Export a report as CSV',
    description:
      "Starts an export job that runs the report with the parameters (reusing a result that is still fresh) and writes it as CSV (UTF-8 with BOM); answers the job id at once (202). At most 100,000 rows unless unlimited is true. Needs View Dashboards on the report's dashboard and the report's data_download_enabled (403 otherwise).",
    'x-permissions': ['view_dashboards'],
    request: { params: idParam, body: actionBody(csvBody) },
    responses: { ...started, ...errorResponses(400, 401, 403, 404, 415, 422, 429) },
  }),
  async (c) => {
    const body = await readBody(c, csvBody, 'action');
    return c.json(await exportReportCsv(serviceContext(c), c.req.param('id')!, body), 202);
  },
);
