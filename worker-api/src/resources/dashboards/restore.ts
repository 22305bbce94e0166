import { and, asc, eq, inArray } from 'drizzle-orm';
import { ApiError, newId } from '@cairn/core';
import { dashboardFilters, dashboards, datasources, filters, reportFilters, reports, sqlSnippets, sqlSnippetUses } from '@cairn/db';
import type { ServiceContext, Tx } from '../../lib/context.ts';
import { requirePermissionOn } from '../../auth/principal.ts';
import { withTransaction } from '../../lib/transaction.ts';
import { findDashboard, getDashboard } from './service.ts';
import { requireDashboardCreation } from './checks.ts';
import { buildBackup } from './backup.ts';
import { checkBackupIntegrity, type BackupFilter, type BackupSnippet, type DashboardBackup } from './backup-format.ts';

/** Backup ids → the ids of this organization's filters and snippets the new dashboard uses. */
interface Mapping {
  filters: Map<string, string>;
  snippets: Map<string, string>;
}

/** Inserts in slices, so a large dashboard stays under the statement parameter limit. */
async function insertAll<T>(rows: T[], insert: (slice: T[]) => Promise<unknown>, size = 500) {
  for (let i = 0; i < rows.length; i += size) await insert(rows.slice(i, i + size));
}

type Use = { organization_id: string; owner_type: 'dashboard' | 'report' | 'filter' | 'sql_snippet'; owner_id: string; sql_snippet_id: string };

function uses(org: string, ownerType: Use['owner_type'], ownerId: string, snippetIds: string[], map: Mapping): Use[] {
  return [...new Set(snippetIds.map((s) => map.snippets.get(s)!))].map((s) => ({
    organization_id: org,
    owner_type: ownerType,
    owner_id: ownerId,
    sql_snippet_id: s,
  }));
}

/**
 * Creates the dashboard of a backup, with new ids for it and its reports, linked to the mapped filters
 * and snippets. New dashboards start private (share_mode none), owned by the calling user.
 */
async function materialize(ctx: ServiceContext, tx: Tx, b: DashboardBackup, map: Mapping, id: string, overrides: { name?: string; is_locked?: boolean }) {
  const org = ctx.principal.organizationId;
  const reportIds = new Map(b.reports.map((r) => [r.id, newId('report')]));
  const { layout, floating_enabled, filter_ids, sql_snippet_ids, ...attributes } = b.dashboard;
  await tx.insert(dashboards).values({
    ...attributes,
    ...overrides,
    id,
    organization_id: org,
    user_id: ctx.principal.kind === 'user' ? ctx.principal.userId : null,
    layout: layout.map((t) => ({ ...t, id: reportIds.get(t.id)! })),
    floating_enabled,
  });
  // Creation times a millisecond apart keep the reports in the backup's order (reports list by creation).
  const start = Date.now();
  await insertAll(
    b.reports.map(({ id: old, filter_ids: _f, sql_snippet_ids: _s, ...r }, i) => ({
      ...r,
      id: reportIds.get(old)!,
      organization_id: org,
      dashboard_id: id,
      created_at: new Date(start + i),
      updated_at: new Date(start + i),
    })),
    (rows) => tx.insert(reports).values(rows),
  );
  await insertAll(
    b.reports.flatMap((r) =>
      [...new Set(r.filter_ids.map((f) => map.filters.get(f)!))].map((f) => ({
        organization_id: org,
        report_id: reportIds.get(r.id)!,
        filter_id: f,
      })),
    ),
    (rows) => tx.insert(reportFilters).values(rows),
  );
  await insertAll(
    [...new Set(filter_ids.map((f) => map.filters.get(f)!))].map((f, i) => ({
      organization_id: org,
      dashboard_id: id,
      filter_id: f,
      position: i,
    })),
    (rows) => tx.insert(dashboardFilters).values(rows),
  );
  await insertAll(
    [...uses(org, 'dashboard', id, sql_snippet_ids, map), ...b.reports.flatMap((r) => uses(org, 'report', reportIds.get(r.id)!, r.sql_snippet_ids, map))],
    (rows) => tx.insert(sqlSnippetUses).values(rows),
  );
}

/** "<name> (copy)", kept within the 200 characters a name may have. */
const copyName = (name: string) => `${name.slice(0, 200 - ' (copy)'.length)} (copy)`;

/**
 * POST /dashboards/{id}/duplicate: a new dashboard with copies of the reports (new ids, same
 * datasources), the same filters and snippets, and the layout pointing at the new reports. The copy is
 * unlocked, private and owned by the caller; sharing links, schedules and group memberships stay with
 * the original.
 */
export async function duplicateDashboard(ctx: ServiceContext, sourceId: string) {
  await requirePermissionOn(ctx.principal, 'view_dashboards', { type: 'dashboards', id: sourceId }, () => findDashboard(ctx, sourceId));
  const source = await findDashboard(ctx, sourceId);
  const id = newId('dashboard');
  requireDashboardCreation(ctx);
  const b = await buildBackup(ctx, source);
  const map: Mapping = {
    filters: new Map(b.filters.map((f) => [f.id, f.id])),
    snippets: new Map(b.sql_snippets.map((s) => [s.id, s.id])),
  };
  await withTransaction(ctx, async ({ tx, audit }) => {
    await materialize(ctx, tx, b, map, id, { name: copyName(source.name), is_locked: false });
    await audit('create', 'dashboards', id, { duplicate_of: sourceId, reports: b.reports.length });
  });
  return getDashboard({ ctx, id, include: new Set() });
}

