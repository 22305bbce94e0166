import postgres from 'postgres';
import type { Env } from './env.ts';
import type { AlertRow } from './engine/alert-run.ts';
import { limitsOf } from './engine/run.ts';
import { nextRunAt } from './resources/sql-alerts/schedule.ts';
import type { dashboardSchedules } from '@cairn/db';
import { nextSendAt } from './resources/dashboard-schedules/serialize.ts';
import { enqueue, type JobMessage } from './jobs/messages.ts';
import { sweepExportJobs } from './resources/export-jobs/run.ts';
import { pooledDb } from './lib/db.ts';
import { leaseMsOf, writeOffExpired } from './engine/lease.ts';
import { refreshSchemasNightly } from './engine/schema-nightly.ts';
import { claimDueThumbnails, sweepOrphanThumbnails } from './resources/dashboards/thumbnails.ts';
import { settingsOf } from './config.ts';

/** Alerts started per tick at most (the rest are due on the next tick). */
const ALERTS_PER_TICK = 50;
const PREWARM_PER_TICK = 200;
/** Thumbnails queued per tick at most (each is a browser render; the rest are due on the next tick). */
const THUMBNAILS_PER_TICK = 20;
/** Pages of a thousand thumbnail objects the hourly sweep for orphaned images walks at most. */
const THUMBNAIL_SWEEP_PAGES = 20;
const DELETE_BATCH = 1_000;
const ALERT_RESULTS_KEPT_DAYS = 30;
/** Schedules sent per tick at most (each may render images; the rest are due on the next tick). */
const SCHEDULES_PER_TICK = 20;
/** Past the guard, how long a running execution may stay unfinished before the cron writes it off. */
const WRITE_OFF_MARGIN_MS = 5 * 60_000;

export interface CronSummary {
  /** Alerts claimed this tick and handed to the job queue. */
  alertsStarted: string[];
  alertResultsDeleted: number;
  /** Audit rows older than the retention (AUDIT_LOG_KEPT_DAYS), deleted this tick. */
  auditRowsDeleted: number;
  executionsDeleted: number;
  executionsWrittenOff: number;
  dashboardsPrewarmed: string[];
  /** Schedules claimed this tick (each send is a job message). */
  schedulesSent: string[];
  exportJobsWrittenOff: number;
  exportJobsDeleted: number;
  /** Datasources whose nightly schema read was started this tick (engine/schema-nightly.ts). */
  schemasRefreshed: string[];
  /** Dashboards whose thumbnail was handed to the job queue this tick. */
  thumbnailsQueued: string[];
  /** Thumbnail images no dashboard names any more, deleted from the bucket (the tick at minute 0 only). */
  orphanThumbnailsDeleted: number;
}

/**
 * Hands the alerts whose next_run_at has passed to the job queue. Each is claimed by moving its
 * next_run_at forward first (a concurrent tick finds nothing to claim); the consumer (jobs/consume.ts)
 * starts the run on the datasource's gate, which runs it, evaluates it and sends its e-mails. An alert
 * that is still running skips that turn.
 */
async function runDueAlerts(sql: postgres.Sql, env: Env, now: Date, out: CronSummary) {
  const due = await sql<(AlertRow & { org_tz: string })[]>`
    select a.*, o.time_zone as org_tz from sql_alerts a join organizations o on o.id = a.organization_id
     where a.run_schedule <> 'disabled' and a.next_run_at is not null and a.next_run_at <= ${now} and o.region = ${env.REGION}
     order by a.next_run_at limit ${ALERTS_PER_TICK}`;
  const messages: JobMessage[] = [];
  for (const alert of due) {
    const next = nextRunAt({ run_schedule: alert.run_schedule, run_at: alert.run_at, run_every: alert.run_every }, alert.org_tz || 'UTC', now);
    const claimed = await sql`update sql_alerts set next_run_at = ${next} where id = ${alert.id} and next_run_at <= ${now} returning id`;
    if (!claimed.length) continue;
    messages.push({ kind: 'alert', organizationId: alert.organization_id, alertId: alert.id });
    out.alertsStarted.push(alert.id);
  }
  await enqueue(env, messages);
}

type ScheduleRow = typeof dashboardSchedules.$inferSelect;

