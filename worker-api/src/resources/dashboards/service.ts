import { and, asc, count, eq, inArray, sql } from 'drizzle-orm';
import { dashboardFilters, dashboards, reports, sqlSnippetUses } from '@cairn/db';
import { ApiError, newId, notFound, type LayoutTile } from '@cairn/core';
import type { z } from '@hono/zod-openapi';
import type { ServiceContext, Tx } from '../../lib/context.ts';
import { can, canAny, requirePermission, requirePermissionOn } from '../../auth/principal.ts';
import { visibleDashboards } from '../../auth/access.ts';
import { audit, changed } from '../../lib/audit.ts';
import { withTransaction } from '../../lib/transaction.ts';
import { composeRelationships, dashboardIncluded, dashboardRelationships, fetchLinkage, startDashboardIncluded } from './relations.ts';
import { serializeDashboard } from './serialize.ts';
import { checkFilterIds, checkSnippetIds, lockedError, requireDashboardCreation, unchangedError } from './checks.ts';
import { SERIES_COLORS_MAX, type DashboardWrite, type layoutBody, type seriesColorsBody } from './schema.ts';
import type { ListQuery } from '../../lib/jsonapi.ts';
import { thumbnailObjectKey } from './thumbnail-url.ts';
import { listOrder, nameFilter, type ListSpec } from '../../lib/list.ts';

/** filter[name] and sort of GET /dashboards. */
export const DASHBOARD_LIST: ListSpec = {
  name: [dashboards.name],
  sorts: { name: dashboards.name, created_at: dashboards.created_at, updated_at: dashboards.updated_at },
  order: [asc(dashboards.name)],
  id: dashboards.id,
};

/**
 * Sharing links may be included only with Manage Dashboards; user and user groups only with View
 * Users, Manage Users or Manage Dashboards (spec 01 §6). Asking anyway is a 403, not a silent omission.
 */
function requireIncludePermissions(ctx: ServiceContext, include: Set<string>) {
  if (include.has('dashboard_sharing_links') && !can(ctx.principal, 'manage_dashboards')) {
    throw new ApiError('forbidden', 'Including dashboard_sharing_links needs the Manage Dashboards permission.', {
      source: { parameter: 'include' },
    });
  }
  for (const name of ['user', 'user_groups']) {
    if (include.has(name) && !canAny(ctx.principal, ['view_users', 'manage_users', 'manage_dashboards'])) {
      throw new ApiError('forbidden', `Including ${name} needs View Users, Manage Users or Manage Dashboards.`, {
        source: { parameter: 'include' },
      });
    }
  }
}

export async function listDashboards({ ctx, page, include }: { ctx: ServiceContext; page: ListQuery; include: Set<string> }) {
  requirePermission(ctx.principal, 'view_dashboards');
  requireIncludePermissions(ctx, include);
  const where = and(visibleDashboards(ctx.principal), nameFilter(DASHBOARD_LIST, page));
  const [rows, [total]] = await Promise.all([
    ctx.db
      .select()
      .from(dashboards)
      .where(where)
      .orderBy(...listOrder(DASHBOARD_LIST, page))
      .limit(page.size)
      .offset((page.number - 1) * page.size),
    ctx.db.select({ n: count() }).from(dashboards).where(where),
  ]);
  const rels = await dashboardRelationships(ctx, rows);
  const included = include.size ? await dashboardIncluded(ctx, rows, rels, include) : [];
  return {
    data: rows.map((d) => serializeDashboard(ctx.baseUrl, d, rels.get(d.id)!)),
    included,
    total: total?.n ?? 0,
  };
}

/** Reads one dashboard the caller may see; another organization's or an invisible one is a 404. */
export async function findDashboard(ctx: ServiceContext, id: string) {
  const [row] = await ctx.db
    .select()
    .from(dashboards)
    .where(and(eq(dashboards.id, id), visibleDashboards(ctx.principal)))
    .limit(1);
  if (!row) throw notFound('dashboard', id);
  return row;
}

