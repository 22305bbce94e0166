import { beforeAll, describe, expect, it } from 'vitest';
import { env } from 'cloudflare:test';
import postgres from 'postgres';
import { desc, eq } from 'drizzle-orm';
import { sqlAlertResults, sqlAlerts } from '@cairn/db';
import { call, db, jsonApi, makeKey, makeOrg, makeRawKey, only } from '../../../test/fixtures.ts';
import { appCall, eventually, makeDatasource, roomForDatasources } from '../../../test/engine-fixtures.ts';
import { evaluateTrigger, mailDue } from '../../engine/alert-evaluate.ts';
import { resultAttachment } from '../../engine/alert-mail.ts';
import type { CreateOrganizationResult } from '@cairn/db/seed/organization';
import { datasourceGateStub } from '../../durable/stubs.ts';

let org: CreateOrganizationResult;
let key: string;
const NOT_SENT = /The e-mail was not sent: no mail server is configured/;

async function makeAlert(attributes: Record<string, unknown>, datasource = org.sampleDatasource.id) {
  const res = await jsonApi(
    '/sql_alerts',
    'POST',
    {
      type: 'sql_alerts',
      attributes: {
        name: `Alert ${crypto.randomUUID().slice(0, 6)}`,
        run_schedule: 'disabled',
        trigger_condition: 'has_results',
        email_condition: 'triggered',
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

/** Runs the alert now and waits for its result to be recorded. */
async function runAlert(id: string) {
  const res = await appCall(`/sql_alerts/${id}/run_query`, { key, method: 'POST' });
  expect(res.status, JSON.stringify(res.json)).toBe(200);
  const executionId = res.json.execution_id as string;
  const result = await eventually(async () => {
    const [r] = await db().select().from(sqlAlertResults).where(eq(sqlAlertResults.execution_id, executionId));
    return r;
  }, 30_000);
  return { executionId, result, alert: await alertRow(id) };
}

beforeAll(async () => {
  org = await makeOrg('alert-runs');
  key = await makeKey(org.organization.id);
  await roomForDatasources(org.organization.id);
});

describe('POST /sql_alerts/{id}/run_query: trigger conditions', () => {
  const cases: [string, Record<string, unknown>, string, string][] = [
    ['has_results with rows', { trigger_condition: 'has_results' }, 'select 1 as x', 'alert_triggered'],
    ['has_results without rows', { trigger_condition: 'has_results' }, 'select 1 as x where false', 'ok'],
    ['no_results without rows', { trigger_condition: 'no_results' }, 'select 1 as x where false', 'alert_triggered'],
    ['no_results with rows', { trigger_condition: 'no_results' }, 'select 1 as x', 'ok'],
    ['greater_than, above', { trigger_condition: 'greater_than', trigger_value: 5 }, 'select 10', 'alert_triggered'],
    ['greater_than, equal', { trigger_condition: 'greater_than', trigger_value: 5 }, 'select 5', 'ok'],
    ['lower_than, below (a numeric value)', { trigger_condition: 'lower_than', trigger_value: 5 }, 'select 2.5::numeric', 'alert_triggered'],
    ['lower_than, above', { trigger_condition: 'lower_than', trigger_value: 5 }, 'select 7', 'ok'],
    ['equal, same (a bigint count)', { trigger_condition: 'equal', trigger_value: 3 }, 'select count(*) from (values (1), (2), (3)) v(x)', 'alert_triggered'],
    ['equal, different', { trigger_condition: 'equal', trigger_value: 3 }, 'select 4', 'ok'],
    ['not_equal, different', { trigger_condition: 'not_equal', trigger_value: 3 }, 'select 4', 'alert_triggered'],
    ['not_equal, same', { trigger_condition: 'not_equal', trigger_value: 3 }, 'select 3', 'ok'],
    ['a comparison over several rows', { trigger_condition: 'greater_than', trigger_value: 1 }, 'select * from (values (1), (2)) v(x)', 'alert_error'],
    ['a comparison over two columns', { trigger_condition: 'greater_than', trigger_value: 1 }, 'select 1, 2', 'alert_error'],
    ['a comparison with text', { trigger_condition: 'greater_than', trigger_value: 1 }, "select 'many'", 'alert_error'],
    ['a comparison without rows', { trigger_condition: 'equal', trigger_value: 0 }, 'select 1 where false', 'alert_error'],
  ];
  for (const [name, attrs, sqlText, expected] of cases) {
    it(name, async () => {
      const id = await makeAlert({ ...attrs, sql_query: sqlText });
      const { result, alert } = await runAlert(id);
      expect(result.result_status).toBe(expected);
      expect(alert).toMatchObject({ last_result_status: expected, running_execution_id: null });
      expect(alert.last_query_run).toBeInstanceOf(Date);
      expect(alert.last_query_success).toBeInstanceOf(Date);
      if (expected === 'alert_error') expect(result.error_message).toMatch(/row|column|number/);
    });
  }

  it("a query error is recorded with the database's message, duration and SQL", async () => {
    const id = await makeAlert({ sql_query: 'select nope from nowhere' });
    const { result, alert } = await runAlert(id);
    expect(result.result_status).toBe('query_error');
    expect(result.error_message).toMatch(/nowhere/);
    expect(result.sql_query).toBe('select nope from nowhere');
    expect(result.sql_query_duration).toBeGreaterThanOrEqual(0);
    expect(alert).toMatchObject({ last_result_status: 'query_error', last_query_success: null });
    expect(alert.last_query_error_message).toMatch(/nowhere/);
    // The results call shows it (with Include SQL Details, the SQL and the duration too).
    const listed = await call(`/sql_alerts/${id}/results`, { key });
    expect(listed.json.items[0]).toMatchObject({ result_status: 'query_error', sql_query: 'select nope from nowhere' });
  });

  it("snippets are expanded in the alert's SQL", async () => {
    const snippet = await jsonApi(
      '/sql_snippets',
      'POST',
      { type: 'sql_snippets', attributes: { name: `many_${crypto.randomUUID().slice(0, 6).replace(/-/g, '')}`, text: 'select 100' } },
      key,
    );
    expect(snippet.status, JSON.stringify(snippet.json)).toBe(201);
    const id = await makeAlert({ trigger_condition: 'greater_than', trigger_value: 50, sql_query: `[${snippet.json.data.attributes.name}]` });
    const { result } = await runAlert(id);
    expect(result.result_status).toBe('alert_triggered');
    expect(result.sql_query).toBe('select 100');
  });
});

describe('e-mail conditions (no SMTP server in the test pool: the recorded outcome says the e-mail was not sent)', () => {
  it('triggered: e-mails only triggered runs', async () => {
    const id = await makeAlert({ email_condition: 'triggered', emails: 'ops@example.test', sql_query: 'select 1 where false' });
    expect((await runAlert(id)).result.error_message).toBeNull();
    await db().update(sqlAlerts).set({ sql_query: 'select 1' }).where(eq(sqlAlerts.id, id));
    const { result, alert } = await runAlert(id);
    expect(result.result_status).toBe('alert_triggered');
    expect(result.error_message).toMatch(NOT_SENT);
    expect(alert.last_error_message).toMatch(NOT_SENT);
  });

  it('changed: e-mails when the status changes (the first trigger, and back to ok)', async () => {
    const id = await makeAlert({ email_condition: 'changed', emails: 'ops@example.test', sql_query: 'select 1 where false' });
    const set = (q: string) => db().update(sqlAlerts).set({ sql_query: q }).where(eq(sqlAlerts.id, id));
    expect((await runAlert(id)).result.error_message).toBeNull(); // ok, nothing before: no news
    await set('select 1');
    expect((await runAlert(id)).result.error_message).toMatch(NOT_SENT); // triggered: news
    expect((await runAlert(id)).result.error_message).toBeNull(); // still triggered
    await set('select nope');
    expect((await runAlert(id)).result.result_status).toBe('query_error'); // errors go to error_emails (none here)
    await set('select 1 where false');
    expect((await runAlert(id)).result.error_message).toMatch(NOT_SENT); // back to ok: news
  });

  it('all: e-mails every evaluated run', async () => {
    const id = await makeAlert({ email_condition: 'all', emails: 'ops@example.test', cc_emails: 'lead@example.test', sql_query: 'select 1 where false' });
    const { result } = await runAlert(id);
    expect(result.result_status).toBe('ok');
    expect(result.error_message).toMatch(NOT_SENT);
  });

  it('errors go to error_emails; nobody to tell means nothing to send', async () => {
    const withErrors = await makeAlert({ email_condition: 'triggered', error_emails: 'dev@example.test', sql_query: 'select nope' });
    const a = await runAlert(withErrors);
    expect(a.result.result_status).toBe('query_error');
    expect(a.result.error_message).toMatch(/nope/);
    expect(a.result.error_message).toMatch(NOT_SENT);
    const nobody = await makeAlert({ email_condition: 'all', sql_query: 'select 1' });
    expect((await runAlert(nobody)).result.error_message).toBeNull();
  });

  it('the result is attached as CSV or Excel', async () => {
    const id = await makeAlert({
      email_condition: 'triggered',
      emails: 'ops@example.test',
      attach_as: 'csv',
      sql_query: "select 1 as n, 'a;b' as t union all select 2, 'c\"d'",
    });
    const { executionId, result } = await runAlert(id);
    expect(result.error_message).toMatch(NOT_SENT);
    const sql = postgres(env.HYPERDRIVE.connectionString, { max: 1, fetch_types: false });
    const [r] = await sql<{ fields: any[] }[]>`select fields from results where execution_id = ${executionId}`;
    const csv = await resultAttachment(sql, executionId, r!.fields, 'csv', 'My alert', env.RESULTS);
    expect(csv.filename).toBe('My alert.csv');
    expect(new TextDecoder().decode(csv.content as Uint8Array).replace(/^\uFEFF/, '')).toBe('n,t\r\n1,a;b\r\n2,"c""d"\r\n');
    const xlsx = await resultAttachment(sql, executionId, r!.fields, 'excel', 'My alert', env.RESULTS);
    expect(xlsx.filename).toBe('My alert.xlsx');
    expect([...(xlsx.content as Uint8Array).slice(0, 2)]).toEqual([0x50, 0x4b]); // a zip
  });

  it('mail decisions (pure)', () => {
    expect(mailDue('alert_triggered', 'triggered', null)).toBe('recipients');
    expect(mailDue('ok', 'triggered', 'alert_triggered')).toBeNull();
    expect(mailDue('ok', 'changed', null)).toBeNull();
    expect(mailDue('alert_triggered', 'changed', null)).toBe('recipients');
    expect(mailDue('alert_triggered', 'changed', 'alert_triggered')).toBeNull();
    expect(mailDue('ok', 'changed', 'alert_triggered')).toBe('recipients');
    expect(mailDue('ok', 'all', 'ok')).toBe('recipients');
    expect(mailDue('alert_error', 'all', 'ok')).toBe('errors');
    expect(mailDue('internal_timeout', 'triggered', null)).toBe('errors');
    expect(mailDue('cancelled', 'all', null)).toBeNull();
    expect(evaluateTrigger('greater_than', 1.5, { rowCount: 1, firstRow: ['2'] }).status).toBe('alert_triggered');
    expect(evaluateTrigger('not_equal', 0, { rowCount: 1, firstRow: [null] }).status).toBe('alert_error');
  });
});

describe('runs, cancellation and access', () => {
  it('one run at a time; cancelling the execution records a cancelled result', async () => {
    const id = await makeAlert({ sql_query: 'select pg_sleep(30)' });
    const first = await appCall(`/sql_alerts/${id}/run_query`, { key, method: 'POST' });
    expect(first.status).toBe(200);
    expect((await alertRow(id)).running_execution_id).toBe(first.json.execution_id);
    const second = await appCall(`/sql_alerts/${id}/run_query`, { key, method: 'POST' });
    expect(second.status).toBe(422);
    expect(second.json.errors[0].code).toBe('invalid_state');
    await eventually(async () => (await call(`/executions/${first.json.execution_id}`, { key })).json.execution_status === 'running');
    expect((await call(`/executions/${first.json.execution_id}/cancel`, { key, method: 'POST' })).status).toBe(204);
    const result = await eventually(async () => (await db().select().from(sqlAlertResults).where(eq(sqlAlertResults.sql_alert_id, id)))[0]);
    expect(result.result_status).toBe('cancelled');
    expect((await alertRow(id)).running_execution_id).toBeNull();
  });

  it('the statement timeout is internal_timeout for the alert', async () => {
    const id = await makeAlert({ sql_query: 'select 1' });
    // The gate's follow-up turns timed_out into internal_timeout; run the job with a short timeout directly.
    const { prepareAlertRun } = await import('../../engine/alert-run.ts');
    const sql = postgres(env.HYPERDRIVE.connectionString, { max: 1, fetch_types: false });
    await db().update(sqlAlerts).set({ sql_query: 'select pg_sleep(5)' }).where(eq(sqlAlerts.id, id));
    const job = await prepareAlertRun(sql, env, await alertRow(id), null);
    const gate = datasourceGateStub(env, job.datasourceId);
    expect((await gate.run({ ...job, timeoutMs: 300 })).status).toBe('timed_out');
    const [result] = await db().select().from(sqlAlertResults).where(eq(sqlAlertResults.sql_alert_id, id)).orderBy(desc(sqlAlertResults.created_at));
    expect(result!.result_status).toBe('internal_timeout');
  });

  it('a datasource type without a driver is a 422 naming it', async () => {
    const ds = await makeDatasource(key, { database_type: 'mongodb', host: 'mongo.example.test', username: 'u', password: 'p' });
    const id = await makeAlert({ sql_query: 'select 1' }, ds);
    const res = await appCall(`/sql_alerts/${id}/run_query`, { key, method: 'POST' });
    expect(res.status).toBe(422);
    expect(res.json.errors[0]).toMatchObject({ code: 'invalid_state' });
    expect(res.json.errors[0].detail).toContain('"mongodb"');
    expect((await alertRow(id)).running_execution_id).toBeNull();
  });

  it('needs Manage Alerts reaching the alert and its datasource; another organization gets 404', async () => {
    const id = await makeAlert({ sql_query: 'select 1' });
    const viewOnly = await makeKey(org.organization.id, only('view_alerts', 'view_datasources'));
    expect((await appCall(`/sql_alerts/${id}/run_query`, { key: viewOnly, method: 'POST' })).status).toBe(403);
    // Manage Alerts restricted to another alert or datasource: this alert is invisible to the key, so it is
    // not found (404 before 403, ARCHITECTURE D44); with View Alerts reaching it, the refusal is a 403.
    const otherAlert = await makeRawKey(org.organization.id, [{ permission: 'manage_alerts', resources: [{ type: 'sql_alerts', id: 'alr_other' }] }]);
    expect((await appCall(`/sql_alerts/${id}/run_query`, { key: otherAlert, method: 'POST' })).status).toBe(404);
    const otherDs = await makeRawKey(org.organization.id, [{ permission: 'manage_alerts', resources: [{ type: 'datasources', id: 'dsr_other' }] }]);
    expect((await appCall(`/sql_alerts/${id}/run_query`, { key: otherDs, method: 'POST' })).status).toBe(404);
    const sees = await makeRawKey(org.organization.id, [
      { permission: 'view_alerts', resources: null },
      { permission: 'manage_alerts', resources: [{ type: 'datasources', id: 'dsr_other' }] },
    ]);
    const refused = await appCall(`/sql_alerts/${id}/run_query`, { key: sees, method: 'POST' });
    expect(refused.status).toBe(403);
    expect(refused.json.errors[0].detail).toContain(id);
    const mine = await makeRawKey(org.organization.id, [{ permission: 'manage_alerts', resources: [{ type: 'sql_alerts', id }] }]);
    expect((await appCall(`/sql_alerts/${id}/run_query`, { key: mine, method: 'POST' })).status).toBe(200);
    const other = await makeOrg('alert-runs-other');
    expect((await appCall(`/sql_alerts/${id}/run_query`, { key: await makeKey(other.organization.id), method: 'POST' })).status).toBe(404);
  });
});
