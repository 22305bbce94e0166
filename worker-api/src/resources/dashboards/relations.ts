import { and, eq, inArray, sql, type SQL } from 'drizzle-orm';
import { dashboardGroups, dashboardSharingLinks, filters, reports, sqlSnippets, users, userGroups } from '@cairn/db';
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

export const DASHBOARD_INCLUDES = ['reports', 'filters', 'sql_snippets', 'dashboard_groups', 'dashboard_sharing_links', 'user', 'user_groups'] as const;

type DashboardRow = typeof dashboards.$inferSelect;

/**
 * Relationship linkage for a page of dashboards, in a fixed number of queries whatever the page size.
 * Relationships the caller may not see (sharing links without Manage Dashboards; user and user groups
 * without View Users, Manage Users or Manage Dashboards) are left out entirely, not shown empty.
 */
export async function dashboardRelationships(ctx: ServiceContext, rows: DashboardRow[]) {
  return composeRelationships(
    ctx,
    rows,
    await fetchLinkage(
      ctx,
      rows.map((d) => d.id),
    ),
  );
}

type Linkage = { rel: string; d: string; id: string }[];

/** The linkage rows of these dashboards: one statement whatever the number of dashboards. */
export async function fetchLinkage(ctx: ServiceContext, ids: string[]): Promise<Linkage> {
  if (!ids.length) return [];
  const org = ctx.principal.organizationId;
  const seeLinks = can(ctx.principal, 'manage_dashboards');
  const seeUsers = canAny(ctx.principal, ['view_users', 'manage_users', 'manage_dashboards']);
  // All linkage in one round trip: the pieces are unioned and ordered (reports by creation, filters
  // by their position on the dashboard).
  const inIds = sql.join(
    ids.map((id) => sql`${id}`),
    sql`, `,
  );
  const personalOk =
    ctx.principal.kind === 'user' ? sql`(g.personal_user_id is null or g.personal_user_id = ${ctx.principal.userId})` : sql`g.personal_user_id is null`;
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
  return (await ctx.db.execute(sql`select rel, d, id from (${sql.join(parts, sql` union all `)}) x order by rel, pos, t nulls last, id`)) as unknown as Linkage;
}

