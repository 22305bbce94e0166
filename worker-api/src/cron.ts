import postgres from 'postgres';
import { ApiError, type InputParameters } from '@cairn/core';
import type { Env } from './env.ts';
import { prepareAlertRun, recordFailedStart, type AlertRow } from './engine/alert-run.ts';
import { limitsOf } from './engine/run.ts';
import { gateOf } from './engine/execute.ts';
import { nextRunAt } from './resources/sql-alerts/schedule.ts';
import { mergeParameters, statusObject } from './resources/dashboard-status/service.ts';
import type { dashboardSchedules } from '@cairn/db';
import { nextSendAt } from './resources/dashboard-schedules/serialize.ts';
import { deliverSchedule } from './resources/dashboard-schedules/deliver.ts';
import { sweepExportJobs } from './resources/export-jobs/run.ts';
import { pooledDb } from './lib/db.ts';
import { writeOffExpired } from './engine/lease.ts';

/** Alerts started per tick at most (the rest are due on the next tick). */
const ALERTS_PER_TICK = 50;
const PREWARM_PER_TICK = 200;
const DELETE_BATCH = 1_000;
const ALERT_RESULTS_KEPT_DAYS = 30;
/** Schedules sent per tick at most (each may render images; the rest are due on the next tick). */
const SCHEDULES_PER_TICK = 20;
/** Past the guard, how long a running execution may stay unfinished before the cron writes it off. */
const WRITE_OFF_MARGIN_MS = 5 * 60_000;

export interface CronSummary {
  alertsStarted: string[];
  alertsFailed: string[];
  alertResultsDeleted: number;
  executionsDeleted: number;
  executionsWrittenOff: number;
  dashboardsPrewarmed: string[];
  /** Schedules claimed this tick (their e-mails are sent in the background). */
  schedulesSent: string[];
  exportJobsWrittenOff: number;
  exportJobsDeleted: number;
}

type Work = (p: Promise<unknown>) => void;

/**
 * Starts the alerts whose next_run_at has passed. Each is claimed by moving its next_run_at forward
 * first (a concurrent tick finds nothing to claim), then handed to its datasource's gate, which runs
 * it, evaluates it and sends its e-mails. An alert that is still running skips this turn.
 */
async function runDueAlerts(sql: postgres.Sql, env: Env, now: Date, work: Work, out: CronSummary) {
  const due = await sql<(AlertRow & { org_tz: string })[]>`
    select a.*, o.time_zone as org_tz from sql_alerts a join organizations o on o.id = a.organization_id
     where a.run_schedule <> 'disabled' and a.next_run_at is not null and a.next_run_at <= ${now} and o.region = ${env.REGION}
     order by a.next_run_at limit ${ALERTS_PER_TICK}`;
  for (const alert of due) {
    const next = nextRunAt({ run_schedule: alert.run_schedule, run_at: alert.run_at, run_every: alert.run_every }, alert.org_tz || 'UTC', now);
    const claimed = await sql`update sql_alerts set next_run_at = ${next} where id = ${alert.id} and next_run_at <= ${now} returning id`;
    if (!claimed.length) continue;
    try {
      const job = await prepareAlertRun(sql, env, alert, null);
      work(gateOf({ env }, job.datasourceId).run(job).catch((err) => console.error(`cron: alert ${alert.id} failed`, err)));
      out.alertsStarted.push(alert.id);
    } catch (err) {
      if (err instanceof ApiError && /already running/.test(err.message)) continue;
      out.alertsFailed.push(alert.id);
      await recordFailedStart({ env, sql }, alert, err).catch((e) => console.error(`cron: recording alert ${alert.id} failed`, e));
    }
  }
}

type ScheduleRow = typeof dashboardSchedules.$inferSelect;

/**
 * Sends the schedules whose next_send_at has passed. Each is claimed first by moving next_send_at to
 * the next send time (always after now) with a conditional update (`… and next_send_at <= now`): when
 * the crons of both regions, or two overlapping ticks, see the same due schedule, only the first update
 * matches, so one due time is sent once. The e-mail is then built and sent in the background (deliver.ts).
 */
async function sendDueSchedules(sql: postgres.Sql, env: Env, now: Date, work: Work, out: CronSummary) {
  const due = await sql<(ScheduleRow & { org_tz: string })[]>`
    select s.*, o.time_zone as org_tz from dashboard_schedules s join organizations o on o.id = s.organization_id
     where s.schedule <> 'disabled' and s.next_send_at is not null and s.next_send_at <= ${now} and o.region = ${env.REGION}
       and s.dashboard_id is not null
     order by s.next_send_at limit ${SCHEDULES_PER_TICK}`;
  for (const s of due) {
    const next = nextSendAt(s, s.org_tz || 'UTC', now);
    // Still due: a tick (or the other region's cron) that claimed it first has moved next_send_at past now.
    const claimed = await sql`update dashboard_schedules set next_send_at = ${next} where id = ${s.id} and next_send_at <= ${now} returning id`;
    if (!claimed.length) continue;
    out.schedulesSent.push(s.id);
    work(deliverSchedule(env, s, work, now).then((d) => {
      if (!d.sent) console.error(`cron: schedule ${s.id} was not sent: ${d.error_message}`);
    }));
  }
}

