import { and, eq, exists, inArray, or, sql, type SQL } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import { acceptedFor, type Permission, type RestrictableResourceType } from '@cairn/core';
import { dashboards, dashboardUserGroups, userGroupMembers, userGroups } from '@cairn/db';
import type { Principal } from './principal.ts';

/**
 * The rows a caller's grants of `permission` reach, as a SQL condition: the list-side twin of core's
 * `grantReaches`. An unrestricted grant reaches every row; a restricted grant reaches the rows whose
 * columns hold ids it names, for every kind it names that `columns` has (restrictions of several kinds in
 * one grant must all hold); a grant that names none of these kinds reaches no row.
 */
export function grantScope(p: Principal, permission: Permission, columns: Partial<Record<RestrictableResourceType, AnyPgColumn>>): SQL {
  const accepted = acceptedFor(permission);
  const reach: SQL[] = [];
  for (const g of p.grants) {
    if (!accepted.includes(g.permission)) continue;
    if (g.resources === null) return sql`true`;
    const conds: SQL[] = [];
    for (const [type, column] of Object.entries(columns) as [RestrictableResourceType, AnyPgColumn][]) {
      const ids = g.resources.filter((r) => r.type === type).map((r) => r.id);
      if (ids.length) conds.push(inArray(column, ids));
    }
    if (conds.length) reach.push(and(...conds)!);
  }
  return reach.length ? or(...reach)! : sql`false`;
}

/**
 * Which dashboards a caller may see, as a SQL condition (always combined with the organization).
 * API keys: every dashboard with an unrestricted View/Manage Dashboards grant, else the dashboards their
 * grants name (a grant restricted to datasources or alerts names no dashboard).
 * Users: admins see all; others see their own, those shared with all users, with all analysts
 * (analysts), or with a group they belong to (custom).
 */
export function visibleDashboards(p: Principal): SQL {
  const org = eq(dashboards.organization_id, p.organizationId);
  if (p.kind === 'api_key') {
    return and(org, grantScope(p, 'view_dashboards', { dashboards: dashboards.id }))!;
  }
  if (p.role === 'admin') return org;
  const inGroup = exists(
    sql`(select 1 from ${dashboardUserGroups}
         join ${userGroups} on ${userGroups.id} = ${dashboardUserGroups.user_group_id}
         where ${dashboardUserGroups.dashboard_id} = ${dashboards.id}
           and (${userGroups.built_in_behavior} = 'all_users'
             or (${userGroups.built_in_behavior} = 'all_analysts' and ${p.role === 'analyst'})
             or exists (select 1 from ${userGroupMembers}
                        where ${userGroupMembers.user_group_id} = ${userGroups.id}
                          and ${userGroupMembers.user_id} = ${p.userId})))`,
  );
  const shared = [eq(dashboards.user_id, p.userId), eq(dashboards.share_mode, 'all_users'), and(eq(dashboards.share_mode, 'custom'), inGroup)];
  if (p.role === 'analyst') shared.push(eq(dashboards.share_mode, 'all_analysts'));
  return and(org, or(...shared))!;
}
