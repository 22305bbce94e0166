import { and, asc, eq } from 'drizzle-orm';
import { ApiError, ERROR_CODES, MANUAL_CONTROLS, ORGANIZATION, QUERY_CONTROLS, parseDataKey, type InputParameters } from '@cairn/core';
import { dashboardFilters, dashboards, filters } from '@cairn/db';
import type { ServiceContext } from '../../lib/context.ts';
import { requirePermission } from '../../auth/principal.ts';
import { visibleDashboards } from '../../auth/access.ts';
import { compileExtras } from '../../engine/compile-context.ts';
import { compileFor, createExecution, loadDatasource } from '../../engine/execute.ts';
import { enqueue } from '../../jobs/messages.ts';
import { mergeParameters, statusObject, statusRequest } from '../../engine/dashboard-run.ts';
import { findFilter } from './access.ts';
import { checkParameterNames } from '../../engine/parameter-names.ts';
import { storedChunks } from '../../engine/stored-chunks.ts';

type FilterRow = typeof filters.$inferSelect;
type DashboardRow = typeof dashboards.$inferSelect;

export const MANUAL_DROPDOWNS = new Set<string>(MANUAL_CONTROLS);
export const QUERY_DROPDOWNS = new Set<string>(QUERY_CONTROLS);
/** Options from a query older than this are unavailable (spec 01 §4). */
const OPTIONS_MAX_AGE_MS = 24 * 3_600_000;
/** At most this many rows of a filter's result become options. */
const MAX_OPTION_ROWS = 10_000;
/** How long the options call waits for a run of the filter's query under way. */
const WAIT_MS = 25_000;

export interface OptionSet {
  values: unknown[];
  value_names: string[];
  parent_values: unknown[];
}

export interface OptionsBody {
  dashboard_id?: string;
  parameters?: InputParameters;
}

/**
 * A filter's query result as option sets: the first column holds the values, the second (if any) the
 * labels (the value's text otherwise), the third (if any) the parent filter's value each option
 * belongs to. Options are grouped by that parent value — one set per parent value, in order of first
 * appearance, each with `parent_values: [that value]`; without a third column there is one set with
 * `parent_values: []`. Rows whose value is NULL are skipped; repeated values within a set are kept once.
 */
export function optionSets(rows: unknown[][]): OptionSet[] {
  const sets = new Map<string, { set: OptionSet; seen: Set<string> }>();
  for (const row of rows) {
    const value = row[0];
    if (value === null || value === undefined) continue;
    const hasParent = row.length > 2;
    const parentKey = hasParent ? JSON.stringify(row[2] ?? null) : '';
    let entry = sets.get(parentKey);
    if (!entry) {
      entry = { set: { values: [], value_names: [], parent_values: hasParent ? [row[2] ?? null] : [] }, seen: new Set() };
      sets.set(parentKey, entry);
    }
    const key = JSON.stringify(value);
    if (entry.seen.has(key)) continue;
    entry.seen.add(key);
    entry.set.values.push(value);
    const label = row.length > 1 && row[1] !== null && row[1] !== undefined ? row[1] : value;
    entry.set.value_names.push(typeof label === 'string' ? label : JSON.stringify(label));
  }
  return [...sets.values()].map((e) => e.set);
}

/** A manual dropdown's stored values, with their names (the value's text where no name was given). */
function manualOptions(f: FilterRow) {
  const values = f.values ?? [];
  const names = f.value_names ?? [];
  return {
    data_timestamp: f.updated_at.toISOString(),
    options: [{ values, value_names: values.map((v, i) => names[i] ?? (typeof v === 'string' ? v : JSON.stringify(v))), parent_values: [] }],
  };
}

/** The dashboard named in the body (422 when the caller cannot see it), else null. */
async function bodyDashboard(ctx: ServiceContext, id: string | undefined): Promise<DashboardRow | null> {
  if (id === undefined) return null;
  const [row] = await ctx.db
    .select()
    .from(dashboards)
    .where(and(eq(dashboards.id, id), visibleDashboards(ctx.principal)))
    .limit(1);
  if (!row)
    throw new ApiError('invalid_attribute', `No dashboard with id "${id}" exists (or it is not visible to this caller).`, {
      source: { pointer: '/dashboard_id' },
    });
  requirePermission(ctx.principal, 'view_dashboards', { type: 'dashboards', id });
  return row;
}

