import { beforeAll, describe, expect, it } from 'vitest';
import { createExecutionContext, env, waitOnExecutionContext } from 'cloudflare:test';
import { and, eq, inArray } from 'drizzle-orm';
import { newId } from '@cairn/core';
import { auditLog, dashboards, executions, resultChunks, results, sqlAlertResults, sqlAlerts } from '@cairn/db';
import worker from './index.ts';
import { runCron } from './cron.ts';
import { readSettings } from './config.ts';
import type { Env } from './env.ts';
import { call, db, jsonApi, makeKey, makeOrg } from '../test/fixtures.ts';
import { eventually, makeDatasource, roomForDatasources } from '../test/engine-fixtures.ts';
import type { CreateOrganizationResult } from '@cairn/db/seed/organization';

let org: CreateOrganizationResult;
let key: string;

/** One tick of the scheduler, as the runtime calls it (it only enqueues: the queue's consumer runs the work). */
async function tick(at = new Date()) {
  const ctx = createExecutionContext();
  const controller = { scheduledTime: at.getTime(), cron: '* * * * *', noRetry() {} } as ScheduledController;
  await worker.scheduled(controller, env, ctx);
  await waitOnExecutionContext(ctx);
}

async function makeAlert(attributes: Record<string, unknown>, datasource = org.sampleDatasource.id) {
  const res = await jsonApi(
    '/sql_alerts',
    'POST',
    {
      type: 'sql_alerts',
      attributes: {
        name: `Cron ${crypto.randomUUID().slice(0, 6)}`,
        trigger_condition: 'has_results',
        email_condition: 'triggered',
        sql_query: 'select 1',
        ...attributes,
      },
      relationships: { datasource: { data: { type: 'datasources', id: datasource } } },
    },
    key,
  );
  expect(res.status, JSON.stringify(res.json)).toBe(201);
  return res.json.data.id as string;
}
const alertRow = async (id: string) => (await db().select().from(sqlAlerts).where(eq(sqlAlerts.id, id)))[0]!;
const resultsOf = (id: string) => db().select().from(sqlAlertResults).where(eq(sqlAlertResults.sql_alert_id, id));

beforeAll(async () => {
  org = await makeOrg('cron');
  key = await makeKey(org.organization.id);
  await roomForDatasources(org.organization.id);
});

describe('scheduled: SQL alerts', () => {
  it('runs alerts whose next_run_at has passed and moves next_run_at on; others wait', async () => {
    const every = await makeAlert({ run_schedule: 'every', run_every: 15 });
    const at = await makeAlert({ run_schedule: 'at', run_at: '03:00' });
    const notYet = await makeAlert({ run_schedule: 'every', run_every: 15 });
    const disabled = await makeAlert({ run_schedule: 'disabled' });
    expect((await alertRow(every)).next_run_at!.getTime()).toBeGreaterThan(Date.now());
    const past = new Date(Date.now() - 60_000);
    await db()
      .update(sqlAlerts)
      .set({ next_run_at: past })
      .where(inArray(sqlAlerts.id, [every, at, disabled]));
    const now = new Date();
    await tick(now);
    // next_run_at moved on at the tick; the runs come from the job queue's consumer.
    expect((await alertRow(every)).next_run_at!.getTime()).toBeGreaterThan(now.getTime());
    for (const id of [every, at])
      await eventually(
        async () => (await alertRow(id)).last_result_status === 'alert_triggered' && (await alertRow(id)).running_execution_id === null,
        20_000,
        100,
      );
    expect((await resultsOf(every)).map((r) => r.result_status)).toEqual(['alert_triggered']);
    expect((await resultsOf(at)).map((r) => r.result_status)).toEqual(['alert_triggered']);
    expect(await resultsOf(notYet)).toEqual([]);
    expect(await resultsOf(disabled)).toEqual([]);
    const e = await alertRow(every);
    expect(Math.abs(e.next_run_at!.getTime() - (now.getTime() + 15 * 60_000))).toBeLessThan(1_000);
    expect(e).toMatchObject({ last_result_status: 'alert_triggered', running_execution_id: null });
    const a = await alertRow(at);
    expect(a.next_run_at!.getTime()).toBeGreaterThan(now.getTime());
    expect(a.next_run_at!.getTime() - now.getTime()).toBeLessThanOrEqual(86_400_000);
    // The next tick finds nothing due.
    await tick();
    await new Promise((r) => setTimeout(r, 2_000));
    expect(await resultsOf(every)).toHaveLength(1);
  });

  it('an alert that cannot start is recorded as an internal_error result', async () => {
    const ds = await makeDatasource(key, { database_type: 'mongodb', host: 'mongo.example.test', username: 'u', password: 'p' });
    const id = await makeAlert({ run_schedule: 'every', run_every: 60, error_emails: 'dev@example.test' }, ds);
    await db()
      .update(sqlAlerts)
      .set({ next_run_at: new Date(Date.now() - 1_000) })
      .where(eq(sqlAlerts.id, id));
    await tick();
    const [r] = await eventually(
      async () => {
        const rows = await resultsOf(id);
        return rows.length ? rows : null;
      },
      20_000,
      100,
    );
    expect(r).toMatchObject({ result_status: 'internal_error', execution_id: null });
    expect(r!.error_message).toContain('"mongodb"');
    expect(r!.error_message).toMatch(/The e-mail was not sent/);
    expect((await alertRow(id)).last_result_status).toBe('internal_error');
  });
});

