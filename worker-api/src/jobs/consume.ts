/**
 * The consumer of the job queue (D54): `queue()` of the API worker. Each message runs to its end inside
 * this invocation — the work it starts is awaited, never left to `waitUntil` — and is then acked. A
 * message whose work failed for a reason that may pass is retried (JOB_RETRY_DELAY_S, default 30 s ×
 * attempt); after max_retries (wrangler.toml) the queue moves it to the dead-letter queue, whose batches
 * come here too and record the failure on the job, so no job stays started or running.
 */
import postgres from 'postgres';
import { and, eq } from 'drizzle-orm';
import { ApiError } from '@cairn/core';
import { dashboardSchedules, dashboards, exportJobs, sqlAlerts } from '@cairn/db';
import type { Env } from '../env.ts';
import { pooledDb } from '../lib/db.ts';
import { prepareAlertRun, recordFailedStart, type AlertRow } from '../engine/alert-run.ts';
import { gateOf } from '../engine/execute.ts';
import { deliverSchedule } from '../resources/dashboard-schedules/deliver.ts';
import { runExportJob } from '../resources/export-jobs/run.ts';
import { mergeParameters, statusObject } from '../engine/dashboard-run.ts';
import { scheduleSendKey, type JobMessage } from './messages.ts';
import { renderThumbnail } from '../resources/dashboards/thumbnails.ts';
import { RenderError } from '../resources/export-jobs/renderer.ts';
import { recordFilterRefreshFailure, refreshFilterJob } from '../resources/filters/refresh-job.ts';
import { settingsOf } from '../config.ts';

/** Work a handler started and must see finished before its message is acked. */
class Pending {
  private readonly all: Promise<unknown>[] = [];
  readonly add = (p: Promise<unknown>) => void this.all.push(p.catch((err) => console.error('job: background part failed', err)));
  async settle(): Promise<void> {
    while (this.all.length) await Promise.all(this.all.splice(0));
  }
}

/** A failure worth another attempt (the queue retries the message). */
class RetryableJobError extends Error {}

function retryDelay(env: Env, attempts: number): number {
  return Math.min(settingsOf(env).jobRetryDelayS * attempts, 12 * 3600);
}

const withSql = async <T>(env: Env, fn: (sql: postgres.Sql) => Promise<T>): Promise<T> => {
  const sql = postgres(env.HYPERDRIVE.connectionString, { max: 1, fetch_types: false, onnotice: () => {}, connection: { application_name: 'cairn-jobs' } });
  try {
    return await fn(sql);
  } finally {
    if (!env.CAIRN_KEEP_CONNECTIONS) await sql.end({ timeout: 5 }).catch(() => {});
  }
};

