import { and, asc, count, eq, inArray, isNull, sql } from 'drizzle-orm';
import { ApiError, newId, notFound, ORGANIZATION, regionToken, sha256Hex } from '@cairn/core';
import { sessions, userGroupMembers, userGroups, users } from '@cairn/db';
import type { ServiceContext } from '../../lib/context.ts';
import { can, requirePermission } from '../../auth/principal.ts';
import { audit } from '../../lib/audit.ts';
import { withTransaction } from '../../lib/transaction.ts';
import { offsetOf, type ListQuery } from '../../lib/jsonapi.ts';
import { listOrder, nameFilter, type ListSpec } from '../../lib/list.ts';
import { serializeUserGroup } from '../user-groups/serialize.ts';
import { explicitGroupIds } from './groups.ts';
import { serializeUser } from './serialize.ts';
import { sendInvitationMail } from '../../mail/index.ts';

type Page = ListQuery;

/** filter[name] and sort of GET /users (name is firstname and lastname; filter[name] also searches the email). */
export const USER_LIST: ListSpec = {
  name: [sql`${users.firstname} || ' ' || ${users.lastname}`, users.email],
  sorts: { name: sql`${users.firstname} || ' ' || ${users.lastname}`, email: users.email, created_at: users.created_at, updated_at: users.updated_at },
  order: [asc(users.email)],
  id: users.id,
};
type UserRow = typeof users.$inferSelect;
type Role = UserRow['role'];

async function findUser(ctx: ServiceContext, id: string): Promise<UserRow> {
  const [row] = await ctx.db
    .select()
    .from(users)
    .where(and(eq(users.id, id), eq(users.organization_id, ctx.principal.organizationId)))
    .limit(1);
  if (!row) throw notFound('user', id);
  return row;
}

/** Group ids per user: explicit memberships plus the built-in groups each belongs to by rule. */
async function groupsOf(ctx: ServiceContext, rows: UserRow[]) {
  const out = new Map<string, string[]>(rows.map((u) => [u.id, []]));
  if (!rows.length) return out;
  const org = ctx.principal.organizationId;
  const [explicit, builtIn] = await Promise.all([
    ctx.db
      .select({ u: userGroupMembers.user_id, g: userGroupMembers.user_group_id })
      .from(userGroupMembers)
      .where(
        and(
          eq(userGroupMembers.organization_id, org),
          inArray(
            userGroupMembers.user_id,
            rows.map((u) => u.id),
          ),
        ),
      )
      .orderBy(asc(userGroupMembers.user_group_id)),
    ctx.db
      .select({ id: userGroups.id, b: userGroups.built_in_behavior })
      .from(userGroups)
      .where(and(eq(userGroups.organization_id, org), sql`${userGroups.built_in_behavior} is not null`)),
  ]);
  for (const u of rows) {
    for (const g of builtIn) if (g.b === 'all_users' || u.role !== 'viewer') out.get(u.id)!.push(g.id);
  }
  // A built-in group may also hold explicit rows (seeded or older data): list each group once.
  for (const r of explicit) if (!out.get(r.u)!.includes(r.g)) out.get(r.u)!.push(r.g);
  return out;
}

async function serializeUsers(ctx: ServiceContext, rows: UserRow[], include: Set<string>) {
  const showOtp = can(ctx.principal, 'manage_users', ORGANIZATION);
  const groups = await groupsOf(ctx, rows);
  const data = rows.map((u) => serializeUser(ctx.baseUrl, u, { showOtp, groupIds: groups.get(u.id)! }));
  const included = [];
  if (include.has('user_groups')) {
    const ids = [...new Set([...groups.values()].flat())];
    if (ids.length) {
      const gs = await ctx.db
        .select()
        .from(userGroups)
        .where(and(eq(userGroups.organization_id, ctx.principal.organizationId), inArray(userGroups.id, ids)));
      included.push(...gs.map((g) => serializeUserGroup(ctx.baseUrl, g)));
    }
  }
  if (include.has('invited_by_user')) {
    const ids = [...new Set(rows.map((u) => u.invited_by_user_id).filter((x): x is string => !!x))].filter((id) => !rows.some((u) => u.id === id));
    if (ids.length) {
      const us = await ctx.db
        .select()
        .from(users)
        .where(and(eq(users.organization_id, ctx.principal.organizationId), inArray(users.id, ids)));
      included.push(...us.map((u) => serializeUser(ctx.baseUrl, u, { showOtp })));
    }
  }
  return { data, included };
}

