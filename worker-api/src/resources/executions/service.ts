import { and, eq } from 'drizzle-orm';
import { ApiError, notFound, signDataToken, type InputParameters } from '@cairn/core';
import { dashboardFilters, executions, filters as filterTable, FINISHED_STATUSES, reports, results } from '@cairn/db';
import { downloadClaims } from '../reports/data-format.ts';
import type { ServiceContext } from '../../lib/context.ts';
import { can } from '../../auth/principal.ts';
import { compileFor, createExecution, dispatch, gateOf, loadDatasource } from '../../engine/execute.ts';
import { compileExtras } from '../../engine/compile-context.ts';
import { findDashboard } from '../dashboards/service.ts';
import { requireExecutionAccess } from './access.ts';
import { settleLease } from '../../engine/lease.ts';
import { poolStatement } from '../../lib/db.ts';
import { checkParameterNames } from '../../engine/parameter-names.ts';

type ExecutionRow = typeof executions.$inferSelect;

function serializeExecution(e: ExecutionRow) {
  return {
    execution_id: e.id,
    execution_type: e.execution_type,
    execution_status: e.execution_status,
    result_columns: e.result_columns,
    result_rows: e.result_rows,
    result_size: e.result_size,
    error_message: e.error_message,
    created_at: e.created_at.toISOString(),
    updated_at: e.updated_at.toISOString(),
    started_at: e.started_at?.toISOString() ?? null,
    completed_at: e.completed_at?.toISOString() ?? null,
  };
}

/**
 * Who may run ad hoc SQL on a datasource: Manage Datasources, or Manage Dashboards / Manage Alerts
 * (those who build reports and alerts), on this datasource itself: a grant restricted to datasources
 * runs only on those, and one restricted to dashboards or alerts runs none (core `grantReaches`).
 */
function requireRunAccess(ctx: ServiceContext, datasourceId: string) {
  const resource = { type: 'datasources' as const, id: datasourceId };
  const ok = ['manage_datasources', 'manage_dashboards', 'manage_alerts'].some((p) => can(ctx.principal, p as never, resource));
  if (!ok) {
    throw new ApiError('forbidden', 'Running SQL on this datasource needs Manage Datasources, Manage Dashboards or Manage Alerts (for this datasource).');
  }
}

export async function runAdHoc({
  ctx,
  datasourceId,
  input: body,
}: {
  ctx: ServiceContext;
  datasourceId: string;
  input: { sql_query: string; r_query?: string | null; parameters?: InputParameters; dashboard_id?: string };
}) {
  requireRunAccess(ctx, datasourceId);
  const ds = await loadDatasource(ctx, datasourceId).catch(() => {
    throw notFound('datasource', datasourceId);
  });
  if (body.r_query) {
    throw new ApiError('invalid_attribute', 'R post-processing is not available in Cairn; send sql_query only.', { source: { pointer: '/r_query' } });
  }
  const parameters = body.parameters ?? {};
  // With a dashboard (one the caller may see), its filters define the variables and its time-zone settings apply.
  const dashboard = body.dashboard_id ? await findDashboard(ctx, body.dashboard_id) : null;
  const defs = dashboard
    ? await ctx.db
        .select({
          variable_name: filterTable.variable_name,
          control_type: filterTable.control_type,
          value_type: filterTable.value_type,
          allowed_aggregations: filterTable.allowed_aggregations,
        })
        .from(dashboardFilters)
        .innerJoin(filterTable, eq(filterTable.id, dashboardFilters.filter_id))
        .where(and(eq(dashboardFilters.dashboard_id, dashboard.id), eq(dashboardFilters.organization_id, ctx.principal.organizationId)))
    : [];
  // With a dashboard, a name that is neither its filter nor a variable of this SQL would filter nothing: refused.
  if (dashboard) {
    await checkParameterNames(ctx, {
      dashboardId: dashboard.id,
      parameters,
      pointer: '/parameters',
      filterNames: defs.map((d) => d.variable_name),
      sql: [body.sql_query],
    });
  }
  // Snippets and the built-in snippets work; ranges are read in the requested tz, else the dashboard's or organization's zone.
  const extras = await compileExtras(ctx, dashboard, parameters);
  const input = { datasourceId: ds.id, sql: body.sql_query, filters: defs, parameters, extras, source: {}, executionType: 'sql_query' as const };
  const { compiled, paramsHash } = await compileFor(ds, input);
  const job = await createExecution(ctx, ds, input, compiled, paramsHash);
  // Runs on after the answer; the caller polls GET /executions/{id}.
  ctx.waitUntil(dispatch(ctx, job).catch((err) => console.error(`[${ctx.requestId}] execution ${job.executionId} failed to dispatch`, err)));
  return getExecution({ ctx, id: job.executionId });
}

