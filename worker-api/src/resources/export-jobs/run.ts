/**
 * Running an export job: started → running (claimed by a conditional update, so a job runs once) →
 * success with a stored file, or error with a message. Runs in the job queue's consumer (jobs/consume.ts).
 * While it runs, the job's updated_at is renewed every third of a lease (engine/lease.ts): a running job
 * whose updated_at is older than a lease lost its consumer. It is written off on read and by the cron
 * (`sweepExportJobs`) — or taken over, if the queue delivers its message again first.
 */
import { and, eq, inArray, lt, or } from 'drizzle-orm';
import { ApiError, type InputParameters } from '@cairn/core';
import type { CsvOptions } from '@cairn/core/export/index';
import { exportJobs, type dashboards, type reports } from '@cairn/db';
import type { Env } from '../../env.ts';
import { exportObjectKey } from '@cairn/core/results/object';
import type { Principal } from '../../auth/principal.ts';
import type { PooledDb } from '../../lib/db.ts';
import { backgroundContext, viewerPrincipal } from './background.ts';
import { EXPORT_FILE_TTL_MS, storeFile } from './files.ts';
import { CSV_EXPORT_ROW_LIMIT, csvOf, runReport, safeFileName } from './produce.ts';
import { RenderError, renderFile } from './renderer.ts';
import { leaseMsOf, renewEveryMs } from '../../engine/lease.ts';
import { DEFAULTS } from '../../config.ts';

export type ExportKind = 'dashboard_pdf' | 'dashboard_png' | 'report_pdf' | 'report_png' | 'report_csv';

/** A job still started (queued, never picked up) this long after it was made is written off. */
const STALE_JOB_MS = 15 * 60_000;
export const LOST_JOB_MESSAGE = 'The export was lost: the server running it stopped before it finished. Start a new export.';

export interface JobSpec {
  id: string;
  organizationId: string;
  kind: ExportKind;
  dashboard: typeof dashboards.$inferSelect;
  report: typeof reports.$inferSelect | null;
  parameters: InputParameters;
  /** PDF/PNG: colour mode and page width. */
  mode: 'light' | 'dark';
  width: number;
  /** CSV: separators and quoting; unlimited lifts the row limit. */
  csv?: CsvOptions;
  unlimited?: boolean;
}

const messageOf = (err: unknown) => (err instanceof Error && err.message ? err.message : 'The export failed.').slice(0, 2000);

/**
 * Runs the job to its end; never throws. CSV runs as `principal` (the caller, as POST /reports/{id}/data
 * does); PDF/PNG as the dashboard's viewer without a user (background.ts viewerPrincipal), the
 * principal the render token stands for.
 */
