import { and, eq, exists, inArray, or, sql, type SQL } from 'drizzle-orm';
import { dashboards, dashboardUserGroups, userGroupMembers, userGroups } from '@cairn/db';
import type { Principal } from './principal.ts';

/**
 * Which dashboards a caller may see, as a SQL condition (always combined with the organization).
 * API keys: every dashboard, or the ones their View/Manage Dashboards grants name.
 * Users: admins see all; others see their own, those shared with all users, with all analysts
 * (analysts), or with a group they belong to (custom).
 */
export function visibleDashboards(p: Principal): SQL {
  const org = eq(dashboards.organization_id, p.organizationId);
  if (p.kind === 'api_key') {
    const grants = p.grants.filter((g) => g.permission === 'view_dashboards' || g.permission === 'manage_dashboards');
    if (grants.some((g) => g.resources === null || !g.resources.some((r) => r.type === 'dashboards'))) return org;
    const ids = grants.flatMap((g) => (g.resources ?? []).filter((r) => r.type === 'dashboards').map((r) => r.id));
    return and(org, ids.length ? inArray(dashboards.id, ids) : sql`false`)!;
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
  const shared = [
    eq(dashboards.user_id, p.userId),
    eq(dashboards.share_mode, 'all_users'),
    and(eq(dashboards.share_mode, 'custom'), inGroup),
  ];
  if (p.role === 'analyst') shared.push(eq(dashboards.share_mode, 'all_analysts'));
  return and(org, or(...shared))!;
}