/** The filter's state on the dashboard's status object for these parameters (422 when the dashboard does not show it). */
async function sourceState(ctx: ServiceContext, f: FilterRow, dashboard: DashboardRow, given: InputParameters | undefined, refresh: boolean) {
  const parameters = mergeParameters(dashboard.default_parameters, given);
  const stub = await statusObject(ctx.env, dashboard.id, parameters);
  const state = await stub.source(await statusRequest(ctx, dashboard.id, parameters, refresh), f.id, { refresh, waitMs: refresh ? 0 : WAIT_MS });
  if (!state) {
    throw new ApiError('invalid_attribute', `Filter "${f.id}" is not on dashboard "${dashboard.id}".`, { source: { pointer: '/dashboard_id' } });
  }
  return state;
}

/** The rows of a stored result, up to MAX_OPTION_ROWS. */
async function resultRows(ctx: ServiceContext, executionId: string): Promise<unknown[][]> {
  const sql = ctx.direct().sql;
  const rows: unknown[][] = [];
  const dec = new TextDecoder();
  for await (const chunk of storedChunks(sql, ctx.env.RESULTS, executionId)) {
    if (rows.length >= MAX_OPTION_ROWS) break;
    if (chunk.data.byteLength) rows.push(...(JSON.parse(`[${dec.decode(chunk.data)}]`) as unknown[][]));
  }
  return rows.slice(0, MAX_OPTION_ROWS);
}

/**
 * POST /filters/{id}/options: a manual dropdown's stored values; a query dropdown's options from
 * its SQL run for the dashboard with these parameters (merged over the dashboard's defaults; parent
 * filters are ordinary variables of that SQL, so a child's options follow its parent's selection).
 * The run is shared with the dashboard's status polling; a missing or stale result is run now and
 * waited for. Unavailable (422 invalid_state) when the query has not run successfully within 24 hours.
 */
export async function filterOptions(ctx: ServiceContext, id: string, body: OptionsBody) {
  requirePermission(ctx.principal, 'view_dashboards');
  const f = await findFilter(ctx, id);
  if (body.dashboard_id !== undefined) {
    const named = (await bodyDashboard(ctx, body.dashboard_id))!;
    await checkParameterNames(ctx, {
      dashboardId: named.id,
      parameters: body.parameters,
      pointer: '/parameters',
      allReports: true,
      sql: f.sql_query ? [f.sql_query] : [],
    });
  } else await checkParameterNames(ctx, { dashboardId: null, parameters: body.parameters, pointer: '/parameters', sql: f.sql_query ? [f.sql_query] : [] });
  if (MANUAL_DROPDOWNS.has(f.control_type)) return manualOptions(f);
  if (!QUERY_DROPDOWNS.has(f.control_type)) {
    throw new ApiError('invalid_state', `Filter "${f.variable_name}" is a ${f.control_type} control, which has no options; only dropdowns do.`);
  }
  // A query-less dropdown (an ad hoc filter) takes whatever viewers type.
  if (!f.sql_query) return { data_timestamp: null, options: [] };
  if (!body.dashboard_id) {
    throw new ApiError(
      'missing_attribute',
      "dashboard_id is required for a dropdown whose options come from SQL: its query runs with that dashboard's filters and parameters.",
      {
        source: { pointer: '/dashboard_id' },
      },
    );
  }
  const dashboard = (await bodyDashboard(ctx, body.dashboard_id))!;
  const state = await sourceState(ctx, f, dashboard, body.parameters, false);
  const at = state.dataTimestamp ? Date.parse(state.dataTimestamp) : null;
  if (!state.dataKey || at === null || Date.now() - at > OPTIONS_MAX_AGE_MS) {
    if (state.error && !state.executionId && state.error.code in ERROR_CODES) {
      // The SQL did not compile with these parameters (e.g. a snippet cycle): the caller's problem to fix.
      throw new ApiError(state.error.code as keyof typeof ERROR_CODES, state.error.message);
    }
    const why = state.running ? ' Its query is still running; ask again shortly.' : state.error ? ` The last run failed: ${state.error.message}` : '';
    throw new ApiError(
      'invalid_state',
      `The options of filter "${f.variable_name}" are unavailable: its query has not run successfully within the last 24 hours.${why}`,
      {
        meta: { execution_id: state.executionId, execution_status: state.executionStatus },
      },
    );
  }
  const executionId = parseDataKey(state.dataKey)?.executionId;
  const rows = executionId && state.rowCount ? await resultRows(ctx, executionId) : [];
  return { data_timestamp: state.dataTimestamp, options: optionSets(rows) };
}

