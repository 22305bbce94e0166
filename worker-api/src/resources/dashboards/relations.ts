import { and, eq, inArray, sql } from 'drizzle-orm';
import {
  dashboardFilters, dashboardGroupMembers, dashboardGroups, dashboardSharingLinks, dashboardUserGroups,
  filters, reportFilters, reports, sqlSnippets, sqlSnippetUses, users, userGroups,
} from '@cairn/db';
import type { ResourceObject, Relationship } from '@cairn/core';
import type { ServiceContext } from '../../lib/context.ts';
import { can, canAny } from '../../auth/principal.ts';
import { toMany, toOne } from '../../lib/jsonapi.ts';
import { serializeReport } from '../reports/serialize.ts';
import { serializeFilter } from '../filters/serialize.ts';
import { serializeSnippet } from '../sql-snippets/serialize.ts';
import { serializeDashboardGroup } from '../dashboard-groups/serialize.ts';
import { serializeSharingLink } from '../dashboard-sharing-links/serialize.ts';
import { serializeUser } from '../users/serialize.ts';
import { serializeUserGroup } from '../user-groups/serialize.ts';
import type { dashboards } from '@cairn/db';

export const DASHBOARD_INCLUDES = [
  'reports', 'filters', 'sql_snippets', 'dashboard_groups', 'dashboard_sharing_links', 'user', 'user_groups',
] as const;

type DashboardRow = typeof dashboards.$inferSelect;

const group = <T, K extends string>(rows: T[], key: (r: T) => K, val: (r: T) => string) => {
  const m = new Map<K, string[]>();
  for (const r of rows) {
    const k = key(r);
    m.set(k, [...(m.get(k) ?? []), val(r)]);
  }
  return m;
};

/**
 * Relationship linkage for a page of dashboards, in a fixed number of queries whatever the page size.
 * Relationships the caller may not see (sharing links without Manage Dashboards; user and user groups
 * without View Users, Manage Users or Manage Dashboards) are left out entirely, not shown empty.
 */
export async function dashboardRelationships(ctx: ServiceContext, rows: DashboardRow[]) {
  const ids = rows.map((d) => d.id);
  const org = ctx.principal.organizationId;
  const out = new Map<string, Record<string, Relationship>>();
  if (!ids.length) return out;
  const seeLinks = can(ctx.principal, 'manage_dashboards');
  const seeUsers = canAny(ctx.principal, ['view_users', 'manage_users', 'manage_dashboards']);
  // All linkage in one round trip: the pieces are unioned and ordered (reports by creation, filters
  // by their position on the dashboard).
  const inIds = sql.join(ids.map((id) => sql`${id}`), sql`, `);
  const personalOk = ctx.principal.kind === 'user'
    ? sql`(g.personal_user_id is null or g.personal_user_id = ${ctx.principal.userId})`
    : sql`g.personal_user_id is null`;
  const parts = [
    sql`select 'reports' as rel, dashboard_id as d, id, 0 as pos, created_at as t from reports
         where organization_id = ${org} and dashboard_id in (${inIds})`,
    sql`select 'filters', dashboard_id, filter_id, position, null from dashboard_filters
         where organization_id = ${org} and dashboard_id in (${inIds})`,
    sql`select 'sql_snippets', owner_id, sql_snippet_id, 0, null from sql_snippet_uses
         where organization_id = ${org} and owner_type = 'dashboard' and owner_id in (${inIds})`,
    // API keys never see personal dashboard groups; a user sees only their own.
    sql`select 'dashboard_groups', m.dashboard_id, m.dashboard_group_id, m.position, null
          from dashboard_group_members m join dashboard_groups g on g.id = m.dashboard_group_id
         where m.organization_id = ${org} and m.dashboard_id in (${inIds}) and ${personalOk}`,
  ];
  if (seeLinks) {
    parts.push(sql`select 'dashboard_sharing_links', dashboard_id, id, 0, created_at from dashboard_sharing_links
         where organization_id = ${org} and dashboard_id in (${inIds})`);
  }
  if (seeUsers) {
    parts.push(sql`select 'user_groups', dashboard_id, user_group_id, 0, null from dashboard_user_groups
         where organization_id = ${org} and dashboard_id in (${inIds})`);
  }
  const linkage = (await ctx.db.execute(
    sql`select rel, d, id from (${sql.join(parts, sql` union all `)}) x order by rel, pos, t nulls last, id`,
  )) as unknown as { rel: string; d: string; id: string }[];
  const by = new Map<string, Map<string, string[]>>();
  for (const r of linkage) {
    const m = by.get(r.rel) ?? new Map<string, string[]>();
    m.set(r.d, [...(m.get(r.d) ?? []), r.id]);
    by.set(r.rel, m);
  }
  const linked = (rel: string, d: string) => by.get(rel)?.get(d) ?? [];
  for (const d of rows) {
    const rel: Record<string, Relationship> = {
      reports: toMany('reports', linked('reports', d.id)),
      filters: toMany('filters', linked('filters', d.id)),
      sql_snippets: toMany('sql_snippets', linked('sql_snippets', d.id)),
      dashboard_groups: toMany('dashboard_groups', linked('dashboard_groups', d.id)),
    };
    if (seeLinks) rel.dashboard_sharing_links = toMany('dashboard_sharing_links', linked('dashboard_sharing_links', d.id));
    if (seeUsers) {
      rel.user = toOne('users', d.user_id);
      rel.user_groups = toMany('user_groups', linked('user_groups', d.id));
    }
    out.set(d.id, rel);
  }
  return out;
}

