import { and, eq, inArray, sql } from 'drizzle-orm';
import {
  dashboardGroups, dashboardSharingLinks, filters, reports, sqlSnippets, users, userGroups,
} from '@cairn/db';
import type { ResourceObject, Relationship } from '@cairn/core';
import type { dashboards } from '@cairn/db';
import type { ServiceContext } from '../../lib/context.ts';
import { can, canAny } from '../../auth/principal.ts';
import { visibleDashboards } from '../../auth/access.ts';
import { toMany, toOne } from '../../lib/jsonapi.ts';
import { serializeReport } from '../reports/serialize.ts';
import { serializeFilter } from '../filters/serialize.ts';
import { serializeSnippet } from '../sql-snippets/serialize.ts';
import { serializeDashboardGroup } from '../dashboard-groups/serialize.ts';
import { serializeSharingLink } from '../dashboard-sharing-links/serialize.ts';
import { serializeUser } from '../users/serialize.ts';
import { serializeUserGroup } from '../user-groups/serialize.ts';

export const DASHBOARD_INCLUDES = [
  'reports', 'filters', 'sql_snippets', 'dashboard_groups', 'dashboard_sharing_links', 'user', 'user_groups',
] as const;

type DashboardRow = typeof dashboards.$inferSelect;


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
    // A key may manage only some dashboards: their links show on those alone.
    if (seeLinks && can(ctx.principal, 'manage_dashboards', { type: 'dashboards', id: d.id })) {
      rel.dashboard_sharing_links = toMany('dashboard_sharing_links', linked('dashboard_sharing_links', d.id));
    }
    if (seeUsers) {
      rel.user = toOne('users', d.user_id);
      rel.user_groups = toMany('user_groups', linked('user_groups', d.id));
    }
    out.set(d.id, rel);
  }
  return out;
}

type Loader = (ids: string[]) => Promise<ResourceObject[]>;

/** The `included` array for the requested names: each resource once, one query per name. */
export async function dashboardIncluded(
  ctx: ServiceContext,
  rows: DashboardRow[],
  rels: Map<string, Record<string, Relationship>>,
  include: Set<string>,
): Promise<ResourceObject[]> {
  const org = ctx.principal.organizationId;
  const tiles = new Map(rows.flatMap((d) => d.layout.map((t) => [t.id, t] as const)));
  /** Ids, as a json array, of the snippets an owner of this type uses. */
  const snippetsOf = (ownerType: string, ownerId: unknown) =>
    sql<unknown>`coalesce((select json_agg(u.sql_snippet_id order by u.sql_snippet_id) from sql_snippet_uses u
      where u.owner_type = ${ownerType} and u.owner_id = ${ownerId} and u.organization_id = ${org}), '[]'::json)`;

  const loaders: Record<string, Loader> = {
    reports: async (ids) => {
      const rs = await ctx.db.select({
        row: reports,
        filterIds: sql<unknown>`coalesce((select json_agg(rf.filter_id order by rf.filter_id) from report_filters rf
          where rf.report_id = ${reports.id} and rf.organization_id = ${org}), '[]'::json)`,
        snippetIds: snippetsOf('report', reports.id),
      }).from(reports).where(and(eq(reports.organization_id, org), inArray(reports.id, ids)));
      return inOrder(ids, rs).map((r) => serializeReport(ctx.baseUrl, r.row, tiles.get(r.row.id), {
        filters: jsonIds(r.filterIds), sql_snippets: jsonIds(r.snippetIds),
      }));
    },
    filters: async (ids) => {
      const fs = await ctx.db.select({ row: filters, snippetIds: snippetsOf('filter', filters.id) }).from(filters)
        .where(and(eq(filters.organization_id, org), inArray(filters.id, ids)));
      return inOrder(ids, fs).map((f) => serializeFilter(ctx.baseUrl, f.row, jsonIds(f.snippetIds), {
        exposeManualValues: ctx.principal.kind === 'user',
      }));
    },
    sql_snippets: async (ids) => {
      const ss = await ctx.db.select({ row: sqlSnippets, snippetIds: snippetsOf('sql_snippet', sqlSnippets.id) }).from(sqlSnippets)
        .where(and(eq(sqlSnippets.organization_id, org), inArray(sqlSnippets.id, ids)));
      return inOrder(ids, ss).map((x) => serializeSnippet(ctx.baseUrl, x.row, jsonIds(x.snippetIds)));
    },
    dashboard_groups: async (ids) => {
      // Members are listed only when the caller may see them (private dashboards of others stay hidden).
      const gs = await ctx.db.select({
        row: dashboardGroups,
        dashboardIds: sql<unknown>`coalesce((select json_agg(m.dashboard_id order by m.position, m.dashboard_id)
          from dashboard_group_members m join dashboards on dashboards.id = m.dashboard_id
          where m.dashboard_group_id = dashboard_groups.id and m.organization_id = ${org}
            and ${visibleDashboards(ctx.principal)}), '[]'::json)`,
      }).from(dashboardGroups).where(and(eq(dashboardGroups.organization_id, org), inArray(dashboardGroups.id, ids)));
      return inOrder(ids, gs).map((g) => serializeDashboardGroup(ctx.baseUrl, g.row, jsonIds(g.dashboardIds)));
    },
    dashboard_sharing_links: async (ids) => {
      const ls = await ctx.db.select({ row: dashboardSharingLinks }).from(dashboardSharingLinks)
        .where(and(eq(dashboardSharingLinks.organization_id, org), inArray(dashboardSharingLinks.id, ids)));
      return inOrder(ids, ls).map((l) => serializeSharingLink(ctx.baseUrl, l.row));
    },
    user: async (ids) => {
      const us = await ctx.db.select({ row: users }).from(users).where(and(eq(users.organization_id, org), inArray(users.id, ids)));
      const showOtp = can(ctx.principal, 'manage_users');
      return inOrder(ids, us).map((u) => serializeUser(ctx.baseUrl, u.row, { showOtp }));
    },
    user_groups: async (ids) => {
      const gs = await ctx.db.select({ row: userGroups }).from(userGroups)
        .where(and(eq(userGroups.organization_id, org), inArray(userGroups.id, ids)));
      return inOrder(ids, gs).map((g) => serializeUserGroup(ctx.baseUrl, g.row));
    },
  };

  const lists = await Promise.all(
    [...include].map((name) => {
      const ids = linkedIds(rels, name);
      return ids.length ? loaders[name]!(ids) : Promise.resolve([]);
    }),
  );
  return lists.flat();
}

/** Every id a relationship names across the page, first appearance first. */
function linkedIds(rels: Map<string, Record<string, Relationship>>, name: string): string[] {
  const s = new Set<string>();
  for (const r of rels.values()) {
    const data = r[name]?.data;
    if (Array.isArray(data)) data.forEach((x) => s.add(x.id));
    else if (data) s.add(data.id);
  }
  return [...s];
}

/** Rows in the order of `ids` (the order of the relationship linkage). */
function inOrder<T extends { row: { id: string } }>(ids: string[], rows: T[]): T[] {
  const pos = new Map(ids.map((id, i) => [id, i]));
  return [...rows].sort((a, b) => pos.get(a.row.id)! - pos.get(b.row.id)!);
}

/** A json array of ids, whether the driver parsed it or not. */
function jsonIds(v: unknown): string[] {
  const arr = typeof v === 'string' ? JSON.parse(v) : v;
  return Array.isArray(arr) ? arr.map(String) : [];
}