export async function getDashboard({ ctx, id, include }: { ctx: ServiceContext; id: string; include: Set<string> }) {
  await requirePermissionOn(ctx.principal, 'view_dashboards', { type: 'dashboards', id }, () => findDashboard(ctx, id));
  requireIncludePermissions(ctx, include);
  // Everything is asked at once — the row, the linkage and the includes (by subqueries on the id) —
  // so the statements travel to the database together (lib/db.ts) instead of in three rounds.
  const linkage = fetchLinkage(ctx, [id]);
  linkage.catch(() => {});
  const finish = include.size ? startDashboardIncluded(ctx, id, include) : null;
  const row = await findDashboard(ctx, id);
  const rels = composeRelationships(ctx, [row], await linkage).get(row.id)!;
  const included = finish ? await finish(row, rels) : [];
  return { data: serializeDashboard(ctx.baseUrl, row, rels), included };
}

/** The dashboard a write may change: Manage Dashboards on it, and visible to the caller. */
export async function findManagedDashboard(ctx: ServiceContext, id: string) {
  await requirePermissionOn(ctx.principal, 'manage_dashboards', { type: 'dashboards', id }, () => findDashboard(ctx, id));
  return findDashboard(ctx, id);
}

/** Replaces the dashboard's filters (in order) and snippet uses with the given lists, when given. */
async function writeDashboardLinks(tx: Tx, org: string, id: string, rels: { filters?: string[]; sql_snippets?: string[] }) {
  if (rels.filters) {
    await tx.delete(dashboardFilters).where(and(eq(dashboardFilters.dashboard_id, id), eq(dashboardFilters.organization_id, org)));
    if (rels.filters.length) {
      await tx.insert(dashboardFilters).values(rels.filters.map((f, i) => ({ organization_id: org, dashboard_id: id, filter_id: f, position: i })));
    }
  }
  if (rels.sql_snippets) {
    await tx
      .delete(sqlSnippetUses)
      .where(and(eq(sqlSnippetUses.organization_id, org), eq(sqlSnippetUses.owner_type, 'dashboard'), eq(sqlSnippetUses.owner_id, id)));
    if (rels.sql_snippets.length) {
      await tx.insert(sqlSnippetUses).values(
        rels.sql_snippets.map((s) => ({
          organization_id: org,
          owner_type: 'dashboard' as const,
          owner_id: id,
          sql_snippet_id: s,
        })),
      );
    }
  }
}

const linksOf = (body: DashboardWrite) => ({
  filters: body.relationships.filters as string[] | undefined,
  sql_snippets: body.relationships.sql_snippets as string[] | undefined,
});

export async function createDashboard({ ctx, input: body }: { ctx: ServiceContext; input: DashboardWrite }) {
  const id = newId('dashboard');
  requireDashboardCreation(ctx);
  const links = linksOf(body);
  await Promise.all([checkFilterIds(ctx, links.filters ?? []), checkSnippetIds(ctx, links.sql_snippets ?? [])]);
  const org = ctx.principal.organizationId;
  await withTransaction(ctx, async ({ tx, audit }) => {
    await tx.insert(dashboards).values({
      ...body.attributes,
      name: body.attributes.name!,
      id,
      organization_id: org,
      // The creator: private dashboards stay reachable by them (API keys create organization-owned ones).
      user_id: ctx.principal.kind === 'user' ? ctx.principal.userId : null,
    });
    await writeDashboardLinks(tx, org, id, links);
    await audit('create', 'dashboards', id, changed(body.attributes, body.relationships));
  });
  return getDashboard({ ctx, id, include: new Set() });
}

/**
 * Writes only the attributes sent. A locked dashboard refuses changes unless the same request unlocks
 * it (`is_locked: false`); the lock is checked in the UPDATE itself, so a concurrent lock wins cleanly.
 */