/** Runs one message's work; throws RetryableJobError (or anything unexpected) for another attempt. */
async function runJob(env: Env, msg: JobMessage): Promise<void> {
  const pending = new Pending();
  try {
    switch (msg.kind) {
      case 'export':
        await runExportJob(env, msg.principal, msg.spec, pending.add);
        return;
      case 'schedule': {
        const db = pooledDb(env);
        const [s] = await db
          .select()
          .from(dashboardSchedules)
          .where(and(eq(dashboardSchedules.id, msg.scheduleId), eq(dashboardSchedules.organization_id, msg.organizationId)))
          .limit(1);
        if (!s || s.schedule === 'disabled' || !s.dashboard_id) return; // deleted or switched off since it was due
        const d = await deliverSchedule(env, s, pending.add, new Date(msg.dueAt), { sendKey: scheduleSendKey(s.id, msg.dueAt) });
        if (!d.sent && d.retryable) throw new RetryableJobError(d.error_message ?? 'The e-mail was not sent.');
        return;
      }
      case 'alert':
        await withSql(env, async (sql) => {
          const [alert] = await sql<AlertRow[]>`select * from sql_alerts where id = ${msg.alertId} and organization_id = ${msg.organizationId}`;
          if (!alert) return;
          try {
            const job = await prepareAlertRun(sql, env, alert, null);
            // The gate runs the query, evaluates the alert and sends its e-mail; its lease keeps the
            // execution's state truthful if this runtime dies (engine/lease.ts).
            await gateOf({ env }, job.datasourceId).run(job);
          } catch (err) {
            if (err instanceof ApiError && /already running/.test(err.message)) return;
            await recordFailedStart({ env, sql }, alert, err);
          }
        });
        return;
      case 'thumbnail':
        try {
          await renderThumbnail(env, msg.organizationId, msg.dashboardId);
        } catch (err) {
          // The renderer may be back on the next attempt.
          if (err instanceof RenderError) throw new RetryableJobError(err.message);
          throw err;
        }
        return;
      case 'filter_refresh':
        await refreshFilterJob(env, msg);
        return;
      case 'prewarm': {
        const db = pooledDb(env);
        const [d] = await db
          .select({ id: dashboards.id, default_parameters: dashboards.default_parameters })
          .from(dashboards)
          .where(and(eq(dashboards.id, msg.dashboardId), eq(dashboards.organization_id, msg.organizationId)))
          .limit(1);
        if (!d) return;
        const parameters = mergeParameters(d.default_parameters, undefined);
        const stub = await statusObject(env, d.id, parameters);
        await stub.poll({ organizationId: msg.organizationId, dashboardId: d.id, parameters, refresh: false, actor: 'system:prewarm', context: {} });
        return;
      }
    }
  } finally {
    await pending.settle();
  }
}

const DEAD_EXPORT = 'The export failed: the server gave up after several attempts. Start a new export.';

/** A message that ran out of attempts (a dead-letter delivery): its job is marked failed where it has a state to show. */
async function giveUp(env: Env, msg: JobMessage): Promise<void> {
  const db = pooledDb(env);
  switch (msg.kind) {
    case 'export':
      await db
        .update(exportJobs)
        .set({ job_status: 'error', error_message: DEAD_EXPORT, updated_at: new Date() })
        .where(and(eq(exportJobs.id, msg.spec.id), eq(exportJobs.organization_id, msg.organizationId)));
      return;
    case 'schedule': {
      const [s] = await db
        .select({ last: dashboardSchedules.last_error_message })
        .from(dashboardSchedules)
        .where(and(eq(dashboardSchedules.id, msg.scheduleId), eq(dashboardSchedules.organization_id, msg.organizationId)))
        .limit(1);
      if (!s) return;
      const why = `The e-mail due at ${msg.dueAt} was not sent: every attempt failed, and it will not be tried again.${s.last ? ` Last error: ${s.last}` : ''}`;
      await db
        .update(dashboardSchedules)
        .set({ last_error_message: why.slice(0, 2000) })
        .where(and(eq(dashboardSchedules.id, msg.scheduleId), eq(dashboardSchedules.organization_id, msg.organizationId)));
      return;
    }
    case 'alert':
      await db
        .update(sqlAlerts)
        .set({ last_result_status: 'internal_error' })
        .where(and(eq(sqlAlerts.id, msg.alertId), eq(sqlAlerts.organization_id, msg.organizationId)));
      return;
    case 'filter_refresh':
      await recordFilterRefreshFailure(env, msg, 'The refresh was given up after several attempts.');
      return;
    case 'prewarm':
    case 'thumbnail':
      console.error(`job: ${msg.kind} of dashboard ${msg.dashboardId} was given up after its retries`);
  }
}

/** The queue() handler: job messages, and the dead-letter queue's (names ending in -dlq). */
export async function queue(batch: MessageBatch<JobMessage>, env: Env, _ctx?: ExecutionContext): Promise<void> {
  const dead = batch.queue.endsWith('-dlq');
  await Promise.all(
    batch.messages.map(async (m) => {
      try {
        if (dead) await giveUp(env, m.body);
        else await runJob(env, m.body);
        m.ack();
      } catch (err) {
        console.error(`job: ${m.body?.kind} message ${m.id} (attempt ${m.attempts}) failed`, err);
        m.retry({ delaySeconds: retryDelay(env, m.attempts) });
      }
    }),
  );
}