/** Every datasource a backup names must exist in this organization; all missing ones are named at once. */
async function checkDatasources(ctx: ServiceContext, b: DashboardBackup) {
  if (!b.datasources.length) return;
  const found = await ctx.db
    .select({ id: datasources.id })
    .from(datasources)
    .where(
      and(
        eq(datasources.organization_id, ctx.principal.organizationId),
        inArray(
          datasources.id,
          b.datasources.map((d) => d.id),
        ),
      ),
    );
  const have = new Set(found.map((d) => d.id));
  const missing = b.datasources.map((d, i) => ({ d, i })).filter(({ d }) => !have.has(d.id));
  if (!missing.length) return;
  const names = missing.map(({ d }) => `"${d.id}" (${d.name})`).join(', ');
  const [first, ...more] = missing.map(
    ({ d, i }) =>
      new ApiError(
        'invalid_attribute',
        `Datasource "${d.id}" (${d.name}, ${d.database_type}) does not exist in this organization. Missing: ${names}. Create them or change the ids in the backup to datasources of this organization.`,
        { source: { pointer: `/datasources/${i}/id` } },
      ),
  );
  throw new ApiError(first!.code, first!.message, { source: first!.source, more });
}

/** Snippets are reused by name when the organization has one of that name; the others are created. */
async function mapSnippets(ctx: ServiceContext, list: BackupSnippet[]) {
  const map = new Map<string, string>();
  const created: BackupSnippet[] = [];
  if (!list.length) return { map, created };
  const existing = await ctx.db
    .select({ id: sqlSnippets.id, name: sqlSnippets.name })
    .from(sqlSnippets)
    .where(and(eq(sqlSnippets.organization_id, ctx.principal.organizationId), inArray(sqlSnippets.name, [...new Set(list.map((s) => s.name))])))
    .orderBy(asc(sqlSnippets.created_at), asc(sqlSnippets.id));
  const byName = new Map<string, string>();
  for (const e of existing) if (!byName.has(e.name)) byName.set(e.name, e.id);
  for (const s of list) {
    const found = byName.get(s.name);
    if (found) map.set(s.id, found);
    else {
      map.set(s.id, newId('sql_snippet'));
      created.push(s);
    }
  }
  return { map, created };
}

/** Filters are reused when the organization has one with the same variable name, control and value type. */
async function mapFilters(ctx: ServiceContext, list: BackupFilter[]) {
  const map = new Map<string, string>();
  const created: BackupFilter[] = [];
  if (!list.length) return { map, created };
  const existing = await ctx.db
    .select({ id: filters.id, v: filters.variable_name, c: filters.control_type, t: filters.value_type })
    .from(filters)
    .where(and(eq(filters.organization_id, ctx.principal.organizationId), inArray(filters.variable_name, [...new Set(list.map((f) => f.variable_name))])))
    .orderBy(asc(filters.created_at), asc(filters.id));
  const key = (v: string, c: string, t: string) => `${v}\u0000${c}\u0000${t}`;
  const byKey = new Map<string, string>();
  for (const e of existing) if (!byKey.has(key(e.v, e.c, e.t))) byKey.set(key(e.v, e.c, e.t), e.id);
  for (const f of list) {
    const found = byKey.get(key(f.variable_name, f.control_type, f.value_type));
    if (found) map.set(f.id, found);
    else {
      map.set(f.id, newId('filter'));
      created.push(f);
    }
  }
  return { map, created };
}

/**
 * POST /dashboards/restore: creates a new dashboard from a backup (new ids throughout). Datasources
 * are matched by id and must exist in this organization; snippets are reused by name or created;
 * filters are reused by variable name, control type and value type, or created.
 */
export async function restoreDashboard(ctx: ServiceContext, b: DashboardBackup) {
  const id = newId('dashboard');
  requireDashboardCreation(ctx);
  checkBackupIntegrity(b);
  await checkDatasources(ctx, b);
  const [snip, filt] = await Promise.all([mapSnippets(ctx, b.sql_snippets), mapFilters(ctx, b.filters)]);
  const map: Mapping = { filters: filt.map, snippets: snip.map };
  const org = ctx.principal.organizationId;
  await withTransaction(ctx, async ({ tx, audit }) => {
    await insertAll(
      snip.created.map(({ id: old, sql_snippet_ids: _u, ...s }) => ({ ...s, id: map.snippets.get(old)!, organization_id: org })),
      (rows) => tx.insert(sqlSnippets).values(rows),
    );
    await insertAll(
      filt.created.map(({ id: old, sql_snippet_ids: _u, parent_filter_id, ...f }) => ({
        ...f,
        id: map.filters.get(old)!,
        organization_id: org,
        parent_filter_id: parent_filter_id ? map.filters.get(parent_filter_id)! : null,
      })),
      (rows) => tx.insert(filters).values(rows),
    );
    await insertAll(
      [
        ...snip.created.flatMap((s) => uses(org, 'sql_snippet', map.snippets.get(s.id)!, s.sql_snippet_ids, map)),
        ...filt.created.flatMap((f) => uses(org, 'filter', map.filters.get(f.id)!, f.sql_snippet_ids, map)),
      ],
      (rows) => tx.insert(sqlSnippetUses).values(rows),
    );
    await materialize(ctx, tx, b, map, id, {});
    await audit('restore', 'dashboards', id, {
      source_dashboard_id: b.source.dashboard_id,
      reports: b.reports.length,
      sql_snippets_created: snip.created.map((s) => map.snippets.get(s.id)),
      sql_snippets_reused: b.sql_snippets.filter((s) => !snip.created.includes(s)).map((s) => map.snippets.get(s.id)),
      filters_created: filt.created.map((f) => map.filters.get(f.id)),
      filters_reused: b.filters.filter((f) => !filt.created.includes(f)).map((f) => map.filters.get(f.id)),
    });
  });
  return getDashboard({ ctx, id, include: new Set() });
}
