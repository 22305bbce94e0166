import { and, asc, eq, inArray } from 'drizzle-orm';
import { API_VERSION } from '@cairn/core';
import { dashboardFilters, datasources, filters, reportFilters, reports, sqlSnippets, sqlSnippetUses, type dashboards } from '@cairn/db';
import type { ServiceContext } from '../../lib/context.ts';
import { audit } from '../../lib/audit.ts';
import { findManagedDashboard } from './service.ts';
import { BACKUP_FORMAT, BACKUP_VERSION, type DashboardBackup } from './backup-format.ts';
import { reportSettings } from '../reports/serialize.ts';

type DashboardRow = typeof dashboards.$inferSelect;

/** Snippet ids per owner of one type. */
async function snippetUses(ctx: ServiceContext, ownerType: 'dashboard' | 'report' | 'filter' | 'sql_snippet', ownerIds: string[]) {
  const out = new Map<string, string[]>(ownerIds.map((o) => [o, []]));
  if (!ownerIds.length) return out;
  const rows = await ctx.db
    .select({ owner: sqlSnippetUses.owner_id, snippet: sqlSnippetUses.sql_snippet_id })
    .from(sqlSnippetUses)
    .where(
      and(
        eq(sqlSnippetUses.organization_id, ctx.principal.organizationId),
        eq(sqlSnippetUses.owner_type, ownerType),
        inArray(sqlSnippetUses.owner_id, ownerIds),
      ),
    )
    .orderBy(asc(sqlSnippetUses.sql_snippet_id));
  for (const r of rows) out.get(r.owner)?.push(r.snippet);
  return out;
}

/** The filters a set of filter ids needs: those, and their parents up the chain. */
async function filterClosure(ctx: ServiceContext, start: string[]) {
  const org = ctx.principal.organizationId;
  const all = new Map<string, typeof filters.$inferSelect>();
  let next = [...new Set(start)];
  while (next.length) {
    const rows = await ctx.db
      .select()
      .from(filters)
      .where(and(eq(filters.organization_id, org), inArray(filters.id, next)));
    for (const r of rows) all.set(r.id, r);
    next = [...new Set(rows.map((r) => r.parent_filter_id).filter((p): p is string => !!p && !all.has(p)))];
  }
  return all;
}

/** The snippets a set of snippet ids needs: those, and the snippets they use, nested. */
async function snippetClosure(ctx: ServiceContext, start: string[]) {
  const org = ctx.principal.organizationId;
  const all = new Map<string, { row: typeof sqlSnippets.$inferSelect; uses: string[] }>();
  let next = [...new Set(start)];
  while (next.length) {
    const [rows, uses] = await Promise.all([
      ctx.db
        .select()
        .from(sqlSnippets)
        .where(and(eq(sqlSnippets.organization_id, org), inArray(sqlSnippets.id, next))),
      snippetUses(ctx, 'sql_snippet', next),
    ]);
    for (const r of rows) all.set(r.id, { row: r, uses: uses.get(r.id) ?? [] });
    next = [...new Set(rows.flatMap((r) => uses.get(r.id) ?? []).filter((s) => !all.has(s)))];
  }
  return all;
}

