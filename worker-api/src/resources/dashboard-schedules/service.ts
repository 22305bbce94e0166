import { and, asc, count, eq } from 'drizzle-orm';
import { ApiError, newId, type ResourceObject } from '@cairn/core';
import { dashboards, dashboardSchedules, organizations } from '@cairn/db';
import type { ServiceContext } from '../../lib/context.ts';
import type { ResourceBody } from '../../lib/resource-body.ts';
import { canAny, requirePermission } from '../../auth/principal.ts';
import { audit, changed } from '../../lib/audit.ts';
import { offsetOf, type ListQuery } from '../../lib/jsonapi.ts';
import { listOrder, nameFilter, type ListSpec } from '../../lib/list.ts';
import { linked, loadDashboards, loadReports } from '../../lib/include.ts';
import { throwAll } from '../../lib/problems.ts';
import { findSchedule, resolveTarget, scheduleColumns, scheduleDashboards } from './access.ts';
import type { scheduleBody } from './schema.ts';
import { nextSendAt, serializeSchedule } from './serialize.ts';
import { attachAs, collect, recipients, scheduleString, timeZone } from './validate.ts';
import { deliverSchedule } from './deliver.ts';
import { checkParameterNames } from '../../engine/parameter-names.ts';

type Body = ResourceBody<typeof scheduleBody.attributes.shape>;
type Page = ListQuery;

/** filter[name] and sort of GET /dashboard_schedules. */
export const SCHEDULE_LIST: ListSpec = {
  name: [dashboardSchedules.name],
  sorts: { name: dashboardSchedules.name, created_at: dashboardSchedules.created_at, updated_at: dashboardSchedules.updated_at },
  order: [asc(dashboardSchedules.created_at)],
  id: dashboardSchedules.id,
};

/** Including the dashboard or the report shows their contents, so it needs View Dashboards too. */
function requireIncludePermissions(ctx: ServiceContext, include: Set<string>) {
  for (const name of include) {
    if (!canAny(ctx.principal, ['view_dashboards', 'manage_dashboards'])) {
      throw new ApiError('forbidden', `Including ${name} needs View Dashboards or Manage Dashboards.`, { source: { parameter: 'include' } });
    }
  }
}

async function included(ctx: ServiceContext, data: ResourceObject[], include: Set<string>) {
  const parts = await Promise.all([
    include.has('dashboard') ? loadDashboards(ctx, linked(data, 'dashboard')) : [],
    include.has('report') ? loadReports(ctx, linked(data, 'report')) : [],
  ]);
  return parts.flat();
}

export async function listSchedules({ ctx, page, include }: { ctx: ServiceContext; page: Page; include: Set<string> }) {
  requirePermission(ctx.principal, 'view_schedules');
  requireIncludePermissions(ctx, include);
  const where = and(eq(dashboardSchedules.organization_id, ctx.principal.organizationId), scheduleDashboards(ctx.principal), nameFilter(SCHEDULE_LIST, page));
  const from = () =>
    ctx.db
      .select(scheduleColumns)
      .from(dashboardSchedules)
      .innerJoin(dashboards, eq(dashboards.id, dashboardSchedules.dashboard_id))
      .innerJoin(organizations, eq(organizations.id, dashboardSchedules.organization_id));
  const [rows, [total]] = await Promise.all([
    from()
      .where(where)
      .orderBy(...listOrder(SCHEDULE_LIST, page))
      .limit(page.size)
      .offset(offsetOf(page)),
    ctx.db.select({ n: count() }).from(dashboardSchedules).innerJoin(dashboards, eq(dashboards.id, dashboardSchedules.dashboard_id)).where(where),
  ]);
  const data = rows.map((r) => serializeSchedule(ctx.baseUrl, r.schedule, r.orgTimeZone));
  return { data, included: include.size ? await included(ctx, data, include) : [], total: total?.n ?? 0 };
}

