import { and, eq, inArray } from 'drizzle-orm';
import { ApiError, type ResourceObject, type ResourceRef } from '@cairn/core';
import { datasources } from '@cairn/db';
import type { ServiceContext } from './context.ts';
import { canAny, requirePermission } from '../auth/principal.ts';
import { serializeDatasource } from '../resources/datasources/serialize.ts';
import { agentsOf } from '../resources/datasources/links.ts';
import { showsCredentials } from './datasource-access.ts';

/**
 * "Creating or changing reports and SQL-driven filters needs access to the datasource" (spec 01 §5):
 * the datasource must exist in the organization and be enabled, and when the caller's Manage
 * Dashboards grant is restricted to datasources, it must name this one. `owners` are the dashboards the
 * report or filter is on: the check covers them together with the datasource (core `grantReaches`), so a
 * grant restricted to those dashboards may use any datasource for them. Users get unrestricted grants
 * from their role, so for them existence in the organization is what counts.
 */
export async function requireDatasourceUse(ctx: ServiceContext, id: string, pointer: string, opts: { requireEnabled?: boolean; owners?: ResourceRef[] } = {}) {
  const [row] = await ctx.db
    .select({ id: datasources.id, enabled: datasources.enabled })
    .from(datasources)
    .where(and(eq(datasources.id, id), eq(datasources.organization_id, ctx.principal.organizationId)))
    .limit(1);
  if (!row) {
    throw new ApiError('invalid_relationship', `No datasource with id "${id}" exists in this organization.`, { source: { pointer } });
  }
  requirePermission(ctx.principal, 'manage_dashboards', [...(opts.owners ?? []), { type: 'datasources', id }]);
  if (opts.requireEnabled !== false && !row.enabled) {
    throw new ApiError('invalid_state', `Datasource "${id}" is disabled; enable it before using it.`, { source: { pointer } });
  }
}

/** Including a datasource needs View Datasources, Manage Datasources or Manage Dashboards (spec 01 §6). */
export function requireDatasourceInclude(ctx: ServiceContext, include: Set<string>) {
  if (include.has('datasource') && !canAny(ctx.principal, ['view_datasources', 'manage_datasources', 'manage_dashboards'])) {
    throw new ApiError('forbidden', 'Including datasource needs View Datasources, Manage Datasources or Manage Dashboards.', {
      source: { parameter: 'include' },
    });
  }
}

/** Datasources as included resources, through the datasources module's serializer (credentials only with Manage Datasources). */
export async function includedDatasources(ctx: ServiceContext, ids: string[]): Promise<ResourceObject[]> {
  const unique = [...new Set(ids)];
  if (!unique.length) return [];
  const [rows, agents] = await Promise.all([
    ctx.db
      .select()
      .from(datasources)
      .where(and(eq(datasources.organization_id, ctx.principal.organizationId), inArray(datasources.id, unique))),
    agentsOf(ctx, unique),
  ]);
  return rows
    .sort((a, b) => unique.indexOf(a.id) - unique.indexOf(b.id))
    .map((d) => serializeDatasource(ctx.baseUrl, d, agents.get(d.id) ?? [], showsCredentials(ctx.principal, d.id)));
}
