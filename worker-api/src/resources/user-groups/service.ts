import { and, asc, count, eq, inArray, isNull, ne, sql } from 'drizzle-orm';
import { ApiError, newId, notFound, ORGANIZATION } from '@cairn/core';
import { dashboards, dashboardUserGroups, userGroupMembers, userGroups, users } from '@cairn/db';
import type { ServiceContext } from '../../lib/context.ts';
import { can, requirePermission } from '../../auth/principal.ts';
import { visibleDashboards } from '../../auth/access.ts';
import { audit, changed } from '../../lib/audit.ts';
import { withTransaction } from '../../lib/transaction.ts';
import { offsetOf, type ListQuery } from '../../lib/jsonapi.ts';
import { listOrder, nameFilter, type ListSpec } from '../../lib/list.ts';
import { dashboardRelationships } from '../dashboards/relations.ts';
import { serializeDashboard } from '../dashboards/serialize.ts';
import { serializeUser } from '../users/serialize.ts';
import { serializeUserGroup } from './serialize.ts';

type Page = ListQuery;

/** filter[name] and sort of GET /user_groups (without sort: the built-in groups first, then by name). */
export const USER_GROUP_LIST: ListSpec = {
  name: [userGroups.name],
  sorts: { name: userGroups.name, created_at: userGroups.created_at, updated_at: userGroups.updated_at },
  order: [sql`${userGroups.built_in_behavior} is null`, asc(userGroups.name)],
  id: userGroups.id,
};
type GroupRow = typeof userGroups.$inferSelect;
type Body = { attributes: { name?: string; description?: string | null }; relationships: Record<string, string | string[] | null> };

/** Finds a group by id or by its built-in alias (`all_users`, `all_analysts`). */
async function findUserGroup(ctx: ServiceContext, idOrAlias: string): Promise<GroupRow> {
  const alias = idOrAlias === 'all_users' || idOrAlias === 'all_analysts' ? idOrAlias : null;
  const [row] = await ctx.db
    .select()
    .from(userGroups)
    .where(and(eq(userGroups.organization_id, ctx.principal.organizationId), alias ? eq(userGroups.built_in_behavior, alias) : eq(userGroups.id, idOrAlias)))
    .limit(1);
  if (!row) throw notFound('user group', idOrAlias);
  return row;
}

/** Members (built-in groups by rule: everyone not deactivated, or analysts and admins) and shared dashboards. */
async function linksOf(ctx: ServiceContext, rows: GroupRow[]) {
  const org = ctx.principal.organizationId;
  const out = new Map(rows.map((g) => [g.id, { users: [] as string[], dashboards: [] as string[] }]));
  if (!rows.length) return out;
  const ids = rows.map((g) => g.id);
  const builtIns = rows.filter((g) => g.built_in_behavior);
  const [members, ruled, shared] = await Promise.all([
    ctx.db
      .select({ g: userGroupMembers.user_group_id, u: userGroupMembers.user_id })
      .from(userGroupMembers)
      .where(and(eq(userGroupMembers.organization_id, org), inArray(userGroupMembers.user_group_id, ids)))
      .orderBy(asc(userGroupMembers.user_id)),
    builtIns.length
      ? ctx.db
          .select({ id: users.id, role: users.role })
          .from(users)
          .where(and(eq(users.organization_id, org), isNull(users.deactivated_at)))
          .orderBy(asc(users.id))
      : Promise.resolve([]),
    ctx.db
      .select({ g: dashboardUserGroups.user_group_id, d: dashboardUserGroups.dashboard_id })
      .from(dashboardUserGroups)
      .innerJoin(dashboards, eq(dashboards.id, dashboardUserGroups.dashboard_id))
      .where(and(inArray(dashboardUserGroups.user_group_id, ids), visibleDashboards(ctx.principal)))
      .orderBy(asc(dashboardUserGroups.dashboard_id)),
  ]);
  for (const m of members) out.get(m.g)!.users.push(m.u);
  for (const g of builtIns) {
    out.get(g.id)!.users = ruled.filter((u) => g.built_in_behavior === 'all_users' || u.role !== 'viewer').map((u) => u.id);
  }
  for (const s of shared) out.get(s.g)!.dashboards.push(s.d);
  return out;
}

async function serializeGroups(ctx: ServiceContext, rows: GroupRow[], include: Set<string>) {
  const links = await linksOf(ctx, rows);
  const data = rows.map((g) => serializeUserGroup(ctx.baseUrl, g, links.get(g.id)));
  const included = [];
  const all = [...links.values()];
  if (include.has('users')) {
    const ids = [...new Set(all.flatMap((l) => l.users))];
    if (ids.length) {
      const us = await ctx.db
        .select()
        .from(users)
        .where(and(eq(users.organization_id, ctx.principal.organizationId), inArray(users.id, ids)));
      const showOtp = can(ctx.principal, 'manage_users', ORGANIZATION);
      included.push(...us.map((u) => serializeUser(ctx.baseUrl, u, { showOtp })));
    }
  }
  if (include.has('dashboards')) {
    const ids = [...new Set(all.flatMap((l) => l.dashboards))];
    if (ids.length) {
      const ds = await ctx.db
        .select()
        .from(dashboards)
        .where(and(inArray(dashboards.id, ids), visibleDashboards(ctx.principal)));
      const rels = await dashboardRelationships(ctx, ds);
      included.push(...ds.map((d) => serializeDashboard(ctx.baseUrl, d, rels.get(d.id)!)));
    }
  }
  return { data, included };
}