export async function getSchedule({ ctx, id, include }: { ctx: ServiceContext; id: string; include: Set<string> }) {
  requirePermission(ctx.principal, 'view_schedules');
  requireIncludePermissions(ctx, include);
  const row = await findSchedule(ctx, id);
  requirePermission(ctx.principal, 'view_schedules', { type: 'dashboards', id: row.schedule.dashboard_id! });
  const data = serializeSchedule(ctx.baseUrl, row.schedule, row.orgTimeZone);
  return { data, included: include.size ? await included(ctx, [data], include) : [] };
}

/** Validates and normalizes the attributes sent (every problem reported together). */
function checkAttributes(a: Body['attributes']) {
  const checks: [string, () => unknown][] = [];
  if (a.emails !== undefined) checks.push(['emails', () => recipients(a.emails!, 'emails', true)]);
  if (a.cc_emails !== undefined) checks.push(['cc_emails', () => recipients(a.cc_emails!, 'cc_emails', false)]);
  if (a.bcc_emails !== undefined) checks.push(['bcc_emails', () => recipients(a.bcc_emails!, 'bcc_emails', false)]);
  if (a.attach_as !== undefined) checks.push(['attach_as', () => attachAs(a.attach_as!)]);
  if (a.schedule !== undefined) checks.push(['schedule', () => scheduleString(a.schedule!)]);
  if (a.time_zone !== undefined) checks.push(['time_zone', () => timeZone(a.time_zone!)]);
  const { values, problems } = collect(checks);
  throwAll(problems);
  return { ...a, ...values };
}

async function orgTimeZone(ctx: ServiceContext) {
  const [o] = await ctx.db.select({ tz: organizations.time_zone }).from(organizations).where(eq(organizations.id, ctx.principal.organizationId));
  return o?.tz ?? 'UTC';
}

export async function createSchedule({ ctx, input: body }: { ctx: ServiceContext; input: Body }) {
  requirePermission(ctx.principal, 'manage_schedules');
  const attributes = checkAttributes(body.attributes);
  const target = await resolveTarget(ctx, body.relationships as { dashboard?: string | null; report?: string | null });
  requirePermission(ctx.principal, 'manage_schedules', { type: 'dashboards', id: target.dashboard_id });
  await checkParameterNames(ctx, {
    dashboardId: target.dashboard_id,
    parameters: attributes.parameters,
    pointer: '/data/attributes/parameters',
    allReports: true,
  });
  const id = newId('dashboard_schedule');
  const next = nextSendAt({ schedule: attributes.schedule!, time_zone: attributes.time_zone ?? null }, await orgTimeZone(ctx));
  await ctx.db.insert(dashboardSchedules).values({
    ...attributes,
    ...target,
    id,
    organization_id: ctx.principal.organizationId,
    name: attributes.name!,
    emails: attributes.emails!,
    attach_as: attributes.attach_as!,
    schedule: attributes.schedule!,
    created_by_user_id: ctx.principal.kind === 'user' ? ctx.principal.userId : null,
    next_send_at: next,
  });
  await audit(ctx, 'create', 'dashboard_schedules', id, changed(body.attributes, body.relationships));
  return getSchedule({ ctx, id, include: new Set() });
}

/**
 * PATCH: only the attributes sent change. Relationships: a report sent moves the schedule to that
 * report (and its dashboard); a dashboard sent alone makes it send that whole dashboard (the report
 * is cleared); report null alone keeps the dashboard and stops sending the report.
 */