export async function listUsers({ ctx, page, include }: { ctx: ServiceContext; page: Page; include: Set<string> }) {
  requirePermission(ctx.principal, 'view_users', ORGANIZATION);
  const where = and(eq(users.organization_id, ctx.principal.organizationId), nameFilter(USER_LIST, page));
  const [rows, [total]] = await Promise.all([
    ctx.db
      .select()
      .from(users)
      .where(where)
      .orderBy(...listOrder(USER_LIST, page))
      .limit(page.size)
      .offset(offsetOf(page)),
    ctx.db.select({ n: count() }).from(users).where(where),
  ]);
  return { ...(await serializeUsers(ctx, rows, include)), total: total?.n ?? 0 };
}

export async function getUser({ ctx, id, include }: { ctx: ServiceContext; id: string; include: Set<string> }) {
  requirePermission(ctx.principal, 'view_users', ORGANIZATION);
  const res = await serializeUsers(ctx, [await findUser(ctx, id)], include);
  return { data: res.data[0]!, included: res.included };
}

/** API keys never touch admins nor make anyone an admin; an admin signed in to the app may. */
function guardAdmin(ctx: ServiceContext, target: UserRow, newRole: Role | undefined, what: string) {
  if (ctx.principal.kind !== 'api_key') {
    if (newRole === 'admin' && !can(ctx.principal, 'manage_users', ORGANIZATION)) throw new ApiError('forbidden', 'Only admins can make someone an admin.');
    return;
  }
  if (target.role === 'admin') throw new ApiError('forbidden', `API keys cannot ${what} an admin.`);
  if (newRole === 'admin') {
    throw new ApiError('forbidden', 'API keys cannot make anyone an admin; roles set through the API are analyst or viewer.', {
      source: { pointer: '/data/attributes/role' },
    });
  }
}

/**
 * Analyst seats are limited when the operator set a limit (plan_analyst_seats; NULL: no limit):
 * analysts and admins who are not deactivated count,
 * pending invitations included (they hold a seat until revoked). Checked inside the transaction
 * that uses the seat, with the organization row locked, so two requests cannot take the last one.
 */
async function requireAnalystSeat(tx: Pick<ReturnType<ServiceContext['direct']>['db'], 'execute'>, organizationId: string, exceptUserId?: string) {
  const [row] = (await tx.execute(sql`
    select o.plan_analyst_seats as seats,
      (select count(*)::int from users u where u.organization_id = o.id and u.role in ('analyst', 'admin')
         and u.deactivated_at is null ${exceptUserId ? sql`and u.id <> ${exceptUserId}` : sql``}) as used
    from organizations o where o.id = ${organizationId} for update`)) as unknown as { seats: number | null; used: number }[];
  if (row && row.seats !== null && row.used >= row.seats) {
    throw new ApiError(
      'plan_limit',
      `All ${row.seats} analyst seats of this organization are taken; deactivate an analyst first (the server's operator sets the limit).`,
      {
        source: { pointer: '/data/attributes/role' },
      },
    );
  }
}

