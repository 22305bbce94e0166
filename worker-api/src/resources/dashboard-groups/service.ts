import { and, asc, count, eq, inArray, isNull, or, sql, type SQL } from 'drizzle-orm';
import { ApiError, newId, notFound, ORGANIZATION } from '@cairn/core';
import { dashboardGroupMembers, dashboardGroups, dashboards } from '@cairn/db';
import type { ServiceContext } from '../../lib/context.ts';
import { requirePermission } from '../../auth/principal.ts';
import { visibleDashboards } from '../../auth/access.ts';
import { audit, changed } from '../../lib/audit.ts';
import { withTransaction } from '../../lib/transaction.ts';
import { offsetOf, type ListQuery } from '../../lib/jsonapi.ts';
import { listOrder, nameFilter, type ListSpec } from '../../lib/list.ts';
import { serializeDashboard } from '../dashboards/serialize.ts';
import { dashboardRelationships } from '../dashboards/relations.ts';
import { serializeDashboardGroup } from './serialize.ts';

type Page = ListQuery;

/** filter[name] and sort of GET /dashboard_groups. */
export const DASHBOARD_GROUP_LIST: ListSpec = {
  name: [dashboardGroups.name],
  sorts: { name: dashboardGroups.name, position: dashboardGroups.position, created_at: dashboardGroups.created_at, updated_at: dashboardGroups.updated_at },
  order: [asc(dashboardGroups.position), asc(dashboardGroups.name)],
  id: dashboardGroups.id,
};

/** Groups a caller may see: API keys never see personal groups; a user sees only their own personal ones. */
function visibleGroups(ctx: ServiceContext): SQL {
  const p = ctx.principal;
  const org = eq(dashboardGroups.organization_id, p.organizationId);
  const personal =
    p.kind === 'user'
      ? or(isNull(dashboardGroups.personal_user_id), eq(dashboardGroups.personal_user_id, p.userId))!
      : isNull(dashboardGroups.personal_user_id);
  return and(org, personal)!;
}

async function findGroup(ctx: ServiceContext, id: string) {
  const [row] = await ctx.db
    .select()
    .from(dashboardGroups)
    .where(and(eq(dashboardGroups.id, id), visibleGroups(ctx)))
    .limit(1);
  if (!row) throw notFound('dashboard group', id);
  return row;
}

/** Member dashboard ids per group, in the group's order, limited to dashboards the caller may see. */
async function membersOf(ctx: ServiceContext, groupIds: string[]) {
  const out = new Map<string, string[]>(groupIds.map((id) => [id, []]));
  if (!groupIds.length) return out;
  const rows = await ctx.db
    .select({ g: dashboardGroupMembers.dashboard_group_id, d: dashboardGroupMembers.dashboard_id })
    .from(dashboardGroupMembers)
    .innerJoin(dashboards, eq(dashboards.id, dashboardGroupMembers.dashboard_id))
    .where(and(inArray(dashboardGroupMembers.dashboard_group_id, groupIds), visibleDashboards(ctx.principal)))
    .orderBy(asc(dashboardGroupMembers.position), asc(dashboardGroupMembers.dashboard_id));
  for (const r of rows) out.get(r.g)!.push(r.d);
  return out;
}

async function serializeGroups(ctx: ServiceContext, rows: (typeof dashboardGroups.$inferSelect)[], include: Set<string>) {
  const members = await membersOf(
    ctx,
    rows.map((r) => r.id),
  );
  const data = rows.map((g) => serializeDashboardGroup(ctx.baseUrl, g, members.get(g.id)!));
  let included: ReturnType<typeof serializeDashboard>[] = [];
  if (include.has('dashboards')) {
    const ids = [...new Set([...members.values()].flat())];
    if (ids.length) {
      const ds = await ctx.db
        .select()
        .from(dashboards)
        .where(and(inArray(dashboards.id, ids), visibleDashboards(ctx.principal)));
      const rels = await dashboardRelationships(ctx, ds);
      included = ds.map((d) => serializeDashboard(ctx.baseUrl, d, rels.get(d.id)!));
    }
  }
  return { data, included };
}

