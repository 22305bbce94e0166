import { and, asc, eq, inArray } from 'drizzle-orm';
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
  const [reportRows, filterRows, snippetRows, groupRows, linkRows, ugRows] = await Promise.all([
    ctx.db.select({ id: reports.id, d: reports.dashboard_id }).from(reports)
      .where(and(eq(reports.organization_id, org), inArray(reports.dashboard_id, ids))).orderBy(asc(reports.created_at), asc(reports.id)),
    ctx.db.select({ id: dashboardFilters.filter_id, d: dashboardFilters.dashboard_id }).from(dashboardFilters)
      .where(and(eq(dashboardFilters.organization_id, org), inArray(dashboardFilters.dashboard_id, ids)))
      .orderBy(asc(dashboardFilters.position)),
    ctx.db.select({ id: sqlSnippetUses.sql_snippet_id, d: sqlSnippetUses.owner_id }).from(sqlSnippetUses)
      .where(and(eq(sqlSnippetUses.organization_id, org), eq(sqlSnippetUses.owner_type, 'dashboard'), inArray(sqlSnippetUses.owner_id, ids))),
    // Keys never see personal dashboard groups.
    ctx.db.select({ id: dashboardGroupMembers.dashboard_group_id, d: dashboardGroupMembers.dashboard_id, personal: dashboardGroups.personal_user_id })
      .from(dashboardGroupMembers).innerJoin(dashboardGroups, eq(dashboardGroups.id, dashboardGroupMembers.dashboard_group_id))
      .where(and(eq(dashboardGroupMembers.organization_id, org), inArray(dashboardGroupMembers.dashboard_id, ids))),
    seeLinks
      ? ctx.db.select({ id: dashboardSharingLinks.id, d: dashboardSharingLinks.dashboard_id }).from(dashboardSharingLinks)
          .where(and(eq(dashboardSharingLinks.organization_id, org), inArray(dashboardSharingLinks.dashboard_id, ids)))
      : Promise.resolve([]),
    seeUsers
      ? ctx.db.select({ id: dashboardUserGroups.user_group_id, d: dashboardUserGroups.dashboard_id }).from(dashboardUserGroups)
          .where(and(eq(dashboardUserGroups.organization_id, org), inArray(dashboardUserGroups.dashboard_id, ids)))
      : Promise.resolve([]),
  ]);
  const visibleGroups = groupRows.filter((g) =>
    g.personal === null || (ctx.principal.kind === 'user' && g.personal === ctx.principal.userId));
  const by = {
    reports: group(reportRows, (r) => r.d, (r) => r.id),
    filters: group(filterRows, (r) => r.d, (r) => r.id),
    sql_snippets: group(snippetRows, (r) => r.d, (r) => r.id),
    dashboard_groups: group(visibleGroups, (r) => r.d, (r) => r.id),
    dashboard_sharing_links: group(linkRows, (r) => r.d, (r) => r.id),
    user_groups: group(ugRows, (r) => r.d, (r) => r.id),
  };
  for (const d of rows) {
    const rel: Record<string, Relationship> = {
      reports: toMany('reports', by.reports.get(d.id) ?? []),
      filters: toMany('filters', by.filters.get(d.id) ?? []),
      sql_snippets: toMany('sql_snippets', by.sql_snippets.get(d.id) ?? []),
      dashboard_groups: toMany('dashboard_groups', by.dashboard_groups.get(d.id) ?? []),
    };
    if (seeLinks) rel.dashboard_sharing_links = toMany('dashboard_sharing_links', by.dashboard_sharing_links.get(d.id) ?? []);
    if (seeUsers) {
      rel.user = toOne('users', d.user_id);
      rel.user_groups = toMany('user_groups', by.user_groups.get(d.id) ?? []);
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
      const [rs, rf, rsn] = await Promise.all([
        ctx.db.select().from(reports).where(and(eq(reports.organization_id, org), inArray(reports.id, ids))),
        ctx.db.select().from(reportFilters).where(and(eq(reportFilters.organization_id, org), inArray(reportFilters.report_id, ids))),
        ctx.db.select().from(sqlSnippetUses).where(and(eq(sqlSnippetUses.organization_id, org), eq(sqlSnippetUses.owner_type, 'report'), inArray(sqlSnippetUses.owner_id, ids))),
      ]);
      const f = group(rf, (x) => x.report_id, (x) => x.filter_id);
      const s = group(rsn, (x) => x.owner_id, (x) => x.sql_snippet_id);
      const order = new Map(ids.map((id, i) => [id, i]));
      rs.sort((a, b) => order.get(a.id)! - order.get(b.id)!);
      for (const r of rs) out.push(serializeReport(ctx.baseUrl, r, tiles.get(r.id), { filters: f.get(r.id) ?? [], sql_snippets: s.get(r.id) ?? [] }));
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
      const gs = await ctx.db.select().from(dashboardGroups).where(and(eq(dashboardGroups.organization_id, org), inArray(dashboardGroups.id, ids)));
      const members = await ctx.db.select().from(dashboardGroupMembers).where(and(eq(dashboardGroupMembers.organization_id, org), inArray(dashboardGroupMembers.dashboard_group_id, ids)));
      const m = group(members, (x) => x.dashboard_group_id, (x) => x.dashboard_id);
      for (const g of gs) {
        out.push({
          type: 'dashboard_groups', id: g.id,
          attributes: { name: g.name, description: g.description, created_at: g.created_at.toISOString(), updated_at: g.updated_at.toISOString() },
          relationships: { dashboards: toMany('dashboards', m.get(g.id) ?? []) },
          links: { self: `${ctx.baseUrl}/dashboard_groups/${g.id}` },
        });
      }
    })());
  }
  if (include.has('dashboard_sharing_links')) {
    tasks.push((async () => {
      const ids = idsOf('dashboard_sharing_links');
      if (!ids.length) return;
      const ls = await ctx.db.select().from(dashboardSharingLinks).where(and(eq(dashboardSharingLinks.organization_id, org), inArray(dashboardSharingLinks.id, ids)));
      for (const l of ls) {
        out.push({
          type: 'dashboard_sharing_links', id: l.id,
          attributes: {
            name: l.name, description: l.description, token: l.token, toolbar_enabled: l.toolbar_enabled,
            parameters_enabled: l.parameters_enabled, filter_bar_enabled: l.filter_bar_enabled, refresh_enabled: l.refresh_enabled,
            data_download_enabled: l.data_download_enabled, unlimited_csv_export_enabled: l.unlimited_csv_export_enabled,
            sharing_secret_required: l.sharing_secret_required, color_mode: l.color_mode, ip_whitelist: l.ip_whitelist,
            created_at: l.created_at.toISOString(), updated_at: l.updated_at.toISOString(),
          },
          relationships: { dashboard: toOne('dashboards', l.dashboard_id) },
          links: { self: `${ctx.baseUrl}/dashboard_sharing_links/${l.id}` },
        });
      }
    })());
  }
  if (include.has('user')) {
    tasks.push((async () => {
      const ids = idsOf('user');
      if (!ids.length) return;
      const us = await ctx.db.select().from(users).where(and(eq(users.organization_id, org), inArray(users.id, ids)));
      for (const u of us) out.push(userResource(ctx, u));
    })());
  }
  if (include.has('user_groups')) {
    tasks.push((async () => {
      const ids = idsOf('user_groups');
      if (!ids.length) return;
      const gs = await ctx.db.select().from(userGroups).where(and(eq(userGroups.organization_id, org), inArray(userGroups.id, ids)));
      for (const g of gs) {
        out.push({
          type: 'user_groups', id: g.id,
          attributes: { name: g.name, description: g.description, built_in_behavior: g.built_in_behavior, created_at: g.created_at.toISOString(), updated_at: g.updated_at.toISOString() },
          links: { self: `${ctx.baseUrl}/user_groups/${g.id}` },
        });
      }
    })());
  }
  await Promise.all(tasks);
  return out;
}


function userResource(ctx: ServiceContext, u: typeof users.$inferSelect): ResourceObject {
  const attributes: Record<string, unknown> = {
    firstname: u.firstname, lastname: u.lastname, email: u.email, role: u.role,
    created_at: u.created_at.toISOString(),
    deactivated_at: u.deactivated_at?.toISOString() ?? null,
    invitation_created_at: u.invitation_created_at?.toISOString() ?? null,
    invitation_accepted_at: u.invitation_accepted_at?.toISOString() ?? null,
  };
  if (can(ctx.principal, 'manage_users')) {
    attributes.otp_app_enabled = u.otp_app_enabled;
    attributes.otp_phone_enabled = u.otp_phone_enabled;
  }
  return { type: 'users', id: u.id, attributes, links: { self: `${ctx.baseUrl}/users/${u.id}` } };
}