/** Builds the backup of a dashboard the caller may read (used by backup and duplicate). */
export async function buildBackup(ctx: ServiceContext, d: DashboardRow): Promise<DashboardBackup> {
  const org = ctx.principal.organizationId;
  const [reportRows, dashFilterRows] = await Promise.all([
    ctx.db
      .select()
      .from(reports)
      .where(and(eq(reports.dashboard_id, d.id), eq(reports.organization_id, org)))
      .orderBy(asc(reports.created_at), asc(reports.id)),
    ctx.db
      .select({ id: dashboardFilters.filter_id })
      .from(dashboardFilters)
      .where(and(eq(dashboardFilters.dashboard_id, d.id), eq(dashboardFilters.organization_id, org)))
      .orderBy(asc(dashboardFilters.position), asc(dashboardFilters.filter_id)),
  ]);
  const reportIds = reportRows.map((r) => r.id);
  const [reportFilterRows, reportSnippets, dashSnippets] = await Promise.all([
    reportIds.length
      ? ctx.db
          .select()
          .from(reportFilters)
          .where(and(eq(reportFilters.organization_id, org), inArray(reportFilters.report_id, reportIds)))
          .orderBy(asc(reportFilters.filter_id))
      : Promise.resolve([]),
    snippetUses(ctx, 'report', reportIds),
    snippetUses(ctx, 'dashboard', [d.id]),
  ]);
  const filtersOfReport = new Map<string, string[]>(reportIds.map((r) => [r, []]));
  for (const rf of reportFilterRows) filtersOfReport.get(rf.report_id)!.push(rf.filter_id);

  const filterMap = await filterClosure(ctx, [...dashFilterRows.map((f) => f.id), ...reportFilterRows.map((rf) => rf.filter_id)]);
  const filterSnippets = await snippetUses(ctx, 'filter', [...filterMap.keys()]);
  const snippetMap = await snippetClosure(ctx, [
    ...(dashSnippets.get(d.id) ?? []),
    ...[...reportSnippets.values()].flat(),
    ...[...filterSnippets.values()].flat(),
  ]);
  const dsIds = [
    ...new Set(
      [
        ...reportRows.map((r) => r.datasource_id),
        ...[...filterMap.values()].map((f) => f.datasource_id),
        ...[...snippetMap.values()].map((s) => s.row.datasource_id),
      ].filter((x): x is string => !!x),
    ),
  ];
  const dsRows = dsIds.length
    ? await ctx.db
        .select({ id: datasources.id, name: datasources.name, database_type: datasources.database_type })
        .from(datasources)
        .where(and(eq(datasources.organization_id, org), inArray(datasources.id, dsIds)))
        .orderBy(asc(datasources.id))
    : [];

  return {
    format: BACKUP_FORMAT,
    version: BACKUP_VERSION,
    created_at: new Date().toISOString(),
    source: { dashboard_id: d.id, api_version: API_VERSION },
    dashboard: {
      name: d.name,
      description: d.description,
      time_zone_config: d.time_zone_config as DashboardBackup['dashboard']['time_zone_config'],
      automatic_update_enabled: d.automatic_update_enabled,
      thumbnail_enabled: d.thumbnail_enabled,
      prewarm: d.prewarm,
      data_refresh_rate: d.data_refresh_rate,
      data_refresh_anchor_time: d.data_refresh_anchor_time,
      is_locked: d.is_locked,
      default_parameters: d.default_parameters as DashboardBackup['dashboard']['default_parameters'],
      default_page_width: d.default_page_width,
      color_scheme: d.color_scheme as DashboardBackup['dashboard']['color_scheme'],
      filters_configuration: d.filters_configuration as DashboardBackup['dashboard']['filters_configuration'],
      // Tiles of reports that no longer exist are left out.
      layout: d.layout.filter((t) => reportIds.includes(t.id)),
      floating_enabled: d.floating_enabled,
      filter_ids: dashFilterRows.map((f) => f.id).filter((f) => filterMap.has(f)),
      sql_snippet_ids: dashSnippets.get(d.id) ?? [],
    },
    reports: reportRows.map((r) => ({
      id: r.id,
      datasource_id: r.datasource_id,
      ...reportSettings(r),
      filter_ids: filtersOfReport.get(r.id)!,
      sql_snippet_ids: reportSnippets.get(r.id) ?? [],
    })),
    filters: [...filterMap.values()]
      .sort((a, b) => a.id.localeCompare(b.id))
      .map((f) => ({
        id: f.id,
        datasource_id: f.datasource_id,
        parent_filter_id: f.parent_filter_id,
        display_name: f.display_name,
        variable_name: f.variable_name,
        control_type: f.control_type as DashboardBackup['filters'][number]['control_type'],
        value_type: f.value_type as DashboardBackup['filters'][number]['value_type'],
        values: f.values,
        value_names: f.value_names,
        sql_query: f.sql_query,
        data_refresh_rate: f.data_refresh_rate,
        default_values: f.default_values,
        required: f.required,
        dropdown_validate: f.dropdown_validate,
        dropdown_default_to_first: f.dropdown_default_to_first,
        relative_range_enabled: f.relative_range_enabled,
        before_range_enabled: f.before_range_enabled,
        after_range_enabled: f.after_range_enabled,
        from_to_range_enabled: f.from_to_range_enabled,
        allowed_aggregations: f.allowed_aggregations,
        sql_snippet_ids: filterSnippets.get(f.id) ?? [],
      })),
    sql_snippets: [...snippetMap.values()]
      .sort((a, b) => a.row.id.localeCompare(b.row.id))
      .map(({ row: s, uses }) => ({
        id: s.id,
        datasource_id: s.datasource_id,
        name: s.name,
        description: s.description,
        text: s.text,
        params: s.params,
        sql_snippet_ids: uses,
      })),
    datasources: dsRows,
  };
}

/**
 * POST /dashboards/{id}/backup. Needs Manage Dashboards on the dashboard: a backup holds everything a
 * restore needs, including the options of manual dropdown filters, which the filter resource never shows.
 */
export async function backupDashboard(ctx: ServiceContext, id: string) {
  const d = await findManagedDashboard(ctx, id);
  const backup = await buildBackup(ctx, d);
  await audit(ctx, 'backup', 'dashboards', id, { reports: backup.reports.length, filters: backup.filters.length, sql_snippets: backup.sql_snippets.length });
  return backup;
}
