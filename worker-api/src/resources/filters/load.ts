import { and, asc, eq, inArray } from 'drizzle-orm';
import type { ResourceObject } from '@cairn/core';
import { dashboardFilters, dashboards, filters } from '@cairn/db';
import type { ServiceContext } from '../../lib/context.ts';
import { visibleDashboards } from '../../auth/access.ts';
import { snippetUsesOf } from '../sql-snippets/references.ts';
import { serializeFilter } from './serialize.ts';

type FilterRow = typeof filters.$inferSelect;

/** Dashboards (visible to the caller) showing each filter, by dashboard id. */
async function filterDashboards(ctx: ServiceContext, filterIds: string[]) {
  const out = new Map<string, string[]>(filterIds.map((id) => [id, []]));
  if (!filterIds.length) return out;
  const rows = await ctx.db
    .select({ f: dashboardFilters.filter_id, d: dashboardFilters.dashboard_id })
    .from(dashboardFilters)
    .innerJoin(dashboards, eq(dashboards.id, dashboardFilters.dashboard_id))
    .where(
      and(inArray(dashboardFilters.filter_id, filterIds), eq(dashboardFilters.organization_id, ctx.principal.organizationId), visibleDashboards(ctx.principal)),
    )
    .orderBy(asc(dashboardFilters.dashboard_id));
  for (const r of rows) out.get(r.f)?.push(r.d);
  return out;
}

export async function serializeFilters(ctx: ServiceContext, rows: FilterRow[]): Promise<ResourceObject[]> {
  const ids = rows.map((r) => r.id);
  const [snippets, boards] = await Promise.all([snippetUsesOf(ctx.db, ctx.principal.organizationId, 'filter', ids), filterDashboards(ctx, ids)]);
  return rows.map((f) =>
    serializeFilter(ctx.baseUrl, f, snippets.get(f.id) ?? [], {
      exposeManualValues: ctx.principal.kind === 'user',
      dashboardIds: boards.get(f.id) ?? [],
    }),
  );
}

/** Filters by id, in the order of `ids` (for `included`). */
export async function loadFilters(ctx: ServiceContext, ids: string[]): Promise<ResourceObject[]> {
  const unique = [...new Set(ids)];
  if (!unique.length) return [];
  const rows = await ctx.db
    .select()
    .from(filters)
    .where(and(eq(filters.organization_id, ctx.principal.organizationId), inArray(filters.id, unique)));
  rows.sort((a, b) => unique.indexOf(a.id) - unique.indexOf(b.id));
  return serializeFilters(ctx, rows);
}
