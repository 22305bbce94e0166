import { and, eq } from 'drizzle-orm';
import { ApiError, notFound, ORGANIZATION, type GrantTarget, type Permission } from '@cairn/core';
import { dashboardFilters, dashboards, executions, reports, sqlAlerts } from '@cairn/db';
import type { ServiceContext } from '../../lib/context.ts';
import { actorOf, can, canAny } from '../../auth/principal.ts';
import { visibleDashboards } from '../../auth/access.ts';
import { alertTarget } from '../sql-alerts/access.ts';

type ExecutionRow = typeof executions.$inferSelect;

/**
 * What an execution ran for, as the permission checks see it: who may see it (read it and fetch its
 * data) and who may cancel it. `see`/`change` are [permission, target] pairs, any of which suffices.
 */
interface Subject {
  see: [Permission, GrantTarget | undefined][];
  change: [Permission, GrantTarget | undefined][];
  /** False when the caller cannot see what it ran for at all (a dashboard hidden from them): 404. */
  visible: boolean;
}

const onDatasource = (id: string) => ({ type: 'datasources' as const, id });

async function subjectOf(ctx: ServiceContext, row: ExecutionRow): Promise<Subject> {
  const org = ctx.principal.organizationId;
  if (row.report_id) {
    // Report (and report CSV export) runs: the report's dashboard.
    const [r] = await ctx.db
      .select({ dashboard: reports.dashboard_id, visible: dashboards.id })
      .from(reports)
      .leftJoin(dashboards, and(eq(dashboards.id, reports.dashboard_id), visibleDashboards(ctx.principal)))
      .where(and(eq(reports.id, row.report_id), eq(reports.organization_id, org)))
      .limit(1);
    if (!r) return { see: [], change: [], visible: false };
    const d = { type: 'dashboards' as const, id: r.dashboard };
    return { see: [['view_dashboards', d]], change: [['manage_dashboards', d]], visible: r.visible !== null };
  }
  if (row.sql_alert_id) {
    const [a] = await ctx.db
      .select({ datasource: sqlAlerts.datasource_id })
      .from(sqlAlerts)
      .where(and(eq(sqlAlerts.id, row.sql_alert_id), eq(sqlAlerts.organization_id, org)))
      .limit(1);
    if (!a) return { see: [], change: [], visible: false };
    const t = alertTarget(row.sql_alert_id, a.datasource);
    return {
      see: [['view_alerts', t]],
      change: [
        ['manage_alerts', t],
        ['manage_datasources', t],
      ],
      visible: true,
    };
  }
  if (row.filter_id) {
    // Dropdown queries: any dashboard the caller sees that shows the filter; a filter on no dashboard is the organization's.
    const on = await ctx.db
      .select({ id: dashboardFilters.dashboard_id, visible: dashboards.id })
      .from(dashboardFilters)
      .leftJoin(dashboards, and(eq(dashboards.id, dashboardFilters.dashboard_id), visibleDashboards(ctx.principal)))
      .where(and(eq(dashboardFilters.filter_id, row.filter_id), eq(dashboardFilters.organization_id, org)));
    if (!on.length) return { see: [['view_dashboards', ORGANIZATION]], change: [['manage_dashboards', ORGANIZATION]], visible: true };
    const seen = on.filter((d) => d.visible !== null);
    return {
      see: seen.map((d) => ['view_dashboards', { type: 'dashboards', id: d.id }] as [Permission, GrantTarget]),
      // Cancelling a shared dropdown query affects every dashboard that shows the filter.
      change: [['manage_dashboards', on.map((d) => ({ type: 'dashboards' as const, id: d.id }))]],
      visible: seen.length > 0,
    };
  }
  if (row.execution_type === 'almanach_query' && row.datasource_id) {
    // Schema reads: as GET /datasources/{id}/schema.
    return { see: [['view_datasources', onDatasource(row.datasource_id)]], change: [], visible: true };
  }
  // Ad hoc SQL: only whoever started it (and, below, whoever manages the datasource).
  return { see: [], change: [], visible: true };
}

/**
 * An execution the caller may see (404 otherwise): one that ran for something the caller may see (a
 * report's dashboard, an alert, a dropdown filter, a datasource's schema), an ad hoc run the caller
 * started, or any execution on a datasource the caller manages. With `change` (cancel), the caller
 * must also manage what it ran for, have started it, or manage the datasource (403 otherwise): a
 * viewer reads a dashboard's executions but cannot cancel them.
 */
export async function requireExecutionAccess(ctx: ServiceContext, row: ExecutionRow, mode: 'see' | 'change'): Promise<void> {
  const p = ctx.principal;
  if (!canAny(p, ['view_dashboards', 'view_alerts', 'view_datasources'])) {
    throw new ApiError('forbidden', 'Reading executions needs View Dashboards, View Alerts or View Datasources (or their Manage permissions).');
  }
  const adHoc = !row.report_id && !row.sql_alert_id && !row.filter_id && row.execution_type !== 'almanach_query';
  const started = adHoc && row.created_by !== null && row.created_by === actorOf(p).actor_id;
  const managesDatasource = row.datasource_id !== null && can(p, 'manage_datasources', onDatasource(row.datasource_id));
  if (started || managesDatasource) return;
  const subject = await subjectOf(ctx, row);
  const passes = (pairs: Subject['see']) => pairs.some(([perm, target]) => can(p, perm, target));
  if (!subject.visible || !passes([...subject.see, ...subject.change])) throw notFound('execution', row.id);
  if (mode === 'change' && !passes(subject.change)) {
    throw new ApiError(
      'forbidden',
      'Cancelling this execution needs the Manage permission for what it ran for (its dashboard, alert or filter), or Manage Datasources on its datasource, unless you started it.',
    );
  }
}
