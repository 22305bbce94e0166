import { and, eq, inArray } from 'drizzle-orm';
import { ApiError, notFound, ORGANIZATION } from '@cairn/core';
import { dashboards, filters, sqlSnippets } from '@cairn/db';
import type { ServiceContext, Tx } from '../../lib/context.ts';
import { requirePermission } from '../../auth/principal.ts';

export const lockedError = (id: string) =>
  new ApiError('invalid_state', `Dashboard "${id}" is locked; unlock it (DELETE /dashboards/${id}/lock) before changing it.`);

/**
 * Why a write guarded by `is_locked = false` changed no row: the dashboard is locked, or it was
 * deleted meanwhile.
 */
export async function unchangedError(tx: Tx, org: string, id: string): Promise<ApiError> {
  const [row] = await tx
    .select({ id: dashboards.id })
    .from(dashboards)
    .where(and(eq(dashboards.id, id), eq(dashboards.organization_id, org)));
  return row ? lockedError(id) : notFound('dashboard', id);
}

/**
 * Creating a dashboard (also by duplicating or restoring) is organization-wide: a key whose Manage
 * Dashboards is restricted cannot, and an unrestricted grant also reaches every datasource the copied
 * reports and filters use. (Reports and SQL-driven filters check their datasource in
 * lib/datasource-use.ts requireDatasourceUse.)
 */
export function requireDashboardCreation(ctx: ServiceContext) {
  requirePermission(ctx.principal, 'manage_dashboards', ORGANIZATION);
}

/** Every id must be a resource of this organization; the first stranger is a 422 pointing at its linkage. */
async function checkIds(ids: string[], found: Promise<{ id: string }[]>, label: string, rel: string) {
  if (!ids.length) return;
  const have = new Set((await found).map((r) => r.id));
  const missing = ids.findIndex((id) => !have.has(id));
  if (missing >= 0) {
    throw new ApiError('invalid_relationship', `No ${label} with id "${ids[missing]}" exists in this organization.`, {
      source: { pointer: `/data/relationships/${rel}/data/${missing}/id` },
    });
  }
}

export function checkFilterIds(ctx: ServiceContext, ids: string[]) {
  const org = ctx.principal.organizationId;
  return checkIds(
    ids,
    ids.length
      ? ctx.db
          .select({ id: filters.id })
          .from(filters)
          .where(and(eq(filters.organization_id, org), inArray(filters.id, ids)))
      : Promise.resolve([]),
    'filter',
    'filters',
  );
}

export function checkSnippetIds(ctx: ServiceContext, ids: string[]) {
  const org = ctx.principal.organizationId;
  return checkIds(
    ids,
    ids.length
      ? ctx.db
          .select({ id: sqlSnippets.id })
          .from(sqlSnippets)
          .where(and(eq(sqlSnippets.organization_id, org), inArray(sqlSnippets.id, ids)))
      : Promise.resolve([]),
    'SQL snippet',
    'sql_snippets',
  );
}
