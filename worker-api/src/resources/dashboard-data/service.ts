import { dashboardFilterDefinitions } from '../filters/definitions.ts';
import { and, asc, eq } from 'drizzle-orm';
import { ApiError, signProcessToken, type ProcessItem } from '@cairn/core';
import { csvOptionsFrom } from '@cairn/core/export/options';
import { reports } from '@cairn/db';
import type { ServiceContext } from '../../lib/context.ts';
import { requirePermission } from '../../auth/principal.ts';
import { executeQuery } from '../../engine/execute.ts';
import { findDashboard } from '../dashboards/service.ts';
import { mergeParameters } from '../../engine/dashboard-run.ts';
import { enforceFilterRules } from '../filters/enforce.ts';
import { checkParameterNames } from '../../engine/parameter-names.ts';
import type { DashboardDataBody } from './schema.ts';

type ReportRow = Pick<typeof reports.$inferSelect, 'id' | 'name' | 'sql_query' | 'datasource_id' | 'data_refresh_rate' | 'data_download_enabled'>;
type Skipped = { report_id: string; name: string; reason: 'data_download_disabled' | 'query_error' | 'unavailable'; detail?: string };
type Included = { report_id: string; name: string; data_key: string; execution_id: string; row_count: number };

/** How many reports run at once (each still waits for its datasource's concurrency limit). */
const PARALLEL = 4;

/** The dashboard's reports in layout order (row, then column); reports without a tile last. */
async function reportsInOrder(ctx: ServiceContext, dashboardId: string, layout: { id: string; row: number; column: number }[]): Promise<ReportRow[]> {
  const rows = await ctx.db
    .select({
      id: reports.id,
      name: reports.name,
      sql_query: reports.sql_query,
      datasource_id: reports.datasource_id,
      data_refresh_rate: reports.data_refresh_rate,
      data_download_enabled: reports.data_download_enabled,
    })
    .from(reports)
    .where(and(eq(reports.dashboard_id, dashboardId), eq(reports.organization_id, ctx.principal.organizationId)))
    .orderBy(asc(reports.created_at), asc(reports.id));
  const position = new Map(layout.map((t) => [t.id, t.row * 100 + t.column]));
  return rows
    .map((r, i) => ({ r, at: position.get(r.id) ?? Number.MAX_SAFE_INTEGER, i }))
    .sort((a, b) => a.at - b.at || a.i - b.i)
    .map((x) => x.r);
}

/** Runs `fn` over `items` with at most `limit` at a time, keeping the order of the results. */
async function mapLimited<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

/**
 * POST /dashboards/{id}/data: runs (or reuses) every report's result with the parameters and hands
 * out a data process token for the data server's `POST /process`. Reports whose data downloads are
 * off are left out, and so are reports whose query fails (named under `skipped`). Null (→ 204) when
 * no report has rows; a 422 when none has rows because their queries failed.
 */
export async function dashboardData({ ctx, id, input: body }: { ctx: ServiceContext; id: string; input: DashboardDataBody }) {
  requirePermission(ctx.principal, 'view_dashboards');
  const dashboard = await findDashboard(ctx, id);
  requirePermission(ctx.principal, 'view_dashboards', { type: 'dashboards', id: dashboard.id });
  const csv = body.data_format === 'csv_zip' ? csvOptionsFrom(body) : undefined;
  await checkParameterNames(ctx, { dashboardId: dashboard.id, parameters: body.parameters, pointer: '/parameters', allReports: true });
  const parameters = mergeParameters(dashboard.default_parameters, body.parameters);
  await enforceFilterRules(ctx, dashboard, parameters);
  const [list, defs] = await Promise.all([reportsInOrder(ctx, dashboard.id, dashboard.layout ?? []), dashboardFilterDefinitions(ctx, dashboard.id)]);
  const skipped: Skipped[] = [];
  const outcomes = await mapLimited(list, PARALLEL, async (report): Promise<Included | Skipped> => {
    if (!report.data_download_enabled) return { report_id: report.id, name: report.name, reason: 'data_download_disabled' };
    try {
      const out = await executeQuery(ctx, {
        datasourceId: report.datasource_id,
        sql: report.sql_query,
        filters: defs,
        parameters,
        dashboard,
        freshMinutes: report.data_refresh_rate ?? dashboard.data_refresh_rate,
        source: { report_id: report.id },
        executionType: 'sql_query',
      });
      return { report_id: report.id, name: report.name, data_key: out.dataKey, execution_id: out.executionId, row_count: out.rowCount };
    } catch (err) {
      // A broken report must not take the others' data with it; bad parameters still fail the call.
      if (err instanceof ApiError && err.code === 'query_error') {
        return { report_id: report.id, name: report.name, reason: 'query_error', detail: err.message };
      }
      if (err instanceof ApiError && (err.code === 'invalid_state' || err.code === 'invalid_relationship')) {
        return { report_id: report.id, name: report.name, reason: 'unavailable', detail: err.message };
      }
      throw err;
    }
  });
  const included: Included[] = [];
  for (const o of outcomes) 'reason' in o ? skipped.push(o) : included.push(o);
  if (!included.some((r) => r.row_count > 0)) {
    const failed = skipped.filter((s) => s.reason !== 'data_download_disabled');
    if (failed.length) {
      throw new ApiError('query_error', `No report of this dashboard has data; ${failed.map((f) => `"${f.name}": ${f.detail}`).join('; ')}`, {
        meta: { skipped },
      });
    }
    return null;
  }
  const items: ProcessItem[] = included.map((r) => ({ key: r.data_key, name: r.name, id: r.report_id }));
  const token = await signProcessToken(
    {
      kind: 'process',
      org: ctx.principal.organizationId,
      region: ctx.env.REGION,
      items,
      format: body.data_format,
      ...(csv ? { csv } : {}),
      name: dashboard.name,
    },
    ctx.env.DATA_TOKEN_SECRET,
  );
  const base = (ctx.env.DATA_SERVER_URL ?? '').replace(/\/$/, '');
  return { data_process_token: token, data_url: `${base}/process`, reports: included, skipped };
}