describe('scheduled: retention', () => {
  it('deletes alert results after 30 days and executions (with results and chunks) once expired', async () => {
    const alert = await makeAlert({ run_schedule: 'disabled' });
    const old = newId('sql_alert_result');
    const recent = newId('sql_alert_result');
    await db()
      .insert(sqlAlertResults)
      .values([
        { id: old, organization_id: org.organization.id, sql_alert_id: alert, result_status: 'ok', created_at: new Date(Date.now() - 31 * 86_400_000) },
        { id: recent, organization_id: org.organization.id, sql_alert_id: alert, result_status: 'ok', created_at: new Date(Date.now() - 29 * 86_400_000) },
      ]);
    const expired = newId('execution');
    const live = newId('execution');
    for (const [id, expires] of [
      [expired, new Date(Date.now() - 1_000)],
      [live, new Date(Date.now() + 3_600_000)],
    ] as const) {
      await db().insert(executions).values({
        id,
        organization_id: org.organization.id,
        datasource_id: org.sampleDatasource.id,
        execution_type: 'sql_query',
        execution_status: 'success',
        sql_query: 'select 1',
        expires_at: expires,
      });
      await db()
        .insert(results)
        .values({
          execution_id: id,
          organization_id: org.organization.id,
          data_key: `eu/${org.organization.id}/${id}/x`,
          fields: [],
          row_count: 1,
          size_in_bytes: 3,
          data_timestamp: new Date(),
          expires_at: expires,
        });
      await db()
        .insert(resultChunks)
        .values({ execution_id: id, seq: 0, rows: 1, data: new TextEncoder().encode('[1]') });
    }
    await tick();
    expect((await resultsOf(alert)).map((r) => r.id)).toEqual([recent]);
    const left = await db()
      .select({ id: executions.id })
      .from(executions)
      .where(inArray(executions.id, [expired, live]));
    expect(left.map((r) => r.id)).toEqual([live]);
    expect(await db().select().from(resultChunks).where(eq(resultChunks.execution_id, expired))).toEqual([]);
    expect(await db().select().from(results).where(eq(results.execution_id, expired))).toEqual([]);
  });

  it('deletes audit rows past the retention (365 days unless AUDIT_LOG_KEPT_DAYS says otherwise; 0 keeps all)', async () => {
    const day = 86_400_000;
    const rowAged = async (days: number) =>
      (
        await db()
          .insert(auditLog)
          .values({
            organization_id: org.organization.id,
            actor_type: 'user',
            actor_id: null,
            action: 'update',
            resource_type: 'dashboards',
            resource_id: `aged-${days}`,
            created_at: new Date(Date.now() - days * day),
          })
          .returning({ id: auditLog.id })
      )[0]!.id;
    const left = async (ids: number[]) => (await db().select({ id: auditLog.id }).from(auditLog).where(inArray(auditLog.id, ids))).map((r) => r.id).sort();
    const [old, kept, recent] = [await rowAged(400), await rowAged(40), await rowAged(1)];
    // Kept forever with 0.
    expect((await runCron({ ...(env as unknown as Env), AUDIT_LOG_KEPT_DAYS: '0' }, new Date())).auditRowsDeleted).toBe(0);
    expect(await left([old, kept, recent])).toEqual([old, kept, recent].sort());
    // The default year.
    await tick();
    expect(await left([old, kept, recent])).toEqual([kept, recent].sort());
    // An operator's 30 days.
    expect((await runCron({ ...(env as unknown as Env), AUDIT_LOG_KEPT_DAYS: '30' }, new Date())).auditRowsDeleted).toBeGreaterThanOrEqual(1);
    expect(await left([kept, recent])).toEqual([recent]);
    // A value that is not a whole number of days keeps the default.
    for (const bad of ['-1', '2.5', 'a year']) {
      const read = readSettings({ AUDIT_LOG_KEPT_DAYS: bad });
      expect(read.settings.auditLogKeptDays).toBe(365);
      expect(read.problems).toEqual([expect.stringContaining('AUDIT_LOG_KEPT_DAYS')]);
    }
    expect(readSettings({}).settings.auditLogKeptDays).toBe(365);
  });

  it('writes off running executions far past the guard (no gate runs them any more)', async () => {
    const lost = newId('execution');
    const young = newId('execution');
    const long = new Date(Date.now() - 20 * 60_000);
    await db()
      .insert(executions)
      .values([
        {
          id: lost,
          organization_id: org.organization.id,
          datasource_id: org.sampleDatasource.id,
          execution_type: 'sql_query',
          execution_status: 'running',
          sql_query: 'select 1',
          started_at: long,
          created_at: long,
          expires_at: new Date(Date.now() + 3_600_000),
        },
        {
          id: young,
          organization_id: org.organization.id,
          datasource_id: org.sampleDatasource.id,
          execution_type: 'sql_query',
          execution_status: 'running',
          sql_query: 'select 1',
          started_at: new Date(),
          expires_at: new Date(Date.now() + 3_600_000),
        },
      ]);
    await tick();
    const rows = await db()
      .select()
      .from(executions)
      .where(inArray(executions.id, [lost, young]));
    expect(rows.find((r) => r.id === lost)!.execution_status).toBe('internal_error');
    expect(rows.find((r) => r.id === young)!.execution_status).toBe('running');
  });
});

