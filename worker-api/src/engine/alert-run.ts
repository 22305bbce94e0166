import type postgres from 'postgres';
import { ApiError, dialectOf, newId, type ResultField, type SnippetDefinition } from '@cairn/core';
import type { sqlAlerts } from '@cairn/db';
import type { Env } from '../env.ts';
import { createMailer, type MailMessage } from '../mail/index.ts';
import { connectorFor, type DatasourceRow } from './connectors/index.ts';
import { targetPolicy } from './target-policy.ts';
import { evaluateTrigger, mailDue, resultStatusOf, type AlertResultStatus, type EmailCondition, type TriggerCondition } from './alert-evaluate.ts';
import { alertMessage, firstRows, MAX_ATTACHMENT_RESULT_BYTES, resultAttachment } from './alert-mail.ts';
import type { ExecutionJob, ExecutionOutcome } from './job.ts';
import { compileIdentified } from './identity.ts';
import { queryJob, recordExecution } from './execution-row.ts';

export type AlertRow = typeof sqlAlerts.$inferSelect;

const UNFINISHED = ['starting', 'running', 'waiting', 'scheduled'];

/**
 * Starts a run of an alert (a manual run_query or the scheduler): compiles its SQL for the
 * datasource (no filters are selected, so conditions become TRUE; snippets work; the built-in user
 * snippets are NULL), claims the alert (`running_execution_id`; one run at a time — a second one is
 * a 422 invalid_state) and records the execution. The returned job goes to the datasource's gate,
 * which runs it and then evaluates the alert (`finishAlertRun`). A datasource that cannot run
 * queries, and SQL that does not compile, are 422s before anything is recorded.
 *
 * `sql` may be a request's client, which has drizzle's serializers: no Date or JSON parameters here.
 */
export async function prepareAlertRun(sql: postgres.Sql, env: Env, alert: AlertRow, actor: string | null): Promise<ExecutionJob> {
  const org = alert.organization_id;
  const [ds] = await sql<DatasourceRow[]>`select * from datasources where id = ${alert.datasource_id} and organization_id = ${org}`;
  if (!ds) throw new ApiError('invalid_state', "The alert's datasource no longer exists.");
  // Fails with a 422 naming what is missing (no driver for the type, a disabled datasource, an SSH tunnel…).
  await connectorFor(ds, { secretKey: env.SECRET_KEY, sampleDb: env.SAMPLE_DB, policy: targetPolicy(env) });
  const snippets = await sql<SnippetDefinition[]>`select name, text, params from sql_snippets where organization_id = ${org}`;
  const [o] = await sql<{ tz: string }[]>`select time_zone as tz from organizations where id = ${org}`;
  const { compiled, paramsHash } = await compileIdentified(ds.id, {
    sql: alert.sql_query,
    dialect: dialectOf(ds.database_type) ?? 'postgres',
    filters: [],
    parameters: {},
    dataTimeZone: ds.data_time_zone,
    timeZone: o?.tz ?? 'UTC',
    snippets: [...snippets],
    context: {},
  });
  const id = newId('execution');
  const claimed = await sql`
    update sql_alerts set running_execution_id = ${id}
     where id = ${alert.id} and organization_id = ${org}
       and (running_execution_id is null or not exists (
         select 1 from executions e where e.id = sql_alerts.running_execution_id and e.execution_status in ${sql(UNFINISHED)}))
    returning id`;
  if (!claimed.length) {
    throw new ApiError(
      'invalid_state',
      `The alert is already running (execution ${alert.running_execution_id ?? 'unknown'}); wait for it to finish or cancel it.`,
    );
  }
  try {
    await recordExecution((text, params) => sql.unsafe(text, params as never[]), {
      id,
      organizationId: org,
      datasourceId: ds.id,
      type: 'sql_alert',
      source: { sql_alert_id: alert.id },
      sql: alert.sql_query,
      parameters: {},
      paramsHash,
      createdBy: actor,
    });
  } catch (err) {
    await sql`update sql_alerts set running_execution_id = null where id = ${alert.id} and running_execution_id = ${id}`;
    throw err;
  }
  return {
    ...queryJob({ executionId: id, organizationId: org, datasourceId: ds.id, maxConcurrent: ds.max_concurrent_executions }, compiled, paramsHash),
    followUp: { kind: 'sql_alert', alertId: alert.id, sqlText: compiled.text },
  };
}

interface Evaluated {
  status: AlertResultStatus;
  detail: string | null;
  fields: ResultField[];
  preview: unknown[][];
  sizeInBytes: number;
}

async function evaluate(sql: postgres.Sql, env: Env, alert: AlertRow, outcome: ExecutionOutcome): Promise<Evaluated> {
  if (outcome.status !== 'success') {
    return { status: resultStatusOf(outcome.status), detail: outcome.errorMessage, fields: [], preview: [], sizeInBytes: 0 };
  }
  const [r] = await sql<
    { fields: ResultField[]; size: number }[]
  >`select fields, size_in_bytes::float8 as size from results where execution_id = ${outcome.executionId}`;
  const preview = outcome.rowCount > 0 ? await firstRows(sql, outcome.executionId, env.RESULTS) : [];
  const verdict = evaluateTrigger(alert.trigger_condition as TriggerCondition, alert.trigger_value, {
    rowCount: outcome.rowCount,
    firstRow: preview[0] ?? null,
  });
  return { status: verdict.status, detail: verdict.message, fields: r?.fields ?? [], preview, sizeInBytes: r?.size ?? 0 };
}

