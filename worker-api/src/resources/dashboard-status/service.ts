import { and, eq } from 'drizzle-orm';
import { ApiError, notFound, sha256Hex, type InputParameters } from '@cairn/core';
import { reports } from '@cairn/db';
import type { ServiceContext } from '../../lib/context.ts';
import { requirePermission } from '../../auth/principal.ts';
import type { StatusEntry, StatusRequest } from '../../durable/dashboard-status.ts';
import type { Env } from '../../env.ts';
import { callerContext, dashboardFilterRules, dataTokenFor, visibleDashboard } from './hot-path.ts';
import { enforceFilterRules, missingRequired } from '../filters/rules.ts';

/** The dashboard's default parameters, overridden field by field (filters by variable name) by the request's. */
export function mergeParameters(defaults: InputParameters | null | undefined, given: InputParameters | undefined): InputParameters {
  const d = defaults ?? {};
  const g = given ?? {};
  const filters = new Map((d.filters ?? []).map((f) => [f.variable_name, f]));
  for (const f of g.filters ?? []) filters.set(f.variable_name, f);
  const out: InputParameters = {};
  for (const k of ['timerange', 'aggregation', 'tz'] as const) {
    const v = g[k] ?? d[k];
    if (v !== undefined) out[k] = v;
  }
  if (filters.size) out.filters = [...filters.values()].sort((a, b) => a.variable_name.localeCompare(b.variable_name));
  return out;
}

const RUNNING_DELAY_S = 2;
const IDLE_DELAY_S = 60;

/**
 * The DashboardStatus object of a dashboard and a (merged) parameter set: every caller asking with
 * the same parameters — pollers, the options call, the prewarm cron — reaches the same object.
 */
export async function statusObject(env: Env, dashboardId: string, parameters: InputParameters) {
  const hash = (await sha256Hex(JSON.stringify(parameters))).slice(0, 32);
  return env.DASHBOARD_STATUS.get(env.DASHBOARD_STATUS.idFromName(`status::${dashboardId}::${hash}`));
}

/** The request the status object takes, for the caller of this request. */
export async function statusRequest(ctx: ServiceContext, dashboardId: string, parameters: InputParameters, refresh: boolean): Promise<StatusRequest> {
  const actor = ctx.principal.kind === 'api_key' ? ctx.principal.apiKeyId : ctx.principal.userId;
  const context = await callerContext(ctx);
  return { organizationId: ctx.principal.organizationId, dashboardId, parameters, refresh, actor, context };
}

/**
 * How a call holds the dashboard's filter rules (resources/filters/rules.ts): `all` refuses missing
 * required filters and invalid values (422); `values` refuses invalid values and reports missing
 * required filters per report (the status poll, whose dynamic filter options must still load while a
 * required value is being chosen); `none` skips them (sharing links apply their own parameters).
 */
type RuleMode = 'all' | 'values' | 'none';

async function poll(
  ctx: ServiceContext, dashboardId: string, given: InputParameters | undefined, refresh: boolean, rules: RuleMode, allowed?: () => void,
) {
  requirePermission(ctx.principal, 'view_dashboards', { type: 'dashboards', id: dashboardId });
  const dashboard = await visibleDashboard(ctx, dashboardId);
  allowed?.();
  const parameters = mergeParameters(dashboard.default_parameters, given);
  let missing: ApiError[] = [];
  if (rules !== 'none') {
    const rows = await dashboardFilterRules(ctx, dashboard.id);
    await enforceFilterRules(ctx, dashboard, parameters, { rows, required: rules === 'all' });
    if (rules === 'values') missing = missingRequired(rows, parameters);
  }
  const stub = await statusObject(ctx.env, dashboard.id, parameters);
  const res = await stub.poll(await statusRequest(ctx, dashboard.id, parameters, refresh));
  return { dashboard, ...res, missing };
}

/** POST /dashboards/{id}/status: where each report's and dynamic filter's data stands, with tokens for what is ready. */
export async function dashboardStatus(
  ctx: ServiceContext, dashboardId: string, body: { parameters?: InputParameters; refresh_data?: boolean }, rules: RuleMode = 'none',
) {
  const polled = await poll(ctx, dashboardId, body.parameters, body.refresh_data ?? false, rules);
  const { updated_at, missing } = polled;
  // A report waits for its dashboard's required filters: no data, an error item naming them.
  const waiting = missing.length
    ? { code: 'required_filter_missing', message: missing.map((m) => m.message).join(' ') }
    : null;
  const entries = waiting
    ? polled.entries.map((e): StatusEntry => (e.kind === 'report'
      ? { ...e, result_status: 'error', data_key: null, data_timestamp: null, data_current: false, execution_id: null, execution_status: null, running: false, row_count: null, error: waiting }
      : e))
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
export async function refreshDashboard(ctx: ServiceContext, dashboardId: string, parameters: InputParameters | undefined) {
  await poll(ctx, dashboardId, parameters, true, 'all');
}

/**
 * POST /reports/{id}/refresh: re-runs this report alone (its dashboard's other reports and filters are
 * left as they are) with these parameters, under the dashboard's filter rules, and returns its execution id.
 */
export async function refreshReport(ctx: ServiceContext, reportId: string, given: InputParameters | undefined) {
  const [row] = await ctx.db.select({ dashboard_id: reports.dashboard_id, refresh_enabled: reports.refresh_enabled }).from(reports)
    .where(and(eq(reports.id, reportId), eq(reports.organization_id, ctx.principal.organizationId))).limit(1);
  if (!row) throw notFound('report', reportId);
  requirePermission(ctx.principal, 'view_dashboards', { type: 'dashboards', id: row.dashboard_id });
  const dashboard = await visibleDashboard(ctx, row.dashboard_id).catch((err) => {
    if ((err as { code?: string }).code === 'not_found') throw notFound('report', reportId);
    throw err;
  });
  // The report's own Refresh action is a switch of the report (refreshing the dashboard still re-runs it).
  if (!row.refresh_enabled) {
    throw new ApiError('invalid_state', 'Refreshing this report on its own is switched off (refresh_enabled is false); refresh its dashboard instead, or switch refresh_enabled on.');
  }
  const parameters = mergeParameters(dashboard.default_parameters, given);
  await enforceFilterRules(ctx, dashboard, parameters, { rows: await dashboardFilterRules(ctx, dashboard.id), required: true });
  const stub = await statusObject(ctx.env, dashboard.id, parameters);
  const state = await stub.source(await statusRequest(ctx, dashboard.id, parameters, true), reportId, { refresh: true });
  return { execution_id: state?.executionId ?? null };
}
