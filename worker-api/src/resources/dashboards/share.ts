import { and, eq, inArray, or, sql } from 'drizzle-orm';
import { ApiError } from '@cairn/core';
import { dashboards, dashboardUserGroups, organizations, userGroupMembers, userGroups, users } from '@cairn/db';
import type { z } from '@hono/zod-openapi';
import type { ServiceContext } from '../../lib/context.ts';
import { audit } from '../../lib/audit.ts';
import { findManagedDashboard, getDashboard } from './service.ts';
import { unchangedError } from './checks.ts';
import type { shareBody } from './schema.ts';
import { dashboardLink, sendDashboardSharedMails } from '../../mail/dashboard-shared.ts';
import { inviterName } from '../../mail/invitation.ts';
import type { MailResult } from '../../mail/index.ts';

const invalid = (pointer: string, detail: string) => new ApiError('invalid_attribute', detail, { source: { pointer } });

const ALIASES = ['all_users', 'all_analysts'] as const;

/** Group ids (or the built-in aliases all_users / all_analysts) → this organization's group ids. */
async function resolveGroups(ctx: ServiceContext, given: string[]): Promise<string[]> {
  if (!given.length) return [];
  const org = ctx.principal.organizationId;
  const aliases = given.filter((g): g is (typeof ALIASES)[number] => (ALIASES as readonly string[]).includes(g));
  const rows = await ctx.db
    .select({ id: userGroups.id, alias: userGroups.built_in_behavior })
    .from(userGroups)
    .where(
      and(eq(userGroups.organization_id, org), or(inArray(userGroups.id, given), aliases.length ? inArray(userGroups.built_in_behavior, aliases) : undefined)),
    );
  const byKey = new Map<string, string>();
  for (const r of rows) {
    byKey.set(r.id, r.id);
    if (r.alias) byKey.set(r.alias, r.id);
  }
  const problems: ApiError[] = [];
  const out: string[] = [];
  given.forEach((g, i) => {
    const id = byKey.get(g);
    if (!id) problems.push(invalid(`/user_group_ids/${i}`, `No user group with id "${g}" exists in this organization (aliases: all_users, all_analysts).`));
    else if (!out.includes(id)) out.push(id);
  });
  if (problems.length) {
    const [first, ...more] = problems;
    throw new ApiError(first!.code, first!.message, { source: first!.source, more });
  }
  return out;
}

type Reader = Pick<ReturnType<ServiceContext['direct']>['db'], 'select'>;

/**
 * The organization's active users (not deactivated, not invitations still pending) who can see the
 * dashboard: the rule of auth/access.ts visibleDashboards asked the other way round (which users for
 * this dashboard, instead of which dashboards for this user). Admins and the creator always; everyone
 * with all_users; analysts with all_analysts; with custom, the members of the listed groups, where the
 * built-in groups stand for all users / all analysts.
 */
export async function usersWhoSee(db: Reader, org: string, dashboardId: string) {
  const inGroup = sql`exists (select 1 from ${dashboardUserGroups}
      join ${userGroups} on ${userGroups.id} = ${dashboardUserGroups.user_group_id}
      where ${dashboardUserGroups.dashboard_id} = ${dashboards.id}
        and (${userGroups.built_in_behavior} = 'all_users'
          or (${userGroups.built_in_behavior} = 'all_analysts' and ${users.role} = 'analyst')
          or exists (select 1 from ${userGroupMembers}
                     where ${userGroupMembers.user_group_id} = ${userGroups.id} and ${userGroupMembers.user_id} = ${users.id})))`;
  return db
    .select({ id: users.id, email: users.email, firstname: users.firstname })
    .from(users)
    .innerJoin(dashboards, and(eq(dashboards.id, dashboardId), eq(dashboards.organization_id, users.organization_id)))
    .where(
      and(
        eq(users.organization_id, org),
        sql`${users.deactivated_at} is null`,
        sql`(${users.invitation_created_at} is null or ${users.invitation_accepted_at} is not null)`,
        or(
          eq(users.role, 'admin'),
          eq(dashboards.user_id, users.id),
          eq(dashboards.share_mode, 'all_users'),
          and(eq(dashboards.share_mode, 'all_analysts'), eq(users.role, 'analyst')),
          and(eq(dashboards.share_mode, 'custom'), inGroup),
        ),
      ),
    )
    .orderBy(users.email);
}

