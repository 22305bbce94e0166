/**
 * The print view's way to its data: `POST /public/render/{token}` (what to draw) and
 * `POST /public/render/{token}/status` (the dashboard status poll), for the web app's `/render/{token}`
 * page that the renderer's browser opens. No key and no session: the render token (render-token.ts,
 * signed by this API for a few minutes) is the whole credential, and it grants View Dashboards on one
 * dashboard of one organization with no user — built-in user snippets are NULL, as for scheduled
 * e-mails. The parameters, colour mode and page width are the token's; the page cannot change them.
 * Registered before the authenticate middleware.
 */
import { OpenAPIHono, createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { and, asc, eq } from 'drizzle-orm';
import { ApiError } from '@cairn/core';
import { sqlReferences } from '@cairn/core/sql/references';
import { dashboards, organizations, reports } from '@cairn/db';
import type { AppEnv } from '../../env.ts';
import type { ServiceContext } from '../../lib/context.ts';
import { defineRoute } from '../../lib/routes.ts';
import { publicErrorResponses } from '../../lib/openapi.ts';
import { DashboardStatus } from '../dashboard-status/schema.ts';
import { dashboardStatus } from '../dashboard-status/service.ts';
import { PrintView } from '../public-links/schema.ts';
import { forViewer } from '../public-links/service.ts';
import { viewerPrincipal } from './background.ts';
import { verifyRenderToken, type RenderClaims } from './render-token.ts';

export const renderRoutes = new OpenAPIHono<AppEnv>();
const tags = ['Print view (renderer)'];
const tokenParam = z.object({
  token: z
    .string()
    .min(1)
    .max(8000)
    .openapi({ param: { name: 'token', in: 'path' }, description: 'The render token of the print view address (/render/{token}).' }),
});

async function open(c: Context<AppEnv>): Promise<{ claims: RenderClaims; ctx: ServiceContext }> {
  const claims = await verifyRenderToken(c.req.param('token') ?? '', c.env.SECRET_KEY);
  const ctx: ServiceContext = {
    db: c.var.db,
    direct: c.var.direct,
    env: c.env,
    requestId: c.var.requestId,
    baseUrl: new URL(c.req.url).origin,
    waitUntil: (p) => c.executionCtx.waitUntil(p),
    principal: viewerPrincipal(claims.org, claims.dashboard, 'render'),
  };
  return { claims, ctx };
}

function builtInsUsed(rows: { sql_query: string }[]) {
  const used = new Set<string>();
  for (const r of rows) {
    try {
      for (const v of sqlReferences(r.sql_query).variables) used.add(v);
    } catch {
      /* a report whose SQL cannot be read shows its error in its tile */
    }
  }
  return { timerange: used.has('timerange'), aggregation: used.has('aggregation') };
}

defineRoute(
  renderRoutes,
  createRoute({
    method: 'post',
    path: '/public/render/{token}',
    tags,
    summary: 'Open a print view',
    security: [],
    description:
      'What the print view draws: the dashboard (or the one report of the token) with its layout and reports (never their SQL), the colour mode, page width and parameters of the token. 401 for an invalid or expired token, 404 when the dashboard or report is gone.',
    'x-permissions': ['render token'],
    request: { params: tokenParam },
    responses: { 200: { description: 'The print view', content: { 'application/json': { schema: PrintView } } }, ...publicErrorResponses(401, 404) },
  }),
  async (c) => {
    const { claims, ctx } = await open(c);
    const [[dashboard], reportRows, [org]] = await Promise.all([
      ctx.db
        .select()
        .from(dashboards)
        .where(and(eq(dashboards.id, claims.dashboard), eq(dashboards.organization_id, claims.org)))
        .limit(1),
      ctx.db
        .select()
        .from(reports)
        .where(and(eq(reports.dashboard_id, claims.dashboard), eq(reports.organization_id, claims.org)))
        .orderBy(asc(reports.created_at), asc(reports.id)),
      ctx.db.select({ tz: organizations.time_zone }).from(organizations).where(eq(organizations.id, claims.org)).limit(1),
    ]);
    if (!dashboard) throw new ApiError('not_found', 'The dashboard of this print view no longer exists.');
    const shown = claims.report ? reportRows.filter((r) => r.id === claims.report) : reportRows;
    if (claims.report && !shown.length) throw new ApiError('not_found', 'The report of this print view no longer exists.');
    return c.json({
      render: { report_id: claims.report, color_mode: claims.mode, page_width: claims.width },
      // The shape of a sharing link's view (public-links), so the app draws it with the same components.
      link: {
        name: dashboard.name,
        description: null,
        toolbar_enabled: false,
        parameters_enabled: false,
        filter_bar_enabled: false,
        refresh_enabled: false,
        data_download_enabled: false,
        unlimited_csv_export_enabled: false,
        sharing_secret_required: false,
        password_protected: false,
        color_mode: claims.mode,
      },
      dashboard: {
        id: dashboard.id,
        name: dashboard.name,
        description: dashboard.description,
        layout: dashboard.layout,
        default_page_width: claims.width,
        color_scheme: dashboard.color_scheme,
        series_colors: dashboard.series_colors,
        data_refresh_rate: dashboard.data_refresh_rate,
        filters_configuration: dashboard.filters_configuration,
        time_zone_config: dashboard.time_zone_config,
        default_parameters: dashboard.default_parameters,
        organization_time_zone: org?.tz ?? 'UTC',
        updated_at: dashboard.updated_at.toISOString(),
      },
      reports: shown.map((r) => ({
        id: r.id,
        name: r.name,
        description: r.description,
        chart_configuration: r.chart_configuration,
        no_data_message: r.no_data_message,
        display_name_as_title: r.display_name_as_title,
        attribution: r.attribution,
        download_enabled: false,
      })),
      filters: [],
      built_ins: builtInsUsed(shown),
      parameters: claims.parameters,
      fixed_variables: [],
      problems: [],
    });
  },
);

defineRoute(
  renderRoutes,
  createRoute({
    method: 'post',
    path: '/public/render/{token}/status',
    tags,
    summary: 'Dashboard status for a print view',
    security: [],
    description:
      "POST /dashboards/{id}/status with the token's parameters, as the dashboard's viewer without a user. Data access tokens in the answer fetch the rows from the data server. A report's or filter's error keeps its code, but its message is a generic one, as on sharing links: the file goes to recipients who may be outside the organization. 401 for an invalid or expired token.",
    'x-permissions': ['render token'],
    request: { params: tokenParam },
    responses: { 200: { description: 'The status', content: { 'application/json': { schema: DashboardStatus } } }, ...publicErrorResponses(401, 404) },
  }),
  async (c) => {
    const { claims, ctx } = await open(c);
    // The PDF goes to the schedule's recipients: no database text in it (see forViewer).
    return c.json(forViewer(await dashboardStatus({ ctx, id: claims.dashboard, input: { parameters: claims.parameters, refresh_data: false } })));
  },
);
