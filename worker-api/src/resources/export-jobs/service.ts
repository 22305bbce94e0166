import { and, eq } from 'drizzle-orm';
import { ApiError, notFound, ORGANIZATION, signDataToken } from '@cairn/core';
import { exportJobs, reports } from '@cairn/db';
import type { ServiceContext } from '../../lib/context.ts';
import { actorOf, can, requirePermission } from '../../auth/principal.ts';
import { audit } from '../../lib/audit.ts';
import { findDashboard } from '../dashboards/service.ts';
import { serializeExportJob } from './serialize.ts';
import { jobLost, LOST_JOB_MESSAGE } from './run.ts';
import { leaseMsOf } from '../../engine/lease.ts';

type JobRow = typeof exportJobs.$inferSelect;

/**
 * A job of this organization whose dashboard (its own, or its report's) the caller may see. Reading
 * needs View Dashboards on that dashboard; a job on an invisible dashboard is a 404.
 */
async function findJob(ctx: ServiceContext, id: string): Promise<{ job: JobRow; dashboardId: string | null }> {
  requirePermission(ctx.principal, 'view_dashboards');
  const [row] = await ctx.db
    .select({ job: exportJobs, reportDashboard: reports.dashboard_id })
    .from(exportJobs)
    .leftJoin(reports, eq(reports.id, exportJobs.report_id))
    .where(and(eq(exportJobs.id, id), eq(exportJobs.organization_id, ctx.principal.organizationId)))
    .limit(1);
  if (!row) throw notFound('export job', id);
  const dashboardId = row.job.dashboard_id ?? row.reportDashboard;
  if (dashboardId) {
    // A job on a dashboard the caller cannot see does not exist for it (404, restricted keys included).
    try {
      await findDashboard(ctx, dashboardId);
    } catch (err) {
      if (err instanceof ApiError && err.code === 'not_found') throw notFound('export job', id);
      throw err;
    }
    requirePermission(ctx.principal, 'view_dashboards', { type: 'dashboards', id: dashboardId });
  }
  return { job: row.job, dashboardId };
}

/** A short-lived URL of the exported file on this region's data server (a data token for the file key). */
async function fileUrl(ctx: ServiceContext, j: JobRow): Promise<string | null> {
  if (j.job_status !== 'success' || !j.file_key) return null;
  if (j.expires_at && j.expires_at.getTime() <= Date.now()) return null;
  const token = await signDataToken({ kind: 'data', org: ctx.principal.organizationId, key: j.file_key, region: ctx.env.REGION }, ctx.env.DATA_TOKEN_SECRET);
  const base = (ctx.env.DATA_SERVER_URL ?? '').replace(/\/$/, '');
  return `${base}/exports/${encodeURIComponent(j.id)}?token=${encodeURIComponent(token)}`;
}

/** A job lost with its consumer (run.ts jobLost) is written off when read (the cron does the rest). */
async function writeOffIfLost(ctx: ServiceContext, j: JobRow): Promise<JobRow> {
  if (!jobLost(j, leaseMsOf(ctx.env))) return j;
  const [row] = await ctx.db
    .update(exportJobs)
    .set({ job_status: 'error', error_message: LOST_JOB_MESSAGE, updated_at: new Date() })
    .where(
      and(
        eq(exportJobs.id, j.id),
        eq(exportJobs.organization_id, j.organization_id),
        eq(exportJobs.job_status, j.job_status),
        eq(exportJobs.updated_at, j.updated_at),
      ),
    )
    .returning();
  return row ?? j;
}

export async function getExportJob({ ctx, id }: { ctx: ServiceContext; id: string }) {
  const job = await writeOffIfLost(ctx, (await findJob(ctx, id)).job);
  return { data: serializeExportJob(ctx.baseUrl, job, await fileUrl(ctx, job)) };
}

/**
 * Deletes a job (a running one is abandoned; its file, if any, is no longer handed out). Allowed with
 * Manage Dashboards on the job's dashboard, or to the key or user that started the job.
 */
export async function deleteExportJob({ ctx, id }: { ctx: ServiceContext; id: string }) {
  const { job, dashboardId } = await findJob(ctx, id);
  const manages = can(ctx.principal, 'manage_dashboards', dashboardId ? { type: 'dashboards', id: dashboardId } : ORGANIZATION);
  if (!manages && job.created_by !== actorOf(ctx.principal).actor_id) {
    throw new ApiError('forbidden', 'Deleting an export job needs Manage Dashboards on its dashboard, unless you started the job.');
  }
  await ctx.db.delete(exportJobs).where(and(eq(exportJobs.id, id), eq(exportJobs.organization_id, ctx.principal.organizationId)));
  await audit(ctx, 'delete', 'export_jobs', id);
}