/** Relationship objects from linkage rows (see dashboardRelationships). */
export function composeRelationships(ctx: ServiceContext, rows: DashboardRow[], linkage: Linkage) {
  const out = new Map<string, Record<string, Relationship>>();
  const seeLinks = can(ctx.principal, 'manage_dashboards');
  const seeUsers = canAny(ctx.principal, ['view_users', 'manage_users', 'manage_dashboards']);
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

/** Which ids to load: a list, or (for one dashboard) a subquery, so loading need not wait for the linkage. */
type IdSource = string[] | SQL;
interface Loader {
  fetch: (ids: IdSource) => Promise<{ row: { id: string } }[]>;
  serialize: (rows: any[]) => ResourceObject[];
}

function loadersFor(ctx: ServiceContext, rows: DashboardRow[]): Record<string, Loader> {
  const org = ctx.principal.organizationId;
  const tiles = new Map(rows.flatMap((d) => d.layout.map((t) => [t.id, t] as const)));
  /** Ids, as a json array, of the snippets an owner of this type uses. */
  const snippetsOf = (ownerType: string, ownerId: unknown) =>
    sql<unknown>`coalesce((select json_agg(u.sql_snippet_id order by u.sql_snippet_id) from sql_snippet_uses u
      where u.owner_type = ${ownerType} and u.owner_id = ${ownerId} and u.organization_id = ${org}), '[]'::json)`;
  const showOtp = can(ctx.principal, 'manage_users');
  return {
    reports: {
      fetch: (ids) =>
        ctx.db
          .select({
            row: reports,
            filterIds: sql<unknown>`coalesce((select json_agg(rf.filter_id order by rf.filter_id) from report_filters rf
          where rf.report_id = ${reports.id} and rf.organization_id = ${org}), '[]'::json)`,
            snippetIds: snippetsOf('report', reports.id),
          })
          .from(reports)
          .where(and(eq(reports.organization_id, org), inArray(reports.id, ids))),
      serialize: (rs) =>
        rs.map((r) =>
          serializeReport(ctx.baseUrl, r.row, tiles.get(r.row.id), {
            filters: jsonIds(r.filterIds),
            sql_snippets: jsonIds(r.snippetIds),
          }),
        ),
    },
    filters: {
      fetch: (ids) =>
        ctx.db
          .select({ row: filters, snippetIds: snippetsOf('filter', filters.id) })
          .from(filters)
          .where(and(eq(filters.organization_id, org), inArray(filters.id, ids))),
      serialize: (fs) =>
        fs.map((f) =>
          serializeFilter(ctx.baseUrl, f.row, jsonIds(f.snippetIds), {
            exposeManualValues: ctx.principal.kind === 'user',
          }),
        ),
    },
    sql_snippets: {
      fetch: (ids) =>
        ctx.db
          .select({ row: sqlSnippets, snippetIds: snippetsOf('sql_snippet', sqlSnippets.id) })
          .from(sqlSnippets)
          .where(and(eq(sqlSnippets.organization_id, org), inArray(sqlSnippets.id, ids))),
      serialize: (ss) => ss.map((x) => serializeSnippet(ctx.baseUrl, x.row, jsonIds(x.snippetIds))),
    },
    dashboard_groups: {
      // Members are listed only when the caller may see them (private dashboards of others stay hidden).
      fetch: (ids) =>
        ctx.db
          .select({
            row: dashboardGroups,
            dashboardIds: sql<unknown>`coalesce((select json_agg(m.dashboard_id order by m.position, m.dashboard_id)
          from dashboard_group_members m join dashboards on dashboards.id = m.dashboard_id
          where m.dashboard_group_id = dashboard_groups.id and m.organization_id = ${org}
            and ${visibleDashboards(ctx.principal)}), '[]'::json)`,
          })
          .from(dashboardGroups)
          .where(and(eq(dashboardGroups.organization_id, org), inArray(dashboardGroups.id, ids))),
      serialize: (gs) => gs.map((g) => serializeDashboardGroup(ctx.baseUrl, g.row, jsonIds(g.dashboardIds))),
    },
    dashboard_sharing_links: {
      fetch: (ids) =>
        ctx.db
          .select({ row: dashboardSharingLinks })
          .from(dashboardSharingLinks)
          .where(and(eq(dashboardSharingLinks.organization_id, org), inArray(dashboardSharingLinks.id, ids))),
      serialize: (ls) => ls.map((l) => serializeSharingLink(ctx.baseUrl, l.row)),
    },
    user: {
      fetch: (ids) =>
        ctx.db
          .select({ row: users })
          .from(users)
          .where(and(eq(users.organization_id, org), inArray(users.id, ids))),
      serialize: (us) => us.map((u) => serializeUser(ctx.baseUrl, u.row, { showOtp })),
    },
    user_groups: {
      fetch: (ids) =>
        ctx.db
          .select({ row: userGroups })
          .from(userGroups)
          .where(and(eq(userGroups.organization_id, org), inArray(userGroups.id, ids))),
      serialize: (gs) => gs.map((g) => serializeUserGroup(ctx.baseUrl, g.row)),
    },
  };
}

/** Rows that the linkage names, in its order (anything else a subquery found is dropped). */
function ordered<T extends { row: { id: string } }>(ids: string[], rows: T[]): T[] {
  const pos = new Map(ids.map((id, i) => [id, i]));
  return rows.filter((r) => pos.has(r.row.id)).sort((a, b) => pos.get(a.row.id)! - pos.get(b.row.id)!);
}

/** The `included` array for the requested names: each resource once, one query per name. */
export async function dashboardIncluded(
  ctx: ServiceContext,
  rows: DashboardRow[],
  rels: Map<string, Record<string, Relationship>>,
  include: Set<string>,
): Promise<ResourceObject[]> {
  const loaders = loadersFor(ctx, rows);
  const lists = await Promise.all(
    [...include].map(async (name) => {
      const ids = linkedIds(rels, name);
      return ids.length ? loaders[name]!.serialize(ordered(ids, await loaders[name]!.fetch(ids))) : [];
    }),
  );
  return lists.flat();
}

/**
 * For one dashboard: starts loading every requested include at once, by subqueries on the dashboard's
 * id, so these statements travel together with the dashboard's own (lib/db.ts batches statements that
 * are issued together). `finish` orders and filters them by the linkage once it is known.
 */
export function startDashboardIncluded(ctx: ServiceContext, id: string, include: Set<string>) {
  const org = ctx.principal.organizationId;
  const personalOk =
    ctx.principal.kind === 'user' ? sql`(g.personal_user_id is null or g.personal_user_id = ${ctx.principal.userId})` : sql`g.personal_user_id is null`;
  const sub: Record<string, SQL> = {
    reports: sql`(select id from reports where dashboard_id = ${id} and organization_id = ${org})`,
    filters: sql`(select filter_id from dashboard_filters where dashboard_id = ${id} and organization_id = ${org})`,
    sql_snippets: sql`(select sql_snippet_id from sql_snippet_uses where owner_type = 'dashboard' and owner_id = ${id} and organization_id = ${org})`,
    dashboard_groups: sql`(select m.dashboard_group_id from dashboard_group_members m join dashboard_groups g on g.id = m.dashboard_group_id
      where m.dashboard_id = ${id} and m.organization_id = ${org} and ${personalOk})`,
    dashboard_sharing_links: sql`(select id from dashboard_sharing_links where dashboard_id = ${id} and organization_id = ${org})`,
    user: sql`(select user_id from dashboards where id = ${id} and organization_id = ${org})`,
    user_groups: sql`(select user_group_id from dashboard_user_groups where dashboard_id = ${id} and organization_id = ${org})`,
  };
  // Loaders need the dashboard row only to serialize (report tiles); fetching needs just the id.
  const base = loadersFor(ctx, []);
  const raw = new Map(
    [...include].map((name) => {
      const p = base[name]!.fetch(sub[name]!);
      p.catch(() => {}); // awaited below; a 404 on the dashboard may leave it unawaited
      return [name, p] as const;
    }),
  );
  return async (row: DashboardRow, rels: Record<string, Relationship>): Promise<ResourceObject[]> => {
    const loaders = loadersFor(ctx, [row]);
    const one = new Map([[row.id, rels]]);
    const lists = await Promise.all(
      [...raw].map(async ([name, p]) => {
        const rows = await p;
        const ids = linkedIds(one, name);
        return ids.length ? loaders[name]!.serialize(ordered(ids, rows)) : [];
      }),
    );
    return lists.flat();
  };
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

/** A json array of ids, whether the driver parsed it or not. */
function jsonIds(v: unknown): string[] {
  const arr = typeof v === 'string' ? JSON.parse(v) : v;
  return Array.isArray(arr) ? arr.map(String) : [];
}