describe('scheduled: prewarm', () => {
  it('refreshes prewarm dashboards with their default parameters before anyone looks', async () => {
    const dash = org.sampleDashboard;
    await db().update(dashboards).set({ prewarm: true }).where(eq(dashboards.id, dash.id));
    await tick();
    const reportIds = dash.reports.map((r) => r.id);
    const runs = await eventually(
      async () => {
        const rows = await db()
          .select()
          .from(executions)
          .where(and(eq(executions.organization_id, org.organization.id), inArray(executions.report_id, reportIds)));
        return rows.length >= reportIds.length && rows.every((r) => r.execution_status === 'success') && rows;
      },
      60_000,
      250,
    );
    expect(new Set(runs.map((r) => r.report_id))).toEqual(new Set(reportIds));
    expect(runs.every((r) => r.created_by === 'system:prewarm')).toBe(true);
    // The first viewer finds the data: no new execution, data at once.
    const first = await call(`/dashboards/${dash.id}/status`, { key, method: 'POST', body: {} });
    expect(first.status).toBe(200);
    for (const r of first.json.reports) {
      expect(r.result_status).not.toBe('running');
      expect(runs.map((x) => x.id)).toContain(r.execution_id);
    }
    await db().update(dashboards).set({ prewarm: false }).where(eq(dashboards.id, dash.id));
  }, 90_000);
});