/** The message of a due e-mail, with the result attached when attach_as asks for it and the result is not too large. */
async function buildMail(
  sql: postgres.Sql,
  env: Env,
  alert: AlertRow,
  ev: Evaluated,
  rowCount: number,
  outcome: ExecutionOutcome,
  due: 'recipients' | 'errors',
): Promise<MailMessage | null> {
  const attach = due === 'recipients' && alert.attach_as && rowCount > 0 && ev.fields.length > 0;
  const tooLarge = attach && ev.sizeInBytes > MAX_ATTACHMENT_RESULT_BYTES;
  const message = alertMessage(
    {
      alert,
      status: ev.status,
      detail: ev.detail,
      rowCount,
      fields: ev.fields,
      preview: ev.preview,
      appUrl: env.APP_URL,
      attachmentNote: tooLarge ? `The result (${Math.round(ev.sizeInBytes / 1048576)} MB) is too large to attach.` : null,
    },
    due,
  );
  if (message && attach && !tooLarge) {
    message.attachments = [await resultAttachment(sql, outcome.executionId, ev.fields, alert.attach_as!, alert.name, env.RESULTS)];
  }
  return message;
}

/**
 * After the alert's execution ended (inside the gate): evaluates the trigger condition, sends the
 * e-mail the email_condition asks for (error_emails for runs that could not be evaluated), records a
 * `sql_alert_results` row and updates the alert's last_* fields and running_execution_id. An e-mail
 * that could not be sent is recorded in the result's error_message and the alert's last_error_message.
 */
export async function finishAlertRun(deps: { env: Env; sql: postgres.Sql }, job: ExecutionJob, outcome: ExecutionOutcome): Promise<void> {
  const { sql, env } = deps;
  const alertId = job.followUp!.alertId;
  const [alert] = await sql<AlertRow[]>`select * from sql_alerts where id = ${alertId} and organization_id = ${job.organizationId}`;
  if (!alert) return;
  const ev = await evaluate(sql, env, alert, outcome);
  const [previous] = await sql<{ s: 'ok' | 'alert_triggered' }[]>`
    select result_status as s from sql_alert_results
     where sql_alert_id = ${alert.id} and result_status in ('ok', 'alert_triggered') order by created_at desc, id desc limit 1`;
  const due = mailDue(ev.status, alert.email_condition as EmailCondition, previous?.s ?? null);
  let mailNote: string | null = null;
  if (due) {
    try {
      const message = await buildMail(sql, env, alert, ev, outcome.rowCount, outcome, due);
      if (message) {
        const sent = await createMailer(env).sendMail(message);
        if (!sent.sent) mailNote = `The e-mail was not sent: ${sent.reason}`;
      }
    } catch (err) {
      mailNote = `The e-mail was not sent: ${err instanceof Error ? err.message : String(err)}`;
    }
  }
  const errorMessage = [ev.status === 'ok' || ev.status === 'alert_triggered' ? null : ev.detail, mailNote].filter(Boolean).join(' — ') || null;
  const querySucceeded = outcome.status === 'success';
  const queryError = querySucceeded || outcome.status === 'cancelled' ? null : outcome.errorMessage;
  await sql.begin(async (tx) => {
    await tx`insert into sql_alert_results (id, organization_id, sql_alert_id, execution_id, result_status, error_message, sql_query, sql_query_duration)
      values (${newId('sql_alert_result')}, ${alert.organization_id}, ${alert.id}, ${outcome.executionId || null}, ${ev.status},
        ${errorMessage?.slice(0, 4000) ?? null}, ${job.followUp!.sqlText}, ${Math.round(outcome.durationMs ?? 0)})`;
    await tx`update sql_alerts set
        running_execution_id = case when running_execution_id = ${outcome.executionId} then null else running_execution_id end,
        last_result_status = ${ev.status}, last_error_message = ${errorMessage?.slice(0, 4000) ?? null}, last_query_run = now(),
        last_query_success = case when ${querySucceeded} then now() else last_query_success end,
        last_query_error_message = case when ${outcome.status === 'cancelled'} then last_query_error_message else ${queryError?.slice(0, 4000) ?? null} end
      where id = ${alert.id}`;
  });
}

/**
 * Records a scheduled run that could not even start (SQL that does not compile, a datasource that
 * cannot run queries): a result with the error, the alert's last_* fields, and the error e-mail.
 */
export async function recordFailedStart(deps: { env: Env; sql: postgres.Sql }, alert: AlertRow, err: unknown): Promise<void> {
  const e = err as { code?: string; message?: string };
  const status = e.code === 'query_error' || e.code === 'invalid_attribute' ? 'query_error' : 'internal_error';
  const job: ExecutionJob = {
    executionId: '',
    organizationId: alert.organization_id,
    datasourceId: alert.datasource_id,
    text: '',
    values: [],
    paramsHash: '',
    maxConcurrent: 1,
    sessionTimeZone: 'UTC',
    resultTimeZone: 'UTC',
    followUp: { kind: 'sql_alert', alertId: alert.id, sqlText: alert.sql_query },
  };
  await finishAlertRun(deps, job, { executionId: '', status, dataKey: null, rowCount: 0, errorMessage: e.message ?? String(err), durationMs: 0 });
}