export async function updateUser({
  ctx,
  id,
  input: body,
}: {
  ctx: ServiceContext;
  id: string;
  input: { attributes: { role?: Role }; relationships: Record<string, string | string[] | null> };
}) {
  requirePermission(ctx.principal, 'manage_users', ORGANIZATION);
  const target = await findUser(ctx, id);
  const role = body.attributes.role;
  guardAdmin(ctx, target, role, 'update');
  if (role && role !== 'admin' && target.role === 'admin' && ctx.principal.kind === 'user' && ctx.principal.userId === id) {
    throw new ApiError('invalid_state', 'You cannot take away your own admin role; ask another admin.', { source: { pointer: '/data/attributes/role' } });
  }
  const groupIds = body.relationships.user_groups as string[] | undefined;
  const explicit = groupIds ? await explicitGroupIds(ctx, groupIds, (i) => `/data/relationships/user_groups/data/${i}/id`) : undefined;
  const org = ctx.principal.organizationId;
  await withTransaction(ctx, async ({ tx, audit }) => {
    if (role && role !== target.role) {
      if (role !== 'viewer' && target.role === 'viewer' && !target.deactivated_at) await requireAnalystSeat(tx, org, id);
      if (target.role === 'admin') await requireAnotherAdmin(tx, org, id);
      await tx
        .update(users)
        .set({ role, updated_at: new Date() })
        .where(and(eq(users.id, id), eq(users.organization_id, org)));
    }
    if (explicit) {
      await tx.delete(userGroupMembers).where(and(eq(userGroupMembers.user_id, id), eq(userGroupMembers.organization_id, org)));
      if (explicit.length) await tx.insert(userGroupMembers).values(explicit.map((g) => ({ organization_id: org, user_group_id: g, user_id: id })));
    }
    await audit('update', 'users', id, { ...(role ? { role } : {}), ...(explicit ? { user_groups: explicit } : {}) });
  });
  return getUser({ ctx, id, include: new Set() });
}

/** An organization always keeps at least one active admin. */
async function requireAnotherAdmin(tx: Pick<ReturnType<ServiceContext['direct']>['db'], 'execute'>, organizationId: string, userId: string) {
  const [row] = (await tx.execute(sql`select count(*)::int as n from users where organization_id = ${organizationId}
    and role = 'admin' and deactivated_at is null and id <> ${userId}`)) as unknown as { n: number }[];
  if (!row || row.n === 0) throw new ApiError('invalid_state', 'This is the last active admin of the organization; make someone else an admin first.');
}

export async function deactivateUser({ ctx, id }: { ctx: ServiceContext; id: string }) {
  requirePermission(ctx.principal, 'manage_users', ORGANIZATION);
  const target = await findUser(ctx, id);
  guardAdmin(ctx, target, undefined, 'deactivate');
  if (ctx.principal.kind === 'user' && ctx.principal.userId === id) throw new ApiError('invalid_state', 'You cannot deactivate yourself.');
  if (target.deactivated_at) return;
  const org = ctx.principal.organizationId;
  await withTransaction(ctx, async ({ tx, audit }) => {
    if (target.role === 'admin') await requireAnotherAdmin(tx, org, id);
    await tx
      .update(users)
      .set({ deactivated_at: new Date(), updated_at: new Date() })
      .where(and(eq(users.id, id), eq(users.organization_id, org)));
    // Deactivation signs the user out everywhere.
    await tx.delete(sessions).where(eq(sessions.user_id, id));
    await audit('deactivate', 'users', id);
  });
}

/** Reactivates as viewer or analyst (a former admin comes back as viewer unless told otherwise); analyst needs a free seat. */
export async function activateUser({ ctx, id, role: wanted }: { ctx: ServiceContext; id: string; role: 'viewer' | 'analyst' | undefined }) {
  requirePermission(ctx.principal, 'manage_users', ORGANIZATION);
  const target = await findUser(ctx, id);
  if (!target.deactivated_at) {
    if (wanted && wanted !== target.role) {
      throw new ApiError('invalid_state', 'The user is active; change the role with PATCH /users/{id}.', { source: { pointer: '/role' } });
    }
    return;
  }
  const role: Role = wanted ?? (target.role === 'admin' ? 'viewer' : target.role);
  const org = ctx.principal.organizationId;
  await withTransaction(ctx, async ({ tx, audit }) => {
    if (role === 'analyst') await requireAnalystSeat(tx, org, id);
    await tx
      .update(users)
      .set({ deactivated_at: null, role, updated_at: new Date() })
      .where(and(eq(users.id, id), eq(users.organization_id, org)));
    await audit('activate', 'users', id, { role });
  });
}

