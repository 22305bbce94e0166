import { and, eq, inArray, ne, or, sql, type SQL } from 'drizzle-orm';
import { ApiError, notFound, ORGANIZATION, type ResourceRef } from '@cairn/core';
import { dashboardFilters, dashboards, filters } from '@cairn/db';
import type { ServiceContext } from '../../lib/context.ts';
import type { Principal } from '../../auth/principal.ts';
import { requirePermission } from '../../auth/principal.ts';
import { visibleDashboards } from '../../auth/access.ts';

type FilterRow = typeof filters.$inferSelect;

/**
 * Filters a caller may see: those on no dashboard (the organization's shared definitions) and those
 * on at least one dashboard the caller may see. A key restricted to dashboards thus never sees the
 * filters of other dashboards.
 */
export function visibleFilters(p: Principal): SQL {
  return and(
    eq(filters.organization_id, p.organizationId),
    or(
      sql`not exists (select 1 from ${dashboardFilters} where ${dashboardFilters.filter_id} = ${filters.id})`,
      sql`exists (select 1 from ${dashboardFilters} join ${dashboards} on ${dashboards.id} = ${dashboardFilters.dashboard_id}
                  where ${dashboardFilters.filter_id} = ${filters.id} and ${visibleDashboards(p)})`,
    ),
  )!;
}

export async function findFilter(ctx: ServiceContext, id: string): Promise<FilterRow> {
  const [row] = await ctx.db
    .select()
    .from(filters)
    .where(and(eq(filters.id, id), visibleFilters(ctx.principal)))
    .limit(1);
  if (!row) throw notFound('filter', id);
  return row;
}

/** Dashboards (visible to the caller) the filter is on, with their lock state. */
export async function visibleMemberships(ctx: ServiceContext, filterId: string) {
  return ctx.db
    .select({ id: dashboards.id, is_locked: dashboards.is_locked })
    .from(dashboardFilters)
    .innerJoin(dashboards, eq(dashboards.id, dashboardFilters.dashboard_id))
    .where(and(eq(dashboardFilters.filter_id, filterId), visibleDashboards(ctx.principal)));
}

/** Every dashboard the filter is on, whether the caller sees it or not. */
export async function filterDashboards(ctx: ServiceContext, filterId: string): Promise<ResourceRef[]> {
  const rows = await ctx.db
    .select({ id: dashboardFilters.dashboard_id })
    .from(dashboardFilters)
    .where(and(eq(dashboardFilters.filter_id, filterId), eq(dashboardFilters.organization_id, ctx.principal.organizationId)));
  return rows.map((r) => ({ type: 'dashboards' as const, id: r.id }));
}

/**
 * Changing or deleting a filter changes every dashboard that shows it: Manage Dashboards must reach all
 * of them (a key restricted to some dashboards cannot change a filter another dashboard shares), and a
 * filter on no dashboard is an organization-wide definition (unrestricted Manage Dashboards).
 */
export function requireFilterWrite(ctx: ServiceContext, onDashboards: ResourceRef[]) {
  requirePermission(ctx.principal, 'manage_dashboards', onDashboards.length ? onDashboards : ORGANIZATION);
}

/**
 * The parent must be another filter of the organization, and following parents from it must never
 * come back to this filter.
 */
export async function checkParent(ctx: ServiceContext, selfId: string | null, parentId: string) {
  const pointer = '/data/relationships/parent_filter/data/id';
  if (parentId === selfId) throw new ApiError('invalid_relationship', 'A filter cannot be its own parent.', { source: { pointer } });
  const all = await ctx.db
    .select({ id: filters.id, parent: filters.parent_filter_id })
    .from(filters)
    .where(eq(filters.organization_id, ctx.principal.organizationId));
  const parentOf = new Map(all.map((f) => [f.id, f.parent]));
  if (!parentOf.has(parentId)) {
    throw new ApiError('invalid_relationship', `No filter with id "${parentId}" exists in this organization.`, { source: { pointer } });
  }
  const chain = [parentId];
  for (let at = parentOf.get(parentId); at; at = parentOf.get(at)) {
    if (at === selfId) {
      throw new ApiError('invalid_relationship', `Parent filters would form a cycle: ${[selfId, ...chain, selfId].join(' → ')}.`, { source: { pointer } });
    }
    if (chain.includes(at)) break;
    chain.push(at);
  }
}

/**
 * Checks the dashboards a filter is put on or taken off: each added one must be visible (422
 * otherwise), each changed one manageable (403) and unlocked (422 invalid_state), and no added one
 * may already show another filter with the same variable name (422).
 */
export async function checkDashboardChanges(
  ctx: ServiceContext,
  opts: { filterId: string | null; variableName: string; wanted: string[]; current: { id: string; is_locked: boolean }[] },
) {
  const { wanted, current } = opts;
  const found = wanted.length
    ? await ctx.db
        .select({ id: dashboards.id, is_locked: dashboards.is_locked })
        .from(dashboards)
        .where(and(inArray(dashboards.id, wanted), visibleDashboards(ctx.principal)))
    : [];
  const byId = new Map(found.map((d) => [d.id, d]));
  const missing = wanted.findIndex((id) => !byId.has(id));
  if (missing >= 0) {
    throw new ApiError('invalid_relationship', `No dashboard with id "${wanted[missing]}" exists in this organization.`, {
      source: { pointer: `/data/relationships/dashboards/data/${missing}/id` },
    });
  }
  const added = found.filter((d) => !current.some((c) => c.id === d.id));
  const removed = current.filter((c) => !wanted.includes(c.id));
  for (const d of [...added, ...removed]) {
    requirePermission(ctx.principal, 'manage_dashboards', { type: 'dashboards', id: d.id });
    if (d.is_locked) {
      throw new ApiError('invalid_state', `Dashboard "${d.id}" is locked; unlock it before changing its filters.`, {
        source: { pointer: '/data/relationships/dashboards' },
      });
    }
  }
  await checkVariableClash(ctx, { ...opts, dashboardIds: added.map((d) => d.id), pointer: '/data/relationships/dashboards' });
  return { added: added.map((d) => d.id), removed: removed.map((d) => d.id) };
}

/** One variable, one filter per dashboard: refuses a second filter of that name on any of the dashboards. */
export async function checkVariableClash(
  ctx: ServiceContext,
  opts: { filterId: string | null; variableName: string; dashboardIds: string[]; pointer: string },
) {
  if (!opts.dashboardIds.length) return;
  const [clash] = await ctx.db
    .select({ filter: filters.id, dashboard: dashboardFilters.dashboard_id })
    .from(dashboardFilters)
    .innerJoin(filters, eq(filters.id, dashboardFilters.filter_id))
    .where(
      and(
        inArray(dashboardFilters.dashboard_id, opts.dashboardIds),
        eq(filters.variable_name, opts.variableName),
        eq(filters.organization_id, ctx.principal.organizationId),
        ...(opts.filterId ? [ne(filters.id, opts.filterId)] : []),
      ),
    )
    .limit(1);
  if (clash) {
    throw new ApiError(
      'invalid_relationship',
      `Dashboard "${clash.dashboard}" already has filter "${clash.filter}" for the variable "${opts.variableName}"; change that filter instead, or take it off the dashboard first.`,
      {
        source: { pointer: opts.pointer },
      },
    );
  }
}