/**
 * Sends the schedules whose next_send_at has passed. Each is claimed first by moving next_send_at to
 * the next send time (always after now) with a conditional update (`… and next_send_at <= now`): when
 * the crons of both regions, or two overlapping ticks, see the same due schedule, only the first update
 * matches, so one due time is sent once. The send is then a job message keyed by the schedule and its
 * due time (jobs/consume.ts): a message delivered twice finds its key in job_sends and sends nothing.
 */
async function sendDueSchedules(sql: postgres.Sql, env: Env, now: Date, out: CronSummary) {
  const due = await sql<(ScheduleRow & { org_tz: string })[]>`
    select s.*, o.time_zone as org_tz from dashboard_schedules s join organizations o on o.id = s.organization_id
     where s.schedule <> 'disabled' and s.next_send_at is not null and s.next_send_at <= ${now} and o.region = ${env.REGION}
       and s.dashboard_id is not null
     order by s.next_send_at limit ${SCHEDULES_PER_TICK}`;
  const messages: JobMessage[] = [];
  for (const s of due) {
    const next = nextSendAt(s, s.org_tz || 'UTC', now);
    // Still due: a tick (or the other region's cron) that claimed it first has moved next_send_at past now.
    const claimed = await sql`update dashboard_schedules set next_send_at = ${next} where id = ${s.id} and next_send_at <= ${now} returning id`;
    if (!claimed.length) continue;
    out.schedulesSent.push(s.id);
    messages.push({ kind: 'schedule', organizationId: s.organization_id, scheduleId: s.id, dueAt: s.next_send_at!.toISOString() });
  }
  await enqueue(env, messages);
}

/**
 * Retention: alert results after 30 days; executions (with their results and chunks) once they
 * expire (24 h); and running executions far past the guard, which no gate runs any more, and
 * unfinished ones whose lease ran out (engine/lease.ts) are written off as internal_error; audit rows
 * past their retention; and, hourly, thumbnail images that no dashboard names.
 */
async function cleanUp(sql: postgres.Sql, env: Env, now: Date, out: CronSummary) {
  const alerts = await sql`delete from sql_alert_results where created_at < ${new Date(now.getTime() - ALERT_RESULTS_KEPT_DAYS * 86_400_000)}`;
  out.alertResultsDeleted = alerts.count;
  for (;;) {
    // A result's object in the region's bucket goes with its execution (D55; in production the bucket's
    // one-day lifecycle rule would also remove it).
    const batch = await sql<{ id: string; key: string | null }[]>`
      select e.id, r.stored_object->>'key' as key from executions e left join results r on r.execution_id = e.id
       where e.expires_at < ${now} limit ${DELETE_BATCH}`;
    if (!batch.length) break;
    const keys = batch.flatMap((b) => (b.key ? [b.key] : []));
    if (keys.length) await env.RESULTS.delete(keys);
    const gone = await sql`delete from executions where id in ${sql(batch.map((b) => b.id))}`;
    out.executionsDeleted += gone.count;
    if (batch.length < DELETE_BATCH) break;
  }
  const olderThan = new Date(now.getTime() - limitsOf(env, {}).guardMs - WRITE_OFF_MARGIN_MS);
  const lost = await sql`
    update executions set execution_status = 'internal_error', completed_at = now(), updated_at = now(),
           error_message = 'The execution was lost: the server running it stopped before it finished.'
     where execution_status in ('starting', 'running') and coalesce(started_at, created_at) < ${olderThan}`;
  // Unfinished executions whose lease ran out (engine/lease.ts), even if nobody reads them.
  const expired = await writeOffExpired((text, params) => sql.unsafe(text, params as never[]), null);
  out.executionsWrittenOff = lost.count + expired.length;
  const jobs = await sweepExportJobs(pooledDb(env), env.RESULTS, undefined, now, leaseMsOf(env));
  out.exportJobsWrittenOff = jobs.lost;
  out.exportJobsDeleted = jobs.deleted;
  out.auditRowsDeleted = await expireAuditLog(sql, env, now);
  // Once an hour: images of dashboards deleted with their organization (the database cascade cannot reach the bucket).
  if (now.getUTCMinutes() === 0) out.orphanThumbnailsDeleted = await sweepOrphanThumbnails(sql, env.RESULTS, now, THUMBNAIL_SWEEP_PAGES);
}