/**
 * Invites someone by e-mail: a user in the invited state with a one-time invitation token (only its
 * hash is kept). An address already in this organization is a 409. An address with an account in
 * another organization is invited like any other (the answer must not tell the inviter that it has an
 * account anywhere); an address belongs to one account, so accepting is refused there and then, to
 * the address's owner (invitations/service.ts).
 */
export async function inviteUser({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: { email: string; firstname?: string; lastname?: string; role: Role; user_group_ids: string[] };
}) {
  requirePermission(ctx.principal, 'manage_users', ORGANIZATION);
  if (input.role === 'admin' && ctx.principal.kind === 'api_key') {
    throw new ApiError('forbidden', 'API keys cannot invite admins; invite as analyst or viewer.', { source: { pointer: '/role' } });
  }
  const explicit = await explicitGroupIds(ctx, input.user_group_ids, (i) => `/user_group_ids/${i}`);
  const [taken] = await ctx.db
    .select({ id: users.id })
    .from(users)
    .where(and(eq(users.organization_id, ctx.principal.organizationId), sql`lower(${users.email}) = ${input.email.toLowerCase()}`))
    .limit(1);
  if (taken) throw new ApiError('conflict', `${input.email} is already a user of this organization.`, { source: { pointer: '/email' } });
  const id = newId('user');
  const org = ctx.principal.organizationId;
  const token = regionToken(ctx.env.REGION, 40);
  await withTransaction(ctx, async ({ tx, audit }) => {
    if (input.role !== 'viewer') await requireAnalystSeat(tx, org);
    await tx.insert(users).values({
      id,
      organization_id: org,
      email: input.email,
      firstname: input.firstname ?? '',
      lastname: input.lastname ?? '',
      role: input.role,
      invited_by_user_id: ctx.principal.kind === 'user' ? ctx.principal.userId : null,
      invitation_token_hash: await sha256Hex(token),
      invitation_created_at: new Date(),
    });
    if (explicit.length) await tx.insert(userGroupMembers).values(explicit.map((g) => ({ organization_id: org, user_group_id: g, user_id: id })));
    await audit('invite', 'users', id, { role: input.role, user_groups: explicit });
  });
  // The invitation stands whether or not the e-mail leaves; the answer says which (meta.mail).
  const mail = await sendInvitationMail(ctx, input, token);
  return { ...(await getUser({ ctx, id, include: new Set() })), mail };
}

async function findInvitation(ctx: ServiceContext, id: string) {
  const u = await findUser(ctx, id);
  if (!u.invitation_created_at || u.invitation_accepted_at) {
    throw new ApiError('invalid_state', 'This user has no pending invitation.', { source: { parameter: 'id' } });
  }
  return u;
}

/** A fresh invitation token (the old link stops working) and a new invitation time. */
export async function resendInvitation({ ctx, id }: { ctx: ServiceContext; id: string }) {
  requirePermission(ctx.principal, 'manage_users', ORGANIZATION);
  const invitee = await findInvitation(ctx, id);
  const token = regionToken(ctx.env.REGION, 40);
  await ctx.db
    .update(users)
    .set({ invitation_token_hash: await sha256Hex(token), invitation_created_at: new Date(), updated_at: new Date() })
    .where(and(eq(users.id, id), eq(users.organization_id, ctx.principal.organizationId), isNull(users.invitation_accepted_at)));
  await audit(ctx, 'resend_invitation', 'users', id);
  return sendInvitationMail(ctx, invitee, token);
}

/** Revoking removes the invited user (nothing else refers to someone who never signed in). */
export async function revokeInvitation({ ctx, id }: { ctx: ServiceContext; id: string }) {
  requirePermission(ctx.principal, 'manage_users', ORGANIZATION);
  await findInvitation(ctx, id);
  await ctx.db.delete(users).where(and(eq(users.id, id), eq(users.organization_id, ctx.principal.organizationId), isNull(users.invitation_accepted_at)));
  await audit(ctx, 'revoke_invitation', 'users', id);
}
