import { and, asc, count, eq, inArray, sql } from 'drizzle-orm';
import { ApiError, newId, ORGANIZATION, type ResourceObject, type ResourceRef } from '@cairn/core';
import { dashboardFilters, filters, sqlSnippetUses, type Db } from '@cairn/db';
import type { ServiceContext } from '../../lib/context.ts';
import type { ResourceBody } from '../../lib/resource-body.ts';
import { requirePermission } from '../../auth/principal.ts';
import { changed } from '../../lib/audit.ts';
import { withTransaction } from '../../lib/transaction.ts';
import { offsetOf, type ListQuery } from '../../lib/jsonapi.ts';
import { listOrder, nameFilter, type ListSpec } from '../../lib/list.ts';
import { includedDatasources, requireDatasourceInclude, requireDatasourceUse } from '../../lib/datasource-use.ts';
import { linked, loadDashboards } from '../../lib/include.ts';
import { throwAll } from '../../lib/problems.ts';
import { analyzeSql, recordSnippetUses } from '../sql-snippets/references.ts';
import { loadSnippets } from '../sql-snippets/load.ts';
import {
  checkDashboardChanges,
  checkParent,
  checkVariableClash,
  findFilter,
  requireFilterWrite,
  filterDashboards,
  visibleFilters,
  visibleMemberships,
} from './access.ts';
import { loadFilters, serializeFilters } from './load.ts';
import type { filterBody } from './schema.ts';
import { planFilterWrite } from './validate.ts';

type Body = ResourceBody<typeof filterBody.attributes.shape>;
type Page = ListQuery;

/** filter[name] and sort of GET /filters (name is display_name, else variable_name). */
export const FILTER_LIST: ListSpec = {
  name: [filters.display_name, filters.variable_name],
  sorts: {
    name: sql`coalesce(${filters.display_name}, ${filters.variable_name})`,
    variable_name: filters.variable_name,
    created_at: filters.created_at,
    updated_at: filters.updated_at,
  },
  order: [asc(filters.created_at)],
  id: filters.id,
};
type FilterRow = typeof filters.$inferSelect;
type Tx = Pick<Db, 'execute' | 'select' | 'insert' | 'delete'>;

async function included(ctx: ServiceContext, data: ResourceObject[], include: Set<string>) {
  const parts = await Promise.all([
    include.has('datasource') ? includedDatasources(ctx, linked(data, 'datasource')) : [],
    include.has('sql_snippets') ? loadSnippets(ctx, linked(data, 'sql_snippets')) : [],
    include.has('parent_filter') ? loadFilters(ctx, linked(data, 'parent_filter')) : [],
    include.has('dashboards') ? loadDashboards(ctx, linked(data, 'dashboards')) : [],
  ]);
  const own = new Set(data.map((d) => d.id));
  // A parent that is itself in `data` is not repeated in `included`.
  return parts.flat().filter((r) => !(r.type === 'filters' && own.has(r.id)));
}

export async function listFilters({ ctx, page, include }: { ctx: ServiceContext; page: Page; include: Set<string> }) {
  requirePermission(ctx.principal, 'view_dashboards');
  requireDatasourceInclude(ctx, include);
  const where = and(visibleFilters(ctx.principal), nameFilter(FILTER_LIST, page));
  const [rows, [total]] = await Promise.all([
    ctx.db
      .select()
      .from(filters)
      .where(where)
      .orderBy(...listOrder(FILTER_LIST, page))
      .limit(page.size)
      .offset(offsetOf(page)),
    ctx.db.select({ n: count() }).from(filters).where(where),
  ]);
  const data = await serializeFilters(ctx, rows);
  return { data, included: include.size ? await included(ctx, data, include) : [], total: total?.n ?? 0 };
}

export async function getFilter({ ctx, id, include }: { ctx: ServiceContext; id: string; include: Set<string> }) {
  requirePermission(ctx.principal, 'view_dashboards');
  requireDatasourceInclude(ctx, include);
  const row = await findFilter(ctx, id);
  const [data] = await serializeFilters(ctx, [row]);
  return { data: data!, included: include.size ? await included(ctx, [data!], include) : [] };
}

