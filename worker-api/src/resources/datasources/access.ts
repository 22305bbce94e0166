import { and, eq, inArray, or, sql, type SQL } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import { IMPLIED_BY, type Permission, type RestrictableResourceType } from '@cairn/core';
import { datasources } from '@cairn/db';
import { can, type Principal } from '../../auth/principal.ts';

/**
 * The rows a caller's grants of `permission` reach, as a SQL condition — the list-side twin of
 * `allows()`: an unrestricted grant reaches every row; a grant restricted to resources of a type that
 * `columns` names reaches the rows whose column holds one of those ids (restrictions of several types
 * in one grant must all hold); restrictions of other types say nothing about these rows.
 */
export function grantScope(
  p: Principal,
  permission: Permission,
  columns: Partial<Record<RestrictableResourceType, AnyPgColumn>>,
): SQL {
  const accepted = new Set<Permission>([permission]);
  if (IMPLIED_BY[permission]) accepted.add(IMPLIED_BY[permission]!);
  const reach: SQL[] = [];
  for (const g of p.grants) {
    if (!accepted.has(g.permission)) continue;
    if (g.resources === null) return sql`true`;
    const conds: SQL[] = [];
    for (const [type, column] of Object.entries(columns) as [RestrictableResourceType, AnyPgColumn][]) {
      const ids = g.resources.filter((r) => r.type === type).map((r) => r.id);
      if (ids.length) conds.push(inArray(column, ids));
    }
    if (!conds.length) return sql`true`;
    reach.push(and(...conds)!);
  }
  return reach.length ? or(...reach)! : sql`false`;
}

/** Datasources of the caller's organization that View (or Manage) Datasources reaches. */
export function visibleDatasources(p: Principal): SQL {
  return and(eq(datasources.organization_id, p.organizationId), grantScope(p, 'view_datasources', { datasources: datasources.id }))!;
}

/** Credentials (username, SSH user, whether a password or key is stored) are shown only with Manage Datasources. */
export const showsCredentials = (p: Principal, datasourceId: string) =>
  can(p, 'manage_datasources', { type: 'datasources', id: datasourceId });