export async function listDashboardGroups({ ctx, page, include }: { ctx: ServiceContext; page: Page; include: Set<string> }) {
  requirePermission(ctx.principal, 'view_dashboards');
  const where = and(visibleGroups(ctx), nameFilter(DASHBOARD_GROUP_LIST, page));
  const [rows, [total]] = await Promise.all([
    ctx.db
      .select()
      .from(dashboardGroups)
      .where(where)
      .orderBy(...listOrder(DASHBOARD_GROUP_LIST, page))
      .limit(page.size)
      .offset(offsetOf(page)),
    ctx.db.select({ n: count() }).from(dashboardGroups).where(where),
  ]);
  return { ...(await serializeGroups(ctx, rows, include)), total: total?.n ?? 0 };
}

export async function getDashboardGroup({ ctx, id, include }: { ctx: ServiceContext; id: string; include: Set<string> }) {
  requirePermission(ctx.principal, 'view_dashboards');
  const row = await findGroup(ctx, id);
  const res = await serializeGroups(ctx, [row], include);
  return { data: res.data[0]!, included: res.included };
}

/** Every id must be a dashboard the caller may see (404-like 422 otherwise: never reveal others). */
async function checkDashboards(ctx: ServiceContext, ids: string[]) {
  if (!ids.length) return;
  const found = await ctx.db
    .select({ id: dashboards.id })
    .from(dashboards)
    .where(and(inArray(dashboards.id, ids), visibleDashboards(ctx.principal)));
  const have = new Set(found.map((r) => r.id));
  const missing = ids.findIndex((id) => !have.has(id));
  if (missing >= 0) {
    throw new ApiError('invalid_relationship', `No dashboard with id "${ids[missing]}" exists in this organization.`, {
      source: { pointer: `/data/relationships/dashboards/data/${missing}/id` },
    });
  }
}

/**
 * Who may write a group: shared groups are the organization's (unrestricted Manage Dashboards); a
 * personal group is its owner's alone, and any signed-in user who may view dashboards may keep their own
 * (API keys never reach one: see visibleGroups).
 */
function requireGroupWrite(ctx: ServiceContext, personal: boolean) {
  if (personal) requirePermission(ctx.principal, 'view_dashboards');
  else requirePermission(ctx.principal, 'manage_dashboards', ORGANIZATION);
}

type GroupBody = {
  attributes: { name?: string; description?: string | null; personal?: boolean };
  relationships: Record<string, string | string[] | null>;
};

export async function createDashboardGroup({ ctx, input: body }: { ctx: ServiceContext; input: GroupBody }) {
  const p = ctx.principal;
  const personal = body.attributes.personal === true;
  if (personal && p.kind !== 'user') {
    throw new ApiError('invalid_attribute', 'Only a signed-in user can create a personal dashboard group; API keys cannot.', {
      source: { pointer: '/data/attributes/personal' },
    });
  }
  requireGroupWrite(ctx, personal);
  const dashboardIds = (body.relationships.dashboards as string[] | undefined) ?? [];
  await checkDashboards(ctx, dashboardIds);
  const id = newId('dashboard_group');
  const org = ctx.principal.organizationId;
  await withTransaction(ctx, async ({ tx, audit }) => {
    await tx.insert(dashboardGroups).values({
      id,
      organization_id: org,
      name: body.attributes.name!,
      description: body.attributes.description ?? null,
      personal_user_id: personal && p.kind === 'user' ? p.userId : null,
      // New groups go last.
      position: sql`(select coalesce(max(position) + 1, 0) from dashboard_groups where organization_id = ${org})`,
    });
    if (dashboardIds.length) {
      await tx
        .insert(dashboardGroupMembers)
        .values(dashboardIds.map((d, i) => ({ organization_id: org, dashboard_group_id: id, dashboard_id: d, position: i })));
    }
    await audit('create', 'dashboard_groups', id, changed(body.attributes, body.relationships));
  });
  return getDashboardGroup({ ctx, id, include: new Set() });
}