/**
 * Retention: alert results after 30 days; executions (with their results and chunks) once they
 * expire (24 h); and running executions far past the guard, which no gate runs any more, and
 * unfinished ones whose lease ran out (engine/lease.ts) are written off as internal_error.
 */
async function cleanUp(sql: postgres.Sql, env: Env, now: Date, out: CronSummary) {
  const alerts = await sql`delete from sql_alert_results where created_at < ${new Date(now.getTime() - ALERT_RESULTS_KEPT_DAYS * 86_400_000)}`;
  out.alertResultsDeleted = alerts.count;
  for (;;) {
    const gone = await sql`delete from executions where id in (select id from executions where expires_at < ${now} limit ${DELETE_BATCH})`;
    out.executionsDeleted += gone.count;
    if (gone.count < DELETE_BATCH) break;
  }
  const olderThan = new Date(now.getTime() - limitsOf(env, {}).guardMs - WRITE_OFF_MARGIN_MS);
  const lost = await sql`
    update executions set execution_status = 'internal_error', completed_at = now(), updated_at = now(),
           error_message = 'The execution was lost: the server running it stopped before it finished.'
     where execution_status in ('starting', 'running') and coalesce(started_at, created_at) < ${olderThan}`;
  // Unfinished executions whose lease ran out (engine/lease.ts), even if nobody reads them.
  const expired = await writeOffExpired((text, params) => sql.unsafe(text, params as never[]), null);
  out.executionsWrittenOff = lost.count + expired.length;
  const jobs = await sweepExportJobs(pooledDb(env), undefined, now);
  out.exportJobsWrittenOff = jobs.lost;
  out.exportJobsDeleted = jobs.deleted;
}

/**
 * Prewarm: each dashboard with `prewarm` is polled with its default parameters, as a viewer would,
 * so its status object starts the runs of reports whose data is missing or stale — the first viewer
 * then finds data. No user context: built-in user snippets are NULL, as for scheduled e-mails.
 */
async function prewarm(sql: postgres.Sql, env: Env, out: CronSummary) {
  const boards = await sql<{ id: string; organization_id: string; default_parameters: InputParameters | null }[]>`
    select d.id, d.organization_id, d.default_parameters from dashboards d join organizations o on o.id = d.organization_id
     where d.prewarm and o.region = ${env.REGION} order by d.id limit ${PREWARM_PER_TICK}`;
  await Promise.all(boards.map(async (d) => {
    const parameters = mergeParameters(d.default_parameters, undefined);
    try {
      const stub = await statusObject(env, d.id, parameters);
      await stub.poll({ organizationId: d.organization_id, dashboardId: d.id, parameters, refresh: false, actor: 'system:prewarm', context: {} });
      out.dashboardsPrewarmed.push(d.id);
    } catch (err) {
      console.error(`cron: prewarming dashboard ${d.id} failed`, err);
    }
  }));
}

/**
 * One tick of the scheduler (every minute): due alerts, due schedules, prewarm, retention (and export
 * jobs lost with their worker). Each part runs even if
 * another fails. Alerts and prewarm take only this region's organizations (each region's deployment
 * runs its own cron; locally both regions share one database).
 */
export async function runCron(env: Env, now: Date, work: Work): Promise<CronSummary> {
  const out: CronSummary = { alertsStarted: [], alertsFailed: [], alertResultsDeleted: 0, executionsDeleted: 0, executionsWrittenOff: 0, dashboardsPrewarmed: [],
    schedulesSent: [], exportJobsWrittenOff: 0, exportJobsDeleted: 0 };
  const sql = postgres(env.HYPERDRIVE.connectionString, { max: 2, fetch_types: false, onnotice: () => {}, connection: { application_name: 'cairn-cron' } });
  try {
    for (const [name, part] of [
      ['alerts', () => runDueAlerts(sql, env, now, work, out)],
      ['schedules', () => sendDueSchedules(sql, env, now, work, out)],
      ['prewarm', () => prewarm(sql, env, out)],
      ['clean-up', () => cleanUp(sql, env, now, out)],
    ] as const) {
      await part().catch((err) => console.error(`cron: ${name} failed`, err));
    }
  } finally {
    if (!env.CAIRN_KEEP_CONNECTIONS) work(sql.end({ timeout: 5 }));
  }
  return out;
}

/** The Worker's scheduled handler (`[triggers] crons` in wrangler.toml). */
export async function scheduled(controller: ScheduledController, env: Env, ctx: ExecutionContext): Promise<void> {
  await runCron(env, new Date(controller.scheduledTime), (p) => ctx.waitUntil(p));
}