/** An execution of the caller's organization that the caller may see, or change (cancel): see access.ts. */
async function findExecution(ctx: ServiceContext, id: string, mode: 'see' | 'change' = 'see'): Promise<ExecutionRow> {
  const [row] = await ctx.db
    .select()
    .from(executions)
    .where(and(eq(executions.id, id), eq(executions.organization_id, ctx.principal.organizationId)))
    .limit(1);
  if (!row || (row.expires_at && row.expires_at < new Date())) throw notFound('execution', id);
  await requireExecutionAccess(ctx, row, mode);
  // Unfinished with its lease run out: the runtime running it died; written off now (engine/lease.ts).
  return settleLease(poolStatement(ctx.env), row, async () => (await ctx.db.select().from(executions).where(eq(executions.id, id)).limit(1))[0]);
}

export async function getExecution({ ctx, id }: { ctx: ServiceContext; id: string }) {
  return serializeExecution(await findExecution(ctx, id));
}

/** Cancels a waiting or running execution (in the database itself); a finished one is left as it is. */
export async function cancelExecution({ ctx, id }: { ctx: ServiceContext; id: string }) {
  const row = await findExecution(ctx, id, 'change');
  if ((FINISHED_STATUSES as readonly string[]).includes(row.execution_status) || !row.datasource_id) return;
  const found = await gateOf(ctx, row.datasource_id).cancel(id);
  if (!found) {
    // Not known to the gate (it restarted): nothing runs for it any more.
    await ctx.db
      .update(executions)
      .set({ execution_status: 'cancelled', completed_at: new Date(), updated_at: new Date() })
      .where(and(eq(executions.id, id), eq(executions.execution_status, row.execution_status)));
  }
}

const EXECUTION_FORMATS = ['json', 'csv', 'xlsx'] as const;

/**
 * The data key and a fresh data access token of a successful execution's result; null when there is
 * none (204). With data_format csv or xlsx the token opens the result as that file (the report editor's
 * download of SQL not yet saved), named after the execution's report, else "Query results"; a report
 * whose data_download_enabled is off refuses it as its own data call does.
 */
export async function executionData({ ctx, id, dataFormat }: { ctx: ServiceContext; id: string; dataFormat?: string }) {
  const format = dataFormat ?? 'json';
  if (!(EXECUTION_FORMATS as readonly string[]).includes(format)) {
    throw new ApiError('invalid_attribute', `data_format must be one of ${EXECUTION_FORMATS.join(', ')}; got "${format.slice(0, 40)}".`, {
      source: { parameter: 'data_format' },
    });
  }
  const row = await findExecution(ctx, id);
  // A schema read stores one JSON document for GET /schema/{dataKey}, not rows.
  if (row.execution_type === 'almanach_query') return null;
  if (row.execution_status !== 'success') {
    if ((FINISHED_STATUSES as readonly string[]).includes(row.execution_status)) return null;
    throw new ApiError('invalid_state', `The execution is ${row.execution_status}; poll GET /executions/${id} until it is success.`);
  }
  const [r] = await ctx.db
    .select({ key: results.data_key, rows: results.row_count, timeZone: results.time_zone })
    .from(results)
    .where(and(eq(results.execution_id, id), eq(results.organization_id, ctx.principal.organizationId)))
    .limit(1);
  if (!r || r.rows === 0) return null;
  let name = 'Query results';
  if (format !== 'json' && row.report_id) {
    const [report] = await ctx.db
      .select({ name: reports.name, download: reports.data_download_enabled })
      .from(reports)
      .where(and(eq(reports.id, row.report_id), eq(reports.organization_id, ctx.principal.organizationId)))
      .limit(1);
    if (report && !report.download) throw new ApiError('forbidden', 'Data downloads are switched off for this report (data_download_enabled).');
    if (report) name = report.name;
  }
  const token = await signDataToken(
    {
      kind: 'data',
      org: ctx.principal.organizationId,
      key: r.key,
      region: ctx.env.REGION,
      ...downloadClaims(format as (typeof EXECUTION_FORMATS)[number], name),
    },
    ctx.env.DATA_TOKEN_SECRET,
  );
  const base = (ctx.env.DATA_SERVER_URL ?? '').replace(/\/$/, '');
  return { data_key: r.key, data_access_token: token, data_url: `${base}/data/${r.key}`, execution_id: id, time_zone: r.timeZone };
}
