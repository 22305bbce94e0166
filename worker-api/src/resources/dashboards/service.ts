import { and, asc, count, eq } from 'drizzle-orm';
import { dashboards } from '@cairn/db';
import { ApiError, notFound } from '@cairn/core';
import type { ServiceContext } from '../../lib/context.ts';
import { can, canAny, requirePermission } from '../../auth/principal.ts';
import { visibleDashboards } from '../../auth/access.ts';
import { dashboardIncluded, dashboardRelationships } from './relations.ts';
import { serializeDashboard } from './serialize.ts';

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

export async function listDashboards({ ctx, page, include }: {
  ctx: ServiceContext;
  page: { size: number; number: number };
  include: Set<string>;
}) {
  requirePermission(ctx.principal, 'view_dashboards');
  requireIncludePermissions(ctx, include);
  const where = visibleDashboards(ctx.principal);
  const [rows, [total]] = await Promise.all([
    ctx.db.select().from(dashboards).where(where)
      .orderBy(asc(dashboards.name), asc(dashboards.id))
      .limit(page.size).offset((page.number - 1) * page.size),
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
  const [row] = await ctx.db.select().from(dashboards)
    .where(and(eq(dashboards.id, id), visibleDashboards(ctx.principal))).limit(1);
  if (!row) throw notFound('dashboard', id);
  return row;
}

export async function getDashboard({ ctx, id, include }: { ctx: ServiceContext; id: string; include: Set<string> }) {
  requirePermission(ctx.principal, 'view_dashboards', { type: 'dashboards', id });
  requireIncludePermissions(ctx, include);
  const row = await findDashboard(ctx, id);
  const rels = await dashboardRelationships(ctx, [row]);
  const included = include.size ? await dashboardIncluded(ctx, [row], rels, include) : [];
  return { data: serializeDashboard(ctx.baseUrl, row, rels.get(row.id)!), included };
}