function refuseSnippetRelationship(body: Body) {
  if (body.relationships.sql_snippets !== undefined) {
    throw new ApiError('read_only_attribute', 'The sql_snippets relationship is read-only: it lists the snippets the sql_query uses.', {
      source: { pointer: '/data/relationships/sql_snippets' },
    });
  }
}

/**
 * Datasource access for SQL-driven filters: the new datasource, or the current one when the SQL changes,
 * checked together with the dashboards the filter is on (`owners`).
 */
async function checkDatasource(ctx: ServiceContext, body: Body, set: Record<string, unknown>, current: FilterRow | null, owners: ResourceRef[]) {
  const given = body.relationships.datasource;
  const sqlQuery = (set.sql_query !== undefined ? set.sql_query : current?.sql_query) as string | null | undefined;
  if (typeof given === 'string') {
    await requireDatasourceUse(ctx, given, '/data/relationships/datasource/data/id', { requireEnabled: !!sqlQuery?.trim(), owners });
  } else if (body.attributes.sql_query && current?.datasource_id) {
    requirePermission(ctx.principal, 'manage_dashboards', [...owners, { type: 'datasources', id: current.datasource_id }]);
  }
}

async function recordFilterSql(tx: Tx, org: string, id: string, sqlQuery: string | null) {
  const ids = sqlQuery ? (await analyzeSql(tx as Db, org, sqlQuery)).snippetIds : [];
  await recordSnippetUses(tx, org, 'filter', id, ids);
}

async function putOnDashboards(tx: Tx, org: string, filterId: string, added: string[], removed: string[]) {
  if (removed.length) {
    await tx.delete(dashboardFilters).where(and(eq(dashboardFilters.filter_id, filterId), inArray(dashboardFilters.dashboard_id, removed)));
  }
  // New members go to the end of each dashboard's filter bar; the order there belongs to the dashboard.
  for (const d of added) {
    await tx.insert(dashboardFilters).values({
      organization_id: org,
      dashboard_id: d,
      filter_id: filterId,
      position: sql`(select coalesce(max(position) + 1, 0) from dashboard_filters where dashboard_id = ${d})`,
    });
  }
}

export async function createFilter({ ctx, input: body }: { ctx: ServiceContext; input: Body }) {
  requirePermission(ctx.principal, 'manage_dashboards');
  refuseSnippetRelationship(body);
  const { set, problems } = planFilterWrite(null, body.attributes, body.relationships);
  throwAll(problems);
  const parent = body.relationships.parent_filter as string | null | undefined;
  if (parent) await checkParent(ctx, null, parent);
  const wanted = (body.relationships.dashboards as string[] | undefined) ?? [];
  // A filter on no dashboard is an organization-wide definition.
  if (!wanted.length) requirePermission(ctx.principal, 'manage_dashboards', ORGANIZATION);
  await checkDatasource(
    ctx,
    body,
    set,
    null,
    wanted.map((id) => ({ type: 'dashboards' as const, id })),
  );
  const { added } = await checkDashboardChanges(ctx, { filterId: null, variableName: body.attributes.variable_name!, wanted, current: [] });
  const id = newId('filter');
  const org = ctx.principal.organizationId;
  await withTransaction(ctx, async ({ tx, audit }) => {
    await tx.insert(filters).values({
      ...(set as Partial<FilterRow>),
      id,
      organization_id: org,
      variable_name: body.attributes.variable_name!,
      control_type: body.attributes.control_type!,
      value_type: body.attributes.value_type!,
      datasource_id: (body.relationships.datasource as string | null | undefined) ?? null,
      parent_filter_id: parent ?? null,
    });
    await putOnDashboards(tx, org, id, added, []);
    if (set.sql_query) await recordFilterSql(tx, org, id, set.sql_query as string);
    await audit('create', 'filters', id, changed(body.attributes, body.relationships));
  });
  return getFilter({ ctx, id, include: new Set() });
}