export async function listUserGroups({ ctx, page, include }: { ctx: ServiceContext; page: Page; include: Set<string> }) {
  requirePermission(ctx.principal, 'view_users', ORGANIZATION);
  const where = and(eq(userGroups.organization_id, ctx.principal.organizationId), nameFilter(USER_GROUP_LIST, page));
  const [rows, [total]] = await Promise.all([
    ctx.db
      .select()
      .from(userGroups)
      .where(where)
      .orderBy(...listOrder(USER_GROUP_LIST, page))
      .limit(page.size)
      .offset(offsetOf(page)),
    ctx.db.select({ n: count() }).from(userGroups).where(where),
  ]);
  return { ...(await serializeGroups(ctx, rows, include)), total: total?.n ?? 0 };
}

export async function getUserGroup({ ctx, id, include }: { ctx: ServiceContext; id: string; include: Set<string> }) {
  requirePermission(ctx.principal, 'view_users', ORGANIZATION);
  const res = await serializeGroups(ctx, [await findUserGroup(ctx, id)], include);
  return { data: res.data[0]!, included: res.included };
}

async function checkUsers(ctx: ServiceContext, ids: string[]) {
  if (!ids.length) return;
  const found = await ctx.db
    .select({ id: users.id })
    .from(users)
    .where(and(eq(users.organization_id, ctx.principal.organizationId), inArray(users.id, ids)));
  const have = new Set(found.map((r) => r.id));
  const bad = ids.findIndex((id) => !have.has(id));
  if (bad >= 0) {
    throw new ApiError('invalid_relationship', `No user with id "${ids[bad]}" exists in this organization.`, {
      source: { pointer: `/data/relationships/users/data/${bad}/id` },
    });
  }
}

async function uniqueName(ctx: ServiceContext, name: string, exceptId?: string) {
  const [dup] = await ctx.db
    .select({ id: userGroups.id })
    .from(userGroups)
    .where(
      and(
        eq(userGroups.organization_id, ctx.principal.organizationId),
        sql`lower(${userGroups.name}) = ${name.toLowerCase()}`,
        ...(exceptId ? [ne(userGroups.id, exceptId)] : []),
      ),
    )
    .limit(1);
  if (dup) throw new ApiError('conflict', `A user group named "${name}" already exists.`, { source: { pointer: '/data/attributes/name' } });
}

export async function createUserGroup({ ctx, input: body }: { ctx: ServiceContext; input: Body }) {
  requirePermission(ctx.principal, 'manage_users', ORGANIZATION);
  await uniqueName(ctx, body.attributes.name!);
  const members = (body.relationships.users as string[] | undefined) ?? [];
  await checkUsers(ctx, members);
  const id = newId('user_group');
  const org = ctx.principal.organizationId;
  await withTransaction(ctx, async ({ tx, audit }) => {
    await tx.insert(userGroups).values({ id, organization_id: org, name: body.attributes.name!, description: body.attributes.description ?? null });
    if (members.length) await tx.insert(userGroupMembers).values(members.map((u) => ({ organization_id: org, user_group_id: id, user_id: u })));
    await audit('create', 'user_groups', id, changed(body.attributes, body.relationships));
  });
  return getUserGroup({ ctx, id, include: new Set() });
}

export async function updateUserGroup({ ctx, id: idOrAlias, input: body }: { ctx: ServiceContext; id: string; input: Body }) {
  requirePermission(ctx.principal, 'manage_users', ORGANIZATION);
  const group = await findUserGroup(ctx, idOrAlias);
  const members = body.relationships.users as string[] | undefined;
  if (group.built_in_behavior && members) {
    throw new ApiError('invalid_state', `The built-in group "${group.name}" keeps its members by rule; they cannot be set.`, {
      source: { pointer: '/data/relationships/users' },
    });
  }
  if (body.attributes.name) await uniqueName(ctx, body.attributes.name, group.id);
  if (members) await checkUsers(ctx, members);
  const org = ctx.principal.organizationId;
  await withTransaction(ctx, async ({ tx, audit }) => {
    if (Object.keys(body.attributes).length) {
      await tx
        .update(userGroups)
        .set({ ...body.attributes, updated_at: new Date() })
        .where(and(eq(userGroups.id, group.id), eq(userGroups.organization_id, org)));
    }
    if (members) {
      await tx.delete(userGroupMembers).where(eq(userGroupMembers.user_group_id, group.id));
      if (members.length) await tx.insert(userGroupMembers).values(members.map((u) => ({ organization_id: org, user_group_id: group.id, user_id: u })));
    }
    await audit('update', 'user_groups', group.id, changed(body.attributes, body.relationships));
  });
  return getUserGroup({ ctx, id: group.id, include: new Set() });
}

export async function deleteUserGroup({ ctx, id: idOrAlias }: { ctx: ServiceContext; id: string }) {
  requirePermission(ctx.principal, 'manage_users', ORGANIZATION);
  const group = await findUserGroup(ctx, idOrAlias);
  if (group.built_in_behavior) throw new ApiError('invalid_state', `The built-in group "${group.name}" cannot be deleted.`);
  await ctx.db.delete(userGroups).where(and(eq(userGroups.id, group.id), eq(userGroups.organization_id, ctx.principal.organizationId)));
  await audit(ctx, 'delete', 'user_groups', group.id);
}