export async function updateSchedule({ ctx, id, input: body }: { ctx: ServiceContext; id: string; input: Body }) {
  requirePermission(ctx.principal, 'manage_schedules');
  const current = await findSchedule(ctx, id);
  requirePermission(ctx.principal, 'manage_schedules', { type: 'dashboards', id: current.schedule.dashboard_id! });
  const attributes = checkAttributes(body.attributes);
  const rels = body.relationships as { dashboard?: string | null; report?: string | null };
  let target: { dashboard_id: string; report_id: string | null } | null = null;
  if (rels.report || rels.dashboard) target = await resolveTarget(ctx, rels);
  else if (rels.dashboard === null && rels.report !== undefined) target = await resolveTarget(ctx, rels);
  else if (rels.dashboard === null)
    throw new ApiError('invalid_relationship', 'A schedule needs a dashboard or a report relationship.', {
      source: { pointer: '/data/relationships/dashboard' },
    });
  else if (rels.report === null) target = { dashboard_id: current.schedule.dashboard_id!, report_id: null };
  if (target) requirePermission(ctx.principal, 'manage_schedules', { type: 'dashboards', id: target.dashboard_id });
  // The parameters as they will be sent (new or kept) must name the filters of the dashboard they will be sent with.
  if (attributes.parameters !== undefined || target) {
    await checkParameterNames(ctx, {
      dashboardId: target?.dashboard_id ?? current.schedule.dashboard_id!,
      pointer: '/data/attributes/parameters',
      allReports: true,
      parameters: attributes.parameters !== undefined ? attributes.parameters : current.schedule.parameters,
    });
  }
  const timing =
    attributes.schedule !== undefined || attributes.time_zone !== undefined
      ? {
          next_send_at: nextSendAt(
            {
              schedule: attributes.schedule ?? current.schedule.schedule,
              time_zone: attributes.time_zone !== undefined ? attributes.time_zone : current.schedule.time_zone,
            },
            current.orgTimeZone,
          ),
        }
      : {};
  // Only the attributes sent are written, so concurrent updates of different fields both survive.
  await ctx.db
    .update(dashboardSchedules)
    .set({ ...attributes, ...(target ?? {}), ...timing, updated_at: new Date() })
    .where(and(eq(dashboardSchedules.id, id), eq(dashboardSchedules.organization_id, ctx.principal.organizationId)));
  await audit(ctx, 'update', 'dashboard_schedules', id, changed(body.attributes, body.relationships));
  return getSchedule({ ctx, id, include: new Set() });
}

export async function deleteSchedule({ ctx, id }: { ctx: ServiceContext; id: string }) {
  requirePermission(ctx.principal, 'manage_schedules');
  const current = await findSchedule(ctx, id);
  requirePermission(ctx.principal, 'manage_schedules', { type: 'dashboards', id: current.schedule.dashboard_id! });
  await ctx.db.delete(dashboardSchedules).where(and(eq(dashboardSchedules.id, id), eq(dashboardSchedules.organization_id, ctx.principal.organizationId)));
  await audit(ctx, 'delete', 'dashboard_schedules', id);
}

/**
 * send_now: builds and sends the schedule's e-mail now (deliver.ts) and answers the delivery; the
 * regular cadence (next_send_at) is left alone. Audited as `send_now` with the outcome.
 */
export async function sendScheduleNow({ ctx, id }: { ctx: ServiceContext; id: string }) {
  requirePermission(ctx.principal, 'manage_schedules');
  const current = await findSchedule(ctx, id);
  requirePermission(ctx.principal, 'manage_schedules', { type: 'dashboards', id: current.schedule.dashboard_id! });
  const delivery = await deliverSchedule(ctx.env, current.schedule, ctx.waitUntil);
  await audit(ctx, 'send_now', 'dashboard_schedules', id, {
    sent: delivery.sent,
    ...(delivery.error_message ? { error_message: delivery.error_message } : {}),
  });
  if (!delivery.sent) {
    throw new ApiError('invalid_state', `The e-mail of this schedule was not sent: ${delivery.error_message ?? 'unknown reason'}`, {
      meta: { reason: delivery.error_message },
    });
  }
  return {
    status: 'sent' as const,
    dashboard_schedule_id: id,
    sent_at: delivery.sent_at!,
    recipients: delivery.recipients,
    attachments: delivery.attachments,
    problems: delivery.problems,
  };
}