/** Deletes audit rows past the retention, a batch at a time (a year's backlog does not hold one long lock). */
async function expireAuditLog(sql: postgres.Sql, env: Env, now: Date): Promise<number> {
  const days = settingsOf(env).auditLogKeptDays;
  if (days === 0) return 0;
  const before = new Date(now.getTime() - days * 86_400_000);
  let deleted = 0;
  for (;;) {
    const gone = await sql`delete from audit_log where id in (select id from audit_log where created_at < ${before} limit ${DELETE_BATCH})`;
    deleted += gone.count;
    if (gone.count < DELETE_BATCH) return deleted;
  }
}

/**
 * Prewarm: each dashboard with `prewarm` is polled with its default parameters, as a viewer would (a
 * job message each, jobs/consume.ts), so its status object starts the runs of reports whose data is
 * missing or stale — the first viewer then finds data. No user context: built-in user snippets are
 * NULL, as for scheduled e-mails.
 */
async function prewarm(sql: postgres.Sql, env: Env, out: CronSummary) {
  const boards = await sql<{ id: string; organization_id: string }[]>`
    select d.id, d.organization_id from dashboards d join organizations o on o.id = d.organization_id
     where d.prewarm and o.region = ${env.REGION} order by d.id limit ${PREWARM_PER_TICK}`;
  await enqueue(
    env,
    boards.map((d) => ({ kind: 'prewarm', organizationId: d.organization_id, dashboardId: d.id })),
  );
  out.dashboardsPrewarmed.push(...boards.map((d) => d.id));
}

/**
 * One tick of the scheduler (every minute). It hands work to the job queue (due alerts, due
 * schedules, prewarm, thumbnails), starts the nightly schema reads on their datasources' gates (awaited here, not
 * left to waitUntil), and deletes what expired (retention, and export jobs lost with their worker).
 * Each part runs even if another fails. Alerts and prewarm take only this region's organizations (each
 * region's deployment runs its own cron).
 */
export async function runCron(env: Env, now: Date): Promise<CronSummary> {
  const out: CronSummary = {
    alertsStarted: [],
    alertResultsDeleted: 0,
    auditRowsDeleted: 0,
    executionsDeleted: 0,
    executionsWrittenOff: 0,
    dashboardsPrewarmed: [],
    schedulesSent: [],
    exportJobsWrittenOff: 0,
    exportJobsDeleted: 0,
    schemasRefreshed: [],
    thumbnailsQueued: [],
    orphanThumbnailsDeleted: 0,
  };
  const sql = postgres(env.HYPERDRIVE.connectionString, { max: 2, fetch_types: false, onnotice: () => {}, connection: { application_name: 'cairn-cron' } });
  try {
    for (const [name, part] of [
      ['alerts', () => runDueAlerts(sql, env, now, out)],
      ['schedules', () => sendDueSchedules(sql, env, now, out)],
      ['prewarm', () => prewarm(sql, env, out)],
      [
        'thumbnails',
        async () => {
          const messages = await claimDueThumbnails(sql, env.REGION, now, THUMBNAILS_PER_TICK);
          await enqueue(env, messages);
          out.thumbnailsQueued.push(...messages.map((m) => (m as { dashboardId: string }).dashboardId));
        },
      ],
      [
        'schema refresh',
        async () => {
          const reads: Promise<unknown>[] = [];
          out.schemasRefreshed.push(...(await refreshSchemasNightly(sql, env, now, (p) => reads.push(p))));
          await Promise.allSettled(reads);
        },
      ],
      ['clean-up', () => cleanUp(sql, env, now, out)],
    ] as const) {
      await part().catch((err) => console.error(`cron: ${name} failed`, err));
    }
  } finally {
    if (!env.CAIRN_KEEP_CONNECTIONS) await sql.end({ timeout: 5 }).catch(() => {});
  }
  return out;
}

/** The Worker's scheduled handler (`[triggers] crons` in wrangler.toml). */
export async function scheduled(controller: ScheduledController, env: Env, _ctx?: ExecutionContext): Promise<void> {
  await runCron(env, new Date(controller.scheduledTime));
}
