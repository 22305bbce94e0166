import { dashboardFilterDefinitions } from '../filters/definitions.ts';
import { and, eq } from 'drizzle-orm';
import { ApiError, notFound, signDataToken, type InputParameters } from '@cairn/core';
import { dashboards, reports } from '@cairn/db';
import type { ServiceContext } from '../../lib/context.ts';
import { requirePermission } from '../../auth/principal.ts';
import { visibleDashboards } from '../../auth/access.ts';
import { executeQuery } from '../../engine/execute.ts';
import { downloadClaims } from './data-format.ts';
import { mergeParameters } from '../../engine/dashboard-run.ts';
import { enforceFilterRules } from '../filters/rules.ts';
import { checkParameterNames } from '../../engine/parameter-names.ts';

/**
 * Reads a report whose dashboard the caller may see, with that dashboard; otherwise a 404 (a report
 * on an invisible dashboard does not exist for the caller). One query.
 */
export async function findReport(ctx: ServiceContext, id: string) {
  const [row] = await ctx.db
    .select({ report: reports, dashboard: dashboards })
    .from(reports)
    .innerJoin(dashboards, eq(dashboards.id, reports.dashboard_id))
    .where(and(eq(reports.id, id), eq(reports.organization_id, ctx.principal.organizationId), visibleDashboards(ctx.principal)))
    .limit(1);
  if (!row) throw notFound('report', id);
  return row;
}

/**
 * POST /reports/{id}/data: runs the report with the given parameters (or reuses a fresh result) and
 * returns a handle to fetch it from this region's data server; null when the result has no rows.
 */
export async function reportData({
  ctx,
  id,
  parameters,
  format,
  filterRules = true,
}: {
  ctx: ServiceContext;
  id: string;
  parameters: InputParameters | undefined;
  format: 'json' | 'csv' | 'xlsx';
  /** Hold the dashboard's filter rules (required, dropdown_validate, all_time); sharing links apply their own parameters. */
  filterRules?: boolean;
}) {
  requirePermission(ctx.principal, 'view_dashboards');
  const { report, dashboard } = await findReport(ctx, id);
  requirePermission(ctx.principal, 'view_dashboards', { type: 'dashboards', id: dashboard.id });
  if (format !== 'json' && !report.data_download_enabled) {
    throw new ApiError('forbidden', 'Data downloads are switched off for this report (data_download_enabled).');
  }
  await checkParameterNames(ctx, { dashboardId: dashboard.id, parameters, pointer: '/parameters', sql: [report.sql_query] });
  const merged = mergeParameters(dashboard.default_parameters, parameters);
  if (filterRules) await enforceFilterRules(ctx, dashboard, merged);
  const defs = await dashboardFilterDefinitions(ctx, dashboard.id);
  const outcome = await executeQuery(ctx, {
    datasourceId: report.datasource_id,
    sql: report.sql_query,
    filters: defs,
    // The same parameters, time zone and built-in snippet values as the dashboard's status call.
    parameters: merged,
    dashboard,
    freshMinutes: report.data_refresh_rate ?? dashboard.data_refresh_rate,
    source: { report_id: report.id },
    executionType: 'sql_query',
  });
  if (outcome.rowCount === 0) return null;
  const token = await signDataToken(
    { kind: 'data', org: ctx.principal.organizationId, key: outcome.dataKey, region: ctx.env.REGION, ...downloadClaims(format, report.name) },
    ctx.env.DATA_TOKEN_SECRET,
  );
  const base = (ctx.env.DATA_SERVER_URL ?? '').replace(/\/$/, '');
  return {
    data_key: outcome.dataKey,
    data_access_token: token,
    data_url: `${base}/data/${outcome.dataKey}`,
    execution_id: outcome.executionId,
    time_zone: outcome.timeZone,
  };
}
