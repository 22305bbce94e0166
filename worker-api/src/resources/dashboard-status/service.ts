import { and, eq } from 'drizzle-orm';
import { ApiError, notFound, type InputParameters } from '@cairn/core';
import { reports } from '@cairn/db';
import type { ServiceContext } from '../../lib/context.ts';
import { requirePermission, requirePermissionOn } from '../../auth/principal.ts';
import type { StatusEntry } from '../../durable/dashboard-status.ts';
import { dashboardFilterRules, dataTokenFor, mergeParameters, statusObject, statusRequest, visibleDashboard } from '../../engine/dashboard-run.ts';
import { enforceFilterRules, missingRequired } from '../filters/enforce.ts';
import { checkParameterNames } from '../../engine/parameter-names.ts';

const RUNNING_DELAY_S = 2;
const IDLE_DELAY_S = 60;

/**
 * How a call holds the dashboard's filter rules (resources/filters/enforce.ts): `all` refuses missing
 * required filters and invalid values (422); `values` refuses invalid values and reports missing
 * required filters per report (the status poll, whose dynamic filter options must still load while a
 * required value is being chosen); `none` skips them (sharing links apply their own parameters).
 */
type RuleMode = 'all' | 'values' | 'none';

async function poll(ctx: ServiceContext, dashboardId: string, given: InputParameters | undefined, refresh: boolean, rules: RuleMode, allowed?: () => void) {
  await requirePermissionOn(ctx.principal, 'view_dashboards', { type: 'dashboards', id: dashboardId }, () => visibleDashboard(ctx, dashboardId));
  const dashboard = await visibleDashboard(ctx, dashboardId);
  allowed?.();
  let missing: ApiError[] = [];
  const rows = rules === 'none' ? [] : await dashboardFilterRules(ctx, dashboard.id);
  if (rules !== 'none') {
    await checkParameterNames(ctx, {
      dashboardId: dashboard.id,
      parameters: given,
      pointer: '/parameters',
      filterNames: rows.map((f) => f.variable_name),
      allReports: true,
    });
  }
  const parameters = mergeParameters(dashboard.default_parameters, given);
  if (rules !== 'none') {
    await enforceFilterRules(ctx, dashboard, parameters, { rows, required: rules === 'all' });
    if (rules === 'values') missing = missingRequired(rows, parameters);
  }
  const stub = await statusObject(ctx.env, dashboard.id, parameters);
  const res = await stub.poll(await statusRequest(ctx, dashboard.id, parameters, refresh));
  return { dashboard, ...res, missing };
}

/** POST /dashboards/{id}/status: where each report's and dynamic filter's data stands, with tokens for what is ready. */
export async function dashboardStatus({
  ctx,
  id: dashboardId,
  input: body,
  rules = 'none',
}: {
  ctx: ServiceContext;
  id: string;
  input: { parameters?: InputParameters; refresh_data?: boolean };
  rules?: RuleMode;
}) {
  const polled = await poll(ctx, dashboardId, body.parameters, body.refresh_data ?? false, rules);
  const { updated_at, missing } = polled;
  // A report waits for its dashboard's required filters: no data, an error item naming them.
  const waiting = missing.length ? { code: 'required_filter_missing', message: missing.map((m) => m.message).join(' ') } : null;
  const entries = waiting
    ? polled.entries.map(
        (e): StatusEntry =>
          e.kind === 'report'
            ? {
                ...e,
                result_status: 'error',
                data_key: null,
                data_timestamp: null,
                data_current: false,
                execution_id: null,
                execution_status: null,
                running: false,
                row_count: null,
                error: waiting,
              }
            : e,
      )
    : polled.entries;
  const tokens = new Map<string, string>();
  for (const e of entries) {
    if (e.data_key && !tokens.has(e.data_key)) tokens.set(e.data_key, await dataTokenFor(ctx, e.data_key));
  }
  const item = (e: StatusEntry) => ({
    result_status: e.result_status,
    data_key: e.data_key,
    data_access_token: e.data_key ? tokens.get(e.data_key)! : null,
    data_timestamp: e.data_timestamp,
    data_current: e.data_current,
    execution_id: e.execution_id,
    execution_status: e.execution_status,
    running: e.running,
    row_count: e.row_count,
    ...(e.error ? { error: e.error } : {}),
  });
  const anyRunning = entries.some((e) => e.running || e.result_status === 'running');
  return {
    reports: entries.filter((e) => e.kind === 'report').map((e) => ({ report_id: e.id, ...item(e) })),
    filters: entries.filter((e) => e.kind === 'filter').map((e) => ({ filter_id: e.id, ...item(e) })),
    data_keys: entries.filter((e) => e.data_key).map((e) => ({ ...item(e), [`${e.kind}_id`]: e.id })),
    updated_at,
    status_check_delay: anyRunning ? RUNNING_DELAY_S : IDLE_DELAY_S,
  };
}

/** POST /dashboards/{id}/refresh: re-runs every report and dynamic filter with these parameters. */
export async function refreshDashboard({ ctx, id: dashboardId, parameters }: { ctx: ServiceContext; id: string; parameters: InputParameters | undefined }) {
  await poll(ctx, dashboardId, parameters, true, 'all');
}

/**
 * POST /reports/{id}/refresh: re-runs this report alone (its dashboard's other reports and filters are
 * left as they are) with these parameters, under the dashboard's filter rules, and returns its execution id.
 */
export async function refreshReport({ ctx, id: reportId, parameters: given }: { ctx: ServiceContext; id: string; parameters: InputParameters | undefined }) {
  const [row] = await ctx.db
    .select({ dashboard_id: reports.dashboard_id, refresh_enabled: reports.refresh_enabled, sql_query: reports.sql_query })
    .from(reports)
    .where(and(eq(reports.id, reportId), eq(reports.organization_id, ctx.principal.organizationId)))
    .limit(1);
  if (!row) throw notFound('report', reportId);
  requirePermission(ctx.principal, 'view_dashboards');
  // A report on a dashboard the caller cannot see does not exist for it (404, restricted keys included).
  const dashboard = await visibleDashboard(ctx, row.dashboard_id).catch((err) => {
    if ((err as { code?: string }).code === 'not_found') throw notFound('report', reportId);
    throw err;
  });
  requirePermission(ctx.principal, 'view_dashboards', { type: 'dashboards', id: row.dashboard_id });
  // The report's own Refresh action is a switch of the report (refreshing the dashboard still re-runs it).
  if (!row.refresh_enabled) {
    throw new ApiError(
      'invalid_state',
      'Refreshing this report on its own is switched off (refresh_enabled is false); refresh its dashboard instead, or switch refresh_enabled on.',
    );
  }
  const rows = await dashboardFilterRules(ctx, dashboard.id);
  await checkParameterNames(ctx, {
    dashboardId: dashboard.id,
    parameters: given,
    pointer: '/parameters',
    filterNames: rows.map((f) => f.variable_name),
    sql: [row.sql_query],
  });
  const parameters = mergeParameters(dashboard.default_parameters, given);
  await enforceFilterRules(ctx, dashboard, parameters, { rows, required: true });
  const stub = await statusObject(ctx.env, dashboard.id, parameters);
  const state = await stub.source(await statusRequest(ctx, dashboard.id, parameters, true), reportId, { refresh: true });
  return { execution_id: state?.executionId ?? null };
}
