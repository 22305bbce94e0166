import { and, asc, eq, inArray } from 'drizzle-orm';
import type { ResourceObject } from '@cairn/core';
import { dashboards, reportFilters, reports, type LayoutTile } from '@cairn/db';
import type { ServiceContext } from './context.ts';
import { visibleDashboards } from '../auth/access.ts';
import { serializeDashboard } from '../resources/dashboards/serialize.ts';
import { dashboardRelationships } from '../resources/dashboards/relations.ts';
import { loadFilters } from '../resources/filters/load.ts';
import { loadSnippets } from '../resources/sql-snippets/load.ts';
import { snippetUsesOf } from '../resources/sql-snippets/references.ts';
import { includedDatasources } from './datasource-use.ts';
import { serializeReport } from '../resources/reports/serialize.ts';

type ReportRow = typeof reports.$inferSelect;
export type ReportWithLayout = { report: ReportRow; layout: LayoutTile[] };

/** Reports with their filter and snippet linkage and their tile, in two queries whatever the page size. */
export async function serializeReports(ctx: ServiceContext, rows: ReportWithLayout[]): Promise<ResourceObject[]> {
  const ids = rows.map((r) => r.report.id);
  const org = ctx.principal.organizationId;
  const [filterRows, snippets] = await Promise.all([
    ids.length
      ? ctx.db
          .select({ r: reportFilters.report_id, f: reportFilters.filter_id })
          .from(reportFilters)
          .where(and(eq(reportFilters.organization_id, org), inArray(reportFilters.report_id, ids)))
          .orderBy(asc(reportFilters.filter_id))
      : Promise.resolve([]),
    snippetUsesOf(ctx.db, org, 'report', ids),
  ]);
  return rows.map(({ report, layout }) =>
    serializeReport(
      ctx.baseUrl,
      report,
      layout.find((t) => t.id === report.id),
      {
        filters: filterRows.filter((x) => x.r === report.id).map((x) => x.f),
        sql_snippets: snippets.get(report.id) ?? [],
      },
    ),
  );
}

/** Reports by id on dashboards the caller may see, in the order of `ids`. */
export async function loadReports(ctx: ServiceContext, ids: string[]): Promise<ResourceObject[]> {
  const unique = [...new Set(ids)];
  if (!unique.length) return [];
  const rows = await ctx.db
    .select({ report: reports, layout: dashboards.layout })
    .from(reports)
    .innerJoin(dashboards, eq(dashboards.id, reports.dashboard_id))
    .where(and(eq(reports.organization_id, ctx.principal.organizationId), inArray(reports.id, unique), visibleDashboards(ctx.principal)));
  rows.sort((a, b) => unique.indexOf(a.report.id) - unique.indexOf(b.report.id));
  return serializeReports(ctx, rows);
}

/** Dashboards by id that the caller may see, in the order of `ids`. */
export async function loadDashboards(ctx: ServiceContext, ids: string[]): Promise<ResourceObject[]> {
  const unique = [...new Set(ids)];
  if (!unique.length) return [];
  const rows = await ctx.db
    .select()
    .from(dashboards)
    .where(and(inArray(dashboards.id, unique), visibleDashboards(ctx.principal)));
  rows.sort((a, b) => unique.indexOf(a.id) - unique.indexOf(b.id));
  const rels = await dashboardRelationships(ctx, rows);
  return rows.map((d) => serializeDashboard(ctx.baseUrl, d, rels.get(d.id)!));
}

/** Every id a relationship names across the documents, first appearance first. */
export function linked(data: ResourceObject[], name: string): string[] {
  const out = new Set<string>();
  for (const r of data) {
    const d = r.relationships?.[name]?.data;
    if (Array.isArray(d)) d.forEach((x) => out.add(x.id));
    else if (d) out.add(d.id);
  }
  return [...out];
}

/** The `included` array of report documents. */
export async function reportIncluded(ctx: ServiceContext, data: ResourceObject[], include: Set<string>): Promise<ResourceObject[]> {
  const parts = await Promise.all([
    include.has('dashboard') ? loadDashboards(ctx, linked(data, 'dashboard')) : [],
    include.has('datasource') ? includedDatasources(ctx, linked(data, 'datasource')) : [],
    include.has('filters') ? loadFilters(ctx, linked(data, 'filters')) : [],
    include.has('sql_snippets') ? loadSnippets(ctx, linked(data, 'sql_snippets')) : [],
  ]);
  return parts.flat();
}
