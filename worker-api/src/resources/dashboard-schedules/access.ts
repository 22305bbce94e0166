import { and, eq, type SQL } from 'drizzle-orm';
import { ApiError, notFound } from '@cairn/core';
import { dashboards, dashboardSchedules, organizations, reports } from '@cairn/db';
import type { ServiceContext } from '../../lib/context.ts';
import type { Principal } from '../../auth/principal.ts';
import { grantScope, visibleDashboards } from '../../auth/access.ts';

/**
 * The dashboards whose schedules a caller may see. Users: the dashboards they may see. API keys: the
 * dashboards their View/Manage Schedules grants reach (every dashboard of the organization for an
 * unrestricted grant, else the dashboards it names), so a key with only schedule permissions still
 * reaches schedules.
 */
export function scheduleDashboards(p: Principal): SQL {
  if (p.kind === 'user') return visibleDashboards(p);
  return and(eq(dashboards.organization_id, p.organizationId), grantScope(p, 'view_schedules', { dashboards: dashboards.id }))!;
}

export const scheduleColumns = { schedule: dashboardSchedules, orgTimeZone: organizations.time_zone };

export async function findSchedule(ctx: ServiceContext, id: string) {
  const [row] = await ctx.db
    .select(scheduleColumns)
    .from(dashboardSchedules)
    .innerJoin(dashboards, eq(dashboards.id, dashboardSchedules.dashboard_id))
    .innerJoin(organizations, eq(organizations.id, dashboardSchedules.organization_id))
    .where(and(eq(dashboardSchedules.id, id), eq(dashboardSchedules.organization_id, ctx.principal.organizationId), scheduleDashboards(ctx.principal)))
    .limit(1);
  if (!row) throw notFound('dashboard schedule', id);
  return row;
}

/**
 * What a schedule sends: a report (which wins when both are given; its dashboard is stored too) or a
 * dashboard. Each must be in the organization and on a dashboard the caller reaches (422 otherwise).
 */
export async function resolveTarget(ctx: ServiceContext, rels: { dashboard?: string | null; report?: string | null }) {
  if (rels.report) {
    const [r] = await ctx.db
      .select({ id: reports.id, dashboard_id: reports.dashboard_id })
      .from(reports)
      .innerJoin(dashboards, eq(dashboards.id, reports.dashboard_id))
      .where(and(eq(reports.id, rels.report), eq(reports.organization_id, ctx.principal.organizationId), scheduleDashboards(ctx.principal)))
      .limit(1);
    if (!r) {
      throw new ApiError('invalid_relationship', `No report with id "${rels.report}" exists in this organization.`, {
        source: { pointer: '/data/relationships/report/data/id' },
      });
    }
    return { dashboard_id: r.dashboard_id, report_id: r.id };
  }
  if (rels.dashboard) {
    const [d] = await ctx.db
      .select({ id: dashboards.id })
      .from(dashboards)
      .where(and(eq(dashboards.id, rels.dashboard), scheduleDashboards(ctx.principal)))
      .limit(1);
    if (!d) {
      throw new ApiError('invalid_relationship', `No dashboard with id "${rels.dashboard}" exists in this organization.`, {
        source: { pointer: '/data/relationships/dashboard/data/id' },
      });
    }
    return { dashboard_id: d.id, report_id: null };
  }
  throw new ApiError('invalid_relationship', 'A schedule needs a dashboard or a report relationship.', {
    source: { pointer: '/data/relationships/dashboard' },
  });
}
