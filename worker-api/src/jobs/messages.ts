/**
 * Messages of the job queue (D54). Each names its organization; a consumer reads and writes only that
 * organization's rows. Bodies travel with the queue's structured-clone encoding, so rows keep their Dates.
 */
import type { Principal } from '../auth/principal.ts';
import type { JobSpec } from '../resources/export-jobs/run.ts';
import type { ExecutionJob } from '../engine/job.ts';

export type JobMessage =
  /** An export file (PDF, PNG or CSV) of an export_jobs row created by the API. */
  | { kind: 'export'; organizationId: string; spec: JobSpec; principal: Principal }
  /** One due send of a schedule; `dueAt` (ISO) makes its idempotency key. */
  | { kind: 'schedule'; organizationId: string; scheduleId: string; dueAt: string }
  /** One due run of a SQL alert (claimed by the cron, which moved next_run_at on). */
  | { kind: 'alert'; organizationId: string; alertId: string }
  /** A poll of a prewarmed dashboard with its default parameters. */
  | { kind: 'prewarm'; organizationId: string; dashboardId: string }
  /** A dashboard's thumbnail, due once a day while it is viewed (resources/dashboards/thumbnails.ts). */
  | { kind: 'thumbnail'; organizationId: string; dashboardId: string }
  /** A query dropdown's SQL run for a filter on no dashboard (POST /filters/{id}/refresh). */
  | { kind: 'filter_refresh'; organizationId: string; filterId: string; job: ExecutionJob; requestId: string };

/** The key under which a schedule's send is recorded (job_sends): one due time is sent once. */
export const scheduleSendKey = (scheduleId: string, dueAt: string) => `schedule:${scheduleId}:${dueAt}`;

/** Hands messages to the queue (in batches of 100, the queue's limit). */
export async function enqueue(env: { JOBS: Queue<JobMessage> }, messages: JobMessage[]): Promise<void> {
  for (let i = 0; i < messages.length; i += 100) {
    const part = messages.slice(i, i + 100);
    if (part.length === 1) await env.JOBS.send(part[0]!);
    else await env.JOBS.sendBatch(part.map((body) => ({ body })));
  }
}