export async function updateDashboard({ ctx, id, input: body }: { ctx: ServiceContext; id: string; input: DashboardWrite }) {
  await findManagedDashboard(ctx, id);
  const links = linksOf(body);
  await Promise.all([checkFilterIds(ctx, links.filters ?? []), checkSnippetIds(ctx, links.sql_snippets ?? [])]);
  const org = ctx.principal.organizationId;
  const unlocking = body.attributes.is_locked === false;
  await withTransaction(ctx, async ({ tx, audit }) => {
    const done = await tx
      .update(dashboards)
      .set({ ...body.attributes, updated_at: new Date() })
      .where(and(eq(dashboards.id, id), eq(dashboards.organization_id, org), unlocking ? undefined : eq(dashboards.is_locked, false)))
      .returning({ id: dashboards.id });
    if (!done.length) throw await unchangedError(tx, org, id);
    await writeDashboardLinks(tx, org, id, links);
    await audit('update', 'dashboards', id, changed(body.attributes, body.relationships));
  });
  return getDashboard({ ctx, id, include: new Set() });
}

/**
 * Deletes the dashboard with its reports, filter links, snippet uses, sharing links, schedules, export
 * jobs, group memberships and custom shares (foreign keys cascade; snippet uses are removed here). The
 * filters and snippets themselves are organization resources and stay. A locked dashboard is refused.
 */
export async function deleteDashboard({ ctx, id }: { ctx: ServiceContext; id: string }) {
  await findManagedDashboard(ctx, id);
  const org = ctx.principal.organizationId;
  await withTransaction(ctx, async ({ tx, audit }) => {
    const reportIds = (
      await tx
        .select({ id: reports.id })
        .from(reports)
        .where(and(eq(reports.dashboard_id, id), eq(reports.organization_id, org)))
    ).map((r) => r.id);
    const gone = await tx
      .delete(dashboards)
      .where(and(eq(dashboards.id, id), eq(dashboards.organization_id, org), eq(dashboards.is_locked, false)))
      .returning({ id: dashboards.id });
    if (!gone.length) throw await unchangedError(tx, org, id);
    await tx
      .delete(sqlSnippetUses)
      .where(and(eq(sqlSnippetUses.organization_id, org), eq(sqlSnippetUses.owner_type, 'dashboard'), eq(sqlSnippetUses.owner_id, id)));
    if (reportIds.length) {
      await tx
        .delete(sqlSnippetUses)
        .where(and(eq(sqlSnippetUses.organization_id, org), eq(sqlSnippetUses.owner_type, 'report'), inArray(sqlSnippetUses.owner_id, reportIds)));
    }
    await audit('delete', 'dashboards', id);
  });
  // Its thumbnail goes with it (D62); the row is gone already, so a failure here leaves only an orphan
  // image nobody can fetch (the route reads the row first), which is logged, not answered.
  await ctx.env.RESULTS.delete(thumbnailObjectKey(id)).catch((err) => console.error(`dashboard ${id}: deleting its thumbnail failed`, err));
}

/** Locks (true) or unlocks (false) a dashboard; repeating either is harmless. */
export async function setLock({ ctx, id, locked }: { ctx: ServiceContext; id: string; locked: boolean }) {
  await findManagedDashboard(ctx, id);
  await ctx.db
    .update(dashboards)
    .set({ is_locked: locked, updated_at: sql`now()` })
    .where(and(eq(dashboards.id, id), eq(dashboards.organization_id, ctx.principal.organizationId)));
  await audit(ctx, locked ? 'lock' : 'unlock', 'dashboards', id);
  return getDashboard({ ctx, id, include: new Set() });
}

const GRID_COLUMNS = 12;

const invalid = (pointer: string, detail: string) => new ApiError('invalid_attribute', detail, { source: { pointer } });

