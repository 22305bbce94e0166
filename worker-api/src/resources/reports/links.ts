import { and, eq, inArray, sql } from 'drizzle-orm';
import { newId } from '@cairn/core';
import { dashboardFilters, filters, reportFilters, type Db } from '@cairn/db';
import { analyzeSql, customVariables, recordSnippetUses } from '../sql-snippets/references.ts';

type Tx = Pick<Db, 'execute' | 'select' | 'insert' | 'delete'>;

/**
 * Records what a report's SQL uses: its snippets (sql_snippet_uses) and the filters of its dashboard
 * whose variables appear in the SQL or in the snippets it reaches (report_filters). A custom
 * variable no filter of the dashboard defines gets an ad hoc filter there (dropdown_multi, TEXT,
 * display name = variable name), appended to the dashboard's filter bar. Returns the ad hoc filter ids.
 */
export async function linkReportSql(tx: Tx, org: string, report: { id: string; dashboard_id: string; sql_query: string }): Promise<string[]> {
  const { snippetIds, variables } = await analyzeSql(tx as Db, org, report.sql_query);
  const wanted = customVariables(variables);
  const created: string[] = [];
  const filterIds: string[] = [];
  if (wanted.length) {
    // One writer per dashboard at a time, so two reports saved together never create the same ad hoc filter twice.
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`dashboard-filters:${report.dashboard_id}`}))`);
    const existing = await tx
      .select({ id: filters.id, variable_name: filters.variable_name })
      .from(dashboardFilters)
      .innerJoin(filters, eq(filters.id, dashboardFilters.filter_id))
      .where(and(eq(dashboardFilters.dashboard_id, report.dashboard_id), eq(dashboardFilters.organization_id, org), inArray(filters.variable_name, wanted)));
    filterIds.push(...existing.map((f) => f.id));
    const missing = wanted.filter((v) => !existing.some((f) => f.variable_name === v));
    for (const variable_name of missing) {
      const id = newId('filter');
      await tx.insert(filters).values({
        id,
        organization_id: org,
        variable_name,
        display_name: variable_name,
        control_type: 'dropdown_multi',
        value_type: 'TEXT',
      });
      await tx.insert(dashboardFilters).values({
        organization_id: org,
        dashboard_id: report.dashboard_id,
        filter_id: id,
        position: sql`(select coalesce(max(position) + 1, 0) from dashboard_filters where dashboard_id = ${report.dashboard_id})`,
      });
      created.push(id);
      filterIds.push(id);
    }
  }
  await tx.delete(reportFilters).where(and(eq(reportFilters.report_id, report.id), eq(reportFilters.organization_id, org)));
  if (filterIds.length) {
    await tx.insert(reportFilters).values([...new Set(filterIds)].map((filter_id) => ({ organization_id: org, report_id: report.id, filter_id })));
  }
  await recordSnippetUses(tx, org, 'report', report.id, snippetIds);
  return created;
}