export async function updateDashboardGroup({ ctx, id, input: body }: { ctx: ServiceContext; id: string; input: GroupBody }) {
  requirePermission(ctx.principal, 'view_dashboards');
  const group = await findGroup(ctx, id);
  if (group.personal_user_id && ctx.principal.kind !== 'user') throw notFound('dashboard group', id);
  requireGroupWrite(ctx, group.personal_user_id !== null);
  const dashboardIds = body.relationships.dashboards as string[] | undefined;
  if (dashboardIds) await checkDashboards(ctx, dashboardIds);
  const org = ctx.principal.organizationId;
  await withTransaction(ctx, async ({ tx, audit }) => {
    // Only the attributes sent are written, so concurrent updates of different fields both survive.
    await tx
      .update(dashboardGroups)
      .set({ ...body.attributes, updated_at: new Date() })
      .where(and(eq(dashboardGroups.id, id), eq(dashboardGroups.organization_id, org)));
    if (dashboardIds) {
      await tx.delete(dashboardGroupMembers).where(eq(dashboardGroupMembers.dashboard_group_id, id));
      if (dashboardIds.length) {
        await tx
          .insert(dashboardGroupMembers)
          .values(dashboardIds.map((d, i) => ({ organization_id: org, dashboard_group_id: id, dashboard_id: d, position: i })));
      }
    }
    await audit('update', 'dashboard_groups', id, changed(body.attributes, body.relationships));
  });
  return getDashboardGroup({ ctx, id, include: new Set() });
}

export async function deleteDashboardGroup({ ctx, id }: { ctx: ServiceContext; id: string }) {
  requirePermission(ctx.principal, 'view_dashboards');
  const group = await findGroup(ctx, id);
  requireGroupWrite(ctx, group.personal_user_id !== null);
  await ctx.db.delete(dashboardGroups).where(and(eq(dashboardGroups.id, id), eq(dashboardGroups.organization_id, ctx.principal.organizationId)));
  await audit(ctx, 'delete', 'dashboard_groups', id);
}

/** Orders the organization's shared groups: the listed ones first, in that order, then the rest as they were. */
export async function sortDashboardGroups({ ctx, ids }: { ctx: ServiceContext; ids: string[] }) {
  requirePermission(ctx.principal, 'manage_dashboards', ORGANIZATION);
  const unique = [...new Set(ids)];
  if (unique.length !== ids.length) {
    throw new ApiError('invalid_attribute', 'dashboard_group_ids lists a group twice.', { source: { pointer: '/dashboard_group_ids' } });
  }
  const all = await ctx.db
    .select({ id: dashboardGroups.id })
    .from(dashboardGroups)
    .where(visibleGroups(ctx))
    .orderBy(asc(dashboardGroups.position), asc(dashboardGroups.name), asc(dashboardGroups.id));
  const known = new Set(all.map((g) => g.id));
  const bad = ids.findIndex((id) => !known.has(id));
  if (bad >= 0) {
    throw new ApiError('invalid_attribute', `No dashboard group with id "${ids[bad]}" exists in this organization.`, {
      source: { pointer: `/dashboard_group_ids/${bad}` },
    });
  }
  const order = [...ids, ...all.map((g) => g.id).filter((id) => !ids.includes(id))];
  // One statement: positions from the array index.
  await ctx.db.execute(sql`update dashboard_groups g set position = o.pos - 1, updated_at = now()
    from unnest(${sql`array[${sql.join(
      order.map((id) => sql`${id}`),
      sql`, `,
    )}]::text[]`}) with ordinality as o(id, pos)
    where g.id = o.id and g.organization_id = ${ctx.principal.organizationId}`);
  await audit(ctx, 'sort', 'dashboard_groups', null, { order });
}