/** Throws every problem of a layout together (one error per tile and rule), or returns quietly. */
function checkLayout(tiles: LayoutTile[], reportIds: Set<string>, floating: boolean) {
  const problems: ApiError[] = [];
  const seen = new Map<string, number>();
  tiles.forEach((t, i) => {
    if (t.column + t.width - 1 > GRID_COLUMNS) {
      problems.push(
        invalid(
          `/layout/${i}/width`,
          `Tile ${i} spans columns ${t.column}–${t.column + t.width - 1}; the grid has ${GRID_COLUMNS} columns (column + width − 1 ≤ 12).`,
        ),
      );
    }
    if (!reportIds.has(t.id)) {
      problems.push(invalid(`/layout/${i}/id`, `Report "${t.id}" is not a report of this dashboard.`));
    } else if (seen.has(t.id)) {
      problems.push(invalid(`/layout/${i}/id`, `Report "${t.id}" is placed twice (tiles ${seen.get(t.id)} and ${i}).`));
    } else {
      seen.set(t.id, i);
    }
  });
  if (!floating) {
    for (let i = 0; i < tiles.length; i++) {
      for (let j = 0; j < i; j++) {
        const a = tiles[i]!;
        const b = tiles[j]!;
        const apart = a.column + a.width <= b.column || b.column + b.width <= a.column || a.row + a.height <= b.row || b.row + b.height <= a.row;
        if (!apart) {
          problems.push(invalid(`/layout/${i}`, `Tile ${i} overlaps tile ${j}; tiles may overlap only with floating_enabled.`));
          break;
        }
      }
    }
  }
  if (problems.length) {
    const [first, ...more] = problems;
    throw new ApiError(first!.code, first!.message, { source: first!.source, more });
  }
}

/**
 * PUT /dashboards/{id}/layout: replaces the tiles (and floating_enabled when sent). The dashboard row is
 * locked for the check and the write, so the reports checked are the reports the layout is stored with.
 */
export async function putLayout({ ctx, id, input: body }: { ctx: ServiceContext; id: string; input: z.infer<typeof layoutBody> }) {
  await findManagedDashboard(ctx, id);
  const org = ctx.principal.organizationId;
  await withTransaction(ctx, async ({ tx, audit }) => {
    const [row] = await tx
      .select({ is_locked: dashboards.is_locked, floating_enabled: dashboards.floating_enabled })
      .from(dashboards)
      .where(and(eq(dashboards.id, id), eq(dashboards.organization_id, org)))
      .for('update');
    if (!row) throw notFound('dashboard', id);
    if (row.is_locked) throw lockedError(id);
    const mine = await tx
      .select({ id: reports.id })
      .from(reports)
      .where(and(eq(reports.dashboard_id, id), eq(reports.organization_id, org)));
    const floating = body.floating_enabled ?? row.floating_enabled;
    checkLayout(body.layout, new Set(mine.map((r) => r.id)), floating);
    await tx
      .update(dashboards)
      .set({ layout: body.layout, floating_enabled: floating, updated_at: new Date() })
      .where(and(eq(dashboards.id, id), eq(dashboards.organization_id, org)));
    await audit('layout', 'dashboards', id, { tiles: body.layout.length, floating_enabled: body.floating_enabled ?? null });
  });
  return getDashboard({ ctx, id, include: new Set() });
}

/**
 * POST /dashboards/{id}/series_colors: gives the values without a colour the next ordinals, in the
 * order sent (order of first sight), and answers the whole map. The row is locked meanwhile, so two
 * viewers' charts never give two values one ordinal. Needs View Dashboards on it: viewing a chart is
 * what shows a value; a locked dashboard still learns colours, and updated_at does not move.
 */
export async function assignSeriesColors({ ctx, id, input: body }: { ctx: ServiceContext; id: string; input: z.infer<typeof seriesColorsBody> }) {
  await requirePermissionOn(ctx.principal, 'view_dashboards', { type: 'dashboards', id }, () => findDashboard(ctx, id));
  await findDashboard(ctx, id);
  const org = ctx.principal.organizationId;
  return ctx.direct().db.transaction(async (tx) => {
    const [row] = await tx
      .select({ series_colors: dashboards.series_colors, updated_at: dashboards.updated_at })
      .from(dashboards)
      .where(and(eq(dashboards.id, id), eq(dashboards.organization_id, org)))
      .for('update');
    if (!row) throw notFound('dashboard', id);
    const map: Record<string, number> = { ...row.series_colors };
    let next = Object.keys(map).length;
    let grew = false;
    for (const v of body.values) {
      if (Object.hasOwn(map, v) || next >= SERIES_COLORS_MAX) continue;
      map[v] = next++;
      grew = true;
    }
    if (grew)
      await tx
        .update(dashboards)
        .set({ series_colors: map, updated_at: row.updated_at })
        .where(and(eq(dashboards.id, id), eq(dashboards.organization_id, org)));
    return { series_colors: map };
  });
}