/**
 * The option values of a query dropdown for a dashboard and (merged) parameters, from the run its
 * status object shares with the options call (run now and waited for when missing); null when they
 * are unavailable (the query failed, or has not run successfully within 24 hours).
 */
export async function queryOptionValues(ctx: ServiceContext, f: FilterRow, dashboard: DashboardRow, parameters: InputParameters): Promise<unknown[] | null> {
  const state = await sourceState(ctx, f, dashboard, parameters, false).catch(() => null);
  const at = state?.dataTimestamp ? Date.parse(state.dataTimestamp) : null;
  if (!state?.dataKey || at === null || Date.now() - at > OPTIONS_MAX_AGE_MS) return null;
  const executionId = parseDataKey(state.dataKey)?.executionId;
  const rows = executionId && state.rowCount ? await resultRows(ctx, executionId) : [];
  return optionSets(rows).flatMap((s) => s.values);
}

/** The first dashboard (visible to the caller) that shows the filter, if any. */
async function someDashboard(ctx: ServiceContext, filterId: string): Promise<DashboardRow | null> {
  const [row] = await ctx.db
    .select({ d: dashboards })
    .from(dashboardFilters)
    .innerJoin(dashboards, eq(dashboards.id, dashboardFilters.dashboard_id))
    .where(and(eq(dashboardFilters.filter_id, filterId), visibleDashboards(ctx.principal)))
    .orderBy(asc(dashboards.id))
    .limit(1);
  return row?.d ?? null;
}

/**
 * POST /filters/{id}/refresh: re-runs a query dropdown's SQL now, for the dashboard named (or the
 * first dashboard showing the filter) with these parameters, and answers with the execution id;
 * null (204) for a filter without SQL (manual dropdowns). A filter on no dashboard runs on its own
 * (that needs Manage Dashboards, as editing it does).
 */
export async function refreshFilter(ctx: ServiceContext, id: string, body: OptionsBody): Promise<{ execution_id: string | null } | null> {
  requirePermission(ctx.principal, 'view_dashboards');
  const f = await findFilter(ctx, id);
  // A dashboard the caller cannot see is refused even when there is nothing to refresh.
  const named = await bodyDashboard(ctx, body.dashboard_id);
  const dashboard = named ?? (await someDashboard(ctx, f.id));
  await checkParameterNames(ctx, {
    dashboardId: dashboard?.id ?? null,
    parameters: body.parameters,
    pointer: '/parameters',
    allReports: true,
    sql: f.sql_query ? [f.sql_query] : [],
  });
  if (!f.sql_query || !f.datasource_id || !QUERY_DROPDOWNS.has(f.control_type)) return null;
  if (dashboard) {
    requirePermission(ctx.principal, 'view_dashboards', { type: 'dashboards', id: dashboard.id });
    const state = await sourceState(ctx, f, dashboard, body.parameters, true);
    if (state.error && !state.executionId) throw new ApiError('invalid_state', state.error.message);
    return { execution_id: state.executionId };
  }
  // A filter on no dashboard is an organization-wide definition: running it needs unrestricted Manage Dashboards.
  requirePermission(ctx.principal, 'manage_dashboards', ORGANIZATION);
  const ds = await loadDatasource(ctx, f.datasource_id);
  const parameters = body.parameters ?? {};
  const input = {
    datasourceId: ds.id,
    sql: f.sql_query,
    filters: [],
    parameters,
    extras: await compileExtras(ctx, null, parameters),
    source: { filter_id: f.id },
    executionType: 'sql_filter' as const,
  };
  const { compiled, paramsHash } = await compileFor(ds, input);
  const job = await createExecution(ctx, ds, input, compiled, paramsHash);
  // The run and the filter's record of it happen in the job queue's consumer (refresh-job.ts), not in waitUntil.
  await enqueue(ctx.env, [{ kind: 'filter_refresh', organizationId: ctx.principal.organizationId, filterId: f.id, job, requestId: ctx.requestId }]);
  return { execution_id: job.executionId };
}