export async function updateFilter({ ctx, id, input: body }: { ctx: ServiceContext; id: string; input: Body }) {
  requirePermission(ctx.principal, 'manage_dashboards');
  const current = await findFilter(ctx, id);
  const memberships = await visibleMemberships(ctx, id);
  const owners = await filterDashboards(ctx, id);
  requireFilterWrite(ctx, owners);
  refuseSnippetRelationship(body);
  const { set, problems } = planFilterWrite(current, body.attributes, body.relationships);
  throwAll(problems);
  const parent = body.relationships.parent_filter;
  if (typeof parent === 'string') await checkParent(ctx, id, parent);
  await checkDatasource(ctx, body, set, current, owners);
  const variableName = body.attributes.variable_name ?? current.variable_name;
  const wanted = body.relationships.dashboards as string[] | undefined;
  const change = wanted ? await checkDashboardChanges(ctx, { filterId: id, variableName, wanted, current: memberships }) : null;
  if (body.attributes.variable_name !== undefined && body.attributes.variable_name !== current.variable_name) {
    const all = await ctx.db.select({ d: dashboardFilters.dashboard_id }).from(dashboardFilters).where(eq(dashboardFilters.filter_id, id));
    const kept = all.map((x) => x.d).filter((d) => !change?.removed.includes(d));
    await checkVariableClash(ctx, { filterId: id, variableName, dashboardIds: kept, pointer: '/data/attributes/variable_name' });
  }
  const org = ctx.principal.organizationId;
  const columns: Record<string, unknown> = { ...set };
  if (body.relationships.datasource !== undefined) columns.datasource_id = body.relationships.datasource;
  if (parent !== undefined) columns.parent_filter_id = parent;
  await withTransaction(ctx, async ({ tx, audit }) => {
    // Only the columns sent (or cleared by the rules) are written, so concurrent updates of different fields both survive.
    await tx
      .update(filters)
      .set({ ...(columns as Partial<FilterRow>), updated_at: new Date() })
      .where(and(eq(filters.id, id), eq(filters.organization_id, org)));
    if (change) await putOnDashboards(tx, org, id, change.added, change.removed);
    if (set.sql_query !== undefined) await recordFilterSql(tx, org, id, set.sql_query as string | null);
    await audit('update', 'filters', id, changed(body.attributes, body.relationships));
  });
  return getFilter({ ctx, id, include: new Set() });
}

/**
 * Deletes a filter: it leaves every dashboard and the reports' filter lists; filters that had it as
 * parent lose their parent. Reports that mention its variable then see it unset (their conditions
 * become TRUE) until it is defined again.
 */
export async function deleteFilter({ ctx, id }: { ctx: ServiceContext; id: string }) {
  requirePermission(ctx.principal, 'manage_dashboards');
  await findFilter(ctx, id);
  const memberships = await visibleMemberships(ctx, id);
  requireFilterWrite(ctx, await filterDashboards(ctx, id));
  const locked = memberships.find((m) => m.is_locked);
  if (locked) throw new ApiError('invalid_state', `Dashboard "${locked.id}" is locked; unlock it before removing its filters.`);
  const org = ctx.principal.organizationId;
  await withTransaction(ctx, async ({ tx, audit }) => {
    await tx
      .update(filters)
      .set({ parent_filter_id: null })
      .where(and(eq(filters.organization_id, org), eq(filters.parent_filter_id, id)));
    await tx
      .delete(sqlSnippetUses)
      .where(and(eq(sqlSnippetUses.organization_id, org), eq(sqlSnippetUses.owner_type, 'filter'), eq(sqlSnippetUses.owner_id, id)));
    await tx.delete(filters).where(and(eq(filters.id, id), eq(filters.organization_id, org)));
    await audit('delete', 'filters', id);
  });
}