/** What notify_new_users did: who gained access and whether each notice left. */
interface ShareNotice {
  new_users: number;
  sent: number;
  not_sent: { user_id: string; reason: string }[];
}

/**
 * POST /dashboards/{id}/share: sets share_mode; custom shares with the listed groups (stored as
 * dashboard_user_groups), the other modes clear them. A locked dashboard refuses. With
 * notify_new_users, the users who can see the dashboard afterwards but could not before (compared
 * in the same transaction) get an e-mail; a mail failure never undoes the share.
 */
export async function shareDashboard(ctx: ServiceContext, id: string, body: z.infer<typeof shareBody>) {
  const dashboard = await findManagedDashboard(ctx, id);
  const given = body.user_group_ids ?? [];
  if (body.share_mode === 'custom' && !given.length) {
    throw invalid('/user_group_ids', 'share_mode custom needs user_group_ids: at least one group id (or all_users / all_analysts).');
  }
  if (body.share_mode !== 'custom' && given.length) {
    throw invalid('/user_group_ids', `user_group_ids is used only with share_mode custom, not ${body.share_mode}.`);
  }
  const groupIds = await resolveGroups(ctx, given);
  const org = ctx.principal.organizationId;
  const notify = body.notify_new_users ?? false;
  const gained = await ctx.direct().db.transaction(async (tx) => {
    const before = notify ? new Set((await usersWhoSee(tx, org, id)).map((u) => u.id)) : null;
    const done = await tx
      .update(dashboards)
      .set({ share_mode: body.share_mode, published: body.share_mode !== 'none', updated_at: new Date() })
      .where(and(eq(dashboards.id, id), eq(dashboards.organization_id, org), eq(dashboards.is_locked, false)))
      .returning({ id: dashboards.id });
    if (!done.length) throw await unchangedError(tx, org, id);
    await tx.delete(dashboardUserGroups).where(and(eq(dashboardUserGroups.dashboard_id, id), eq(dashboardUserGroups.organization_id, org)));
    if (groupIds.length) {
      await tx.insert(dashboardUserGroups).values(groupIds.map((g) => ({ organization_id: org, dashboard_id: id, user_group_id: g })));
    }
    return before ? (await usersWhoSee(tx, org, id)).filter((u) => !before.has(u.id)) : [];
  });
  let notice: ShareNotice | null = null;
  if (notify) {
    const [orgRow] = await ctx.db.select({ name: organizations.name }).from(organizations).where(eq(organizations.id, org)).limit(1);
    // include_thumbnail: the image drawn last (none yet for a dashboard nobody viewed: the mail goes without).
    const thumbnail =
      body.include_thumbnail && gained.length && dashboard.thumbnail_image_url
        ? await ctx.env.RESULTS.get(dashboard.thumbnail_image_url)
            .then(async (o) => (o ? new Uint8Array(await o.arrayBuffer()) : null))
            .catch(() => null)
        : null;
    const results = await sendDashboardSharedMails(ctx, gained, {
      sharer: await inviterName(ctx),
      dashboard: dashboard.name,
      organization: orgRow?.name ?? 'your organization',
      link: dashboardLink(ctx.env.APP_URL, id),
      thumbnail,
    });
    notice = {
      new_users: gained.length,
      sent: results.filter((r) => r.result.sent).length,
      not_sent: results
        .filter((r): r is { user_id: string; result: Extract<MailResult, { sent: false }> } => !r.result.sent)
        .map((r) => ({ user_id: r.user_id, reason: r.result.reason })),
    };
  }
  await audit(ctx, 'share', 'dashboards', id, {
    share_mode: body.share_mode,
    user_group_ids: groupIds,
    notify_new_users: notify,
    include_thumbnail: body.include_thumbnail ?? false,
    ...(notice ? { notified: notice.sent, new_users: notice.new_users } : {}),
  });
  return { ...(await getDashboard({ ctx, id, include: new Set() })), notice };
}