/** The `included` array for the requested names, each resource once. */
export async function dashboardIncluded(
  ctx: ServiceContext,
  rows: DashboardRow[],
  rels: Map<string, Record<string, Relationship>>,
  include: Set<string>,
): Promise<ResourceObject[]> {
  const org = ctx.principal.organizationId;
  const idsOf = (name: string) => {
    const s = new Set<string>();
    for (const r of rels.values()) {
      const data = r[name]?.data;
      if (Array.isArray(data)) data.forEach((x) => s.add(x.id));
      else if (data) s.add(data.id);
    }
    return [...s];
  };
  const tiles = new Map(rows.flatMap((d) => d.layout.map((t) => [t.id, t] as const)));
  const out: ResourceObject[] = [];
  const tasks: Promise<void>[] = [];
  if (include.has('reports')) {
    tasks.push((async () => {
      const ids = idsOf('reports');
      if (!ids.length) return;
      // One query: each report with the ids of the filters and snippets it uses.
      const rs = await ctx.db.select({
        report: reports,
        filterIds: sql<unknown>`coalesce((select json_agg(rf.filter_id order by rf.filter_id) from report_filters rf
          where rf.report_id = ${reports.id} and rf.organization_id = ${org}), '[]'::json)`,
        snippetIds: sql<unknown>`coalesce((select json_agg(u.sql_snippet_id order by u.sql_snippet_id) from sql_snippet_uses u
          where u.owner_type = 'report' and u.owner_id = ${reports.id} and u.organization_id = ${org}), '[]'::json)`,
      }).from(reports).where(and(eq(reports.organization_id, org), inArray(reports.id, ids)));
      const order = new Map(ids.map((id, i) => [id, i]));
      rs.sort((a, b) => order.get(a.report.id)! - order.get(b.report.id)!);
      for (const r of rs) {
        out.push(serializeReport(ctx.baseUrl, r.report, tiles.get(r.report.id), {
          filters: jsonIds(r.filterIds),
          sql_snippets: jsonIds(r.snippetIds),
        }));
      }
    })());
  }
  if (include.has('filters')) {
    tasks.push((async () => {
      const ids = idsOf('filters');
      if (!ids.length) return;
      const [fs, fsn] = await Promise.all([
        ctx.db.select().from(filters).where(and(eq(filters.organization_id, org), inArray(filters.id, ids))),
        ctx.db.select().from(sqlSnippetUses).where(and(eq(sqlSnippetUses.organization_id, org), eq(sqlSnippetUses.owner_type, 'filter'), inArray(sqlSnippetUses.owner_id, ids))),
      ]);
      const s = group(fsn, (x) => x.owner_id, (x) => x.sql_snippet_id);
      const order = new Map(ids.map((id, i) => [id, i]));
      fs.sort((a, b) => order.get(a.id)! - order.get(b.id)!);
      for (const f of fs) out.push(serializeFilter(ctx.baseUrl, f, s.get(f.id) ?? [], { exposeManualValues: ctx.principal.kind === 'user' }));
    })());
  }
  if (include.has('sql_snippets')) {
    tasks.push((async () => {
      const ids = idsOf('sql_snippets');
      if (!ids.length) return;
      const [ss, deps] = await Promise.all([
        ctx.db.select().from(sqlSnippets).where(and(eq(sqlSnippets.organization_id, org), inArray(sqlSnippets.id, ids))),
        ctx.db.select().from(sqlSnippetUses).where(and(eq(sqlSnippetUses.organization_id, org), eq(sqlSnippetUses.owner_type, 'sql_snippet'), inArray(sqlSnippetUses.owner_id, ids))),
      ]);
      const d = group(deps, (x) => x.owner_id, (x) => x.sql_snippet_id);
      for (const s of ss) out.push(serializeSnippet(ctx.baseUrl, s, d.get(s.id) ?? []));
    })());
  }
  if (include.has('dashboard_groups')) {
    tasks.push((async () => {
      const ids = idsOf('dashboard_groups');
      if (!ids.length) return;
      const [gs, members] = await Promise.all([
        ctx.db.select().from(dashboardGroups).where(and(eq(dashboardGroups.organization_id, org), inArray(dashboardGroups.id, ids))),
        ctx.db.select().from(dashboardGroupMembers).where(and(eq(dashboardGroupMembers.organization_id, org), inArray(dashboardGroupMembers.dashboard_group_id, ids))),
      ]);
      const m = group(members, (x) => x.dashboard_group_id, (x) => x.dashboard_id);
      for (const g of gs) out.push(serializeDashboardGroup(ctx.baseUrl, g, m.get(g.id) ?? []));
    })());
  }
  if (include.has('dashboard_sharing_links')) {
    tasks.push((async () => {
      const ids = idsOf('dashboard_sharing_links');
      if (!ids.length) return;
      const ls = await ctx.db.select().from(dashboardSharingLinks).where(and(eq(dashboardSharingLinks.organization_id, org), inArray(dashboardSharingLinks.id, ids)));
      for (const l of ls) out.push(serializeSharingLink(ctx.baseUrl, l));
    })());
  }
  if (include.has('user')) {
    tasks.push((async () => {
      const ids = idsOf('user');
      if (!ids.length) return;
      const us = await ctx.db.select().from(users).where(and(eq(users.organization_id, org), inArray(users.id, ids)));
      for (const u of us) out.push(serializeUser(ctx.baseUrl, u, { showOtp: can(ctx.principal, 'manage_users') }));
    })());
  }
  if (include.has('user_groups')) {
    tasks.push((async () => {
      const ids = idsOf('user_groups');
      if (!ids.length) return;
      const gs = await ctx.db.select().from(userGroups).where(and(eq(userGroups.organization_id, org), inArray(userGroups.id, ids)));
      for (const g of gs) out.push(serializeUserGroup(ctx.baseUrl, g));
    })());
  }
  await Promise.all(tasks);
  return out;
}


/** A json array of ids, whether the driver parsed it or not. */
function jsonIds(v: unknown): string[] {
  const arr = typeof v === 'string' ? JSON.parse(v) : v;
  return Array.isArray(arr) ? arr.map(String) : [];
}