export async function runExportJob(env: Env, principal: Principal, job: JobSpec, waitUntil: (p: Promise<unknown>) => void): Promise<void> {
  const bg = backgroundContext(env, principal, waitUntil);
  const { ctx } = bg;
  const leaseMs = leaseMsOf(env);
  let heartbeat: ReturnType<typeof setInterval> | undefined;
  try {
    // Started, or running with a lapsed lease (a consumer that died; this is the queue's redelivery).
    const claimed = await ctx.db
      .update(exportJobs)
      .set({ job_status: 'running', updated_at: new Date() })
      .where(
        and(
          eq(exportJobs.id, job.id),
          eq(exportJobs.organization_id, job.organizationId),
          or(eq(exportJobs.job_status, 'started'), and(eq(exportJobs.job_status, 'running'), lt(exportJobs.updated_at, new Date(Date.now() - leaseMs)))),
        ),
      )
      .returning({ id: exportJobs.id });
    if (!claimed.length) return;
    heartbeat = setInterval(() => {
      void ctx.db
        .update(exportJobs)
        .set({ updated_at: new Date() })
        .where(and(eq(exportJobs.id, job.id), eq(exportJobs.job_status, 'running')))
        .catch(() => {});
    }, renewEveryMs(env));
    // A re-run after a lost consumer starts the file afresh: the object is written whole again (a put replaces it).
    let fileName: string;
    let contentType: string;
    let size: number;
    const sql = ctx.direct().sql;
    if (job.kind === 'report_csv') {
      const ran = await runReport(ctx, job.report!, job.dashboard, job.parameters);
      size = await storeFile(job.id, csvOf(sql, ran, job.csv, job.unlimited ? Infinity : CSV_EXPORT_ROW_LIMIT), env.RESULTS);
      fileName = `${safeFileName(job.report!.name, 'report')}.csv`;
      contentType = 'text/csv; charset=utf-8';
    } else {
      const format = job.kind.endsWith('_pdf') ? 'pdf' : 'png';
      const file = await renderFile(env, {
        organizationId: job.organizationId,
        dashboardId: job.dashboard.id,
        reportId: job.report?.id ?? null,
        parameters: job.parameters,
        mode: job.mode,
        width: job.width,
        height: job.report?.default_page_height ?? null,
        format,
      });
      size = await storeFile(job.id, [file.bytes], env.RESULTS);
      fileName = `${safeFileName(job.report?.name ?? job.dashboard.name, 'export')}${job.mode === 'dark' ? ' (dark)' : ''}.${format}`;
      contentType = file.contentType;
    }
    await ctx.db
      .update(exportJobs)
      .set({
        job_status: 'success',
        file_key: `export/${job.id}`,
        file_name: fileName,
        content_type: contentType,
        file_size: size,
        expires_at: new Date(Date.now() + EXPORT_FILE_TTL_MS),
        updated_at: new Date(),
      })
      .where(and(eq(exportJobs.id, job.id), eq(exportJobs.job_status, 'running')));
  } catch (err) {
    if (!(err instanceof ApiError) && !(err instanceof RenderError)) console.error(`export job ${job.id} failed`, err);
    await ctx.db
      .update(exportJobs)
      .set({ job_status: 'error', error_message: messageOf(err), updated_at: new Date() })
      .where(and(eq(exportJobs.id, job.id), inArray(exportJobs.job_status, ['started', 'running'])))
      .catch((e) => console.error(`export job ${job.id}: recording the error failed`, e));
  } finally {
    if (heartbeat !== undefined) clearInterval(heartbeat);
    await bg.close();
  }
}

/** Render jobs run as the dashboard's viewer (see runExportJob). */
export function principalFor(job: Pick<JobSpec, 'kind' | 'organizationId' | 'dashboard' | 'id'>, caller: Principal): Principal {
  return job.kind === 'report_csv' ? caller : viewerPrincipal(job.organizationId, job.dashboard.id, `export:${job.id}`);
}

/** Whether a job as read was lost: running without a heartbeat for a lease, or started and never picked up. */
export function jobLost(j: { job_status: string; updated_at: Date }, leaseMs: number, now = Date.now()): boolean {
  const age = now - j.updated_at.getTime();
  return (j.job_status === 'running' && age > leaseMs) || (j.job_status === 'started' && age > STALE_JOB_MS);
}

/**
 * Writes off jobs lost with their consumer (jobLost), and deletes jobs (with their files) a day after
 * their file expired. Scoped to one organization when given (on read), else all (the cron).
 */
export async function sweepExportJobs(
  db: PooledDb,
  bucket: R2Bucket,
  organizationId?: string,
  now = new Date(),
  leaseMs = DEFAULTS.executionLeaseMs,
): Promise<{ lost: number; deleted: number }> {
  const org = organizationId ? eq(exportJobs.organization_id, organizationId) : undefined;
  const lost = await db
    .update(exportJobs)
    .set({ job_status: 'error', error_message: LOST_JOB_MESSAGE, updated_at: now })
    .where(
      and(
        org,
        or(
          and(eq(exportJobs.job_status, 'running'), lt(exportJobs.updated_at, new Date(now.getTime() - leaseMs))),
          and(eq(exportJobs.job_status, 'started'), lt(exportJobs.updated_at, new Date(now.getTime() - STALE_JOB_MS))),
        ),
      ),
    )
    .returning({ id: exportJobs.id });
  if (organizationId) return { lost: lost.length, deleted: 0 };
  const dayAgo = new Date(now.getTime() - 86_400_000);
  const deleted = await db
    .delete(exportJobs)
    .where(or(lt(exportJobs.expires_at, dayAgo), and(eq(exportJobs.job_status, 'error'), lt(exportJobs.updated_at, dayAgo))))
    .returning({ id: exportJobs.id });
  // Their files in the region's bucket go too (D55; R2 deletes up to 1,000 keys at once).
  for (let i = 0; i < deleted.length; i += 1000) await bucket.delete(deleted.slice(i, i + 1000).map((d) => exportObjectKey(d.id)));
  return { lost: lost.length, deleted: deleted.length };
}
