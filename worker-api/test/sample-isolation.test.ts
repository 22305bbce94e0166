/**
 * The sample datasource reaches nothing outside the sample shop (ARCHITECTURE D32, issue 14). Its SQL
 * once ran on Cairn's metadata database behind `SET LOCAL ROLE`, which the statement itself could undo
 * (`set_config('role','none',true)`) to read every organization's users. Each escape below is tried
 * from the four places SQL reaches the sample datasource: report SQL, a filter's dropdown SQL, an
 * alert's SQL and ad hoc execution. Every one ends in an error or in nothing (no rows), and no answer
 * ever carries another organization's data.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { env } from 'cloudflare:test';
import { eq } from 'drizzle-orm';
import postgres from 'postgres';
import { executions, reports, results, sqlAlertResults } from '@cairn/db';
import { newId } from '@cairn/core';
import type { CreateOrganizationResult } from '@cairn/db/seed/organization';
import { connectorFor } from '../src/engine/connectors/index.ts';
import { collect } from './connectors-fixtures.ts';
import { appCall, eventually } from './engine-fixtures.ts';
import { db, jsonApi, makeKey, makeOrg } from './fixtures.ts';
import { targetPolicy } from '../src/engine/target-policy.ts';

/** Statements that try to leave the sample shop; `mayRun`: harmless on its own, may succeed without rows. */
const ESCAPES: { name: string; sql: string; mayRun?: boolean }[] = [
  {
    name: "set_config('role','none') + query_to_xml",
    sql: "select set_config('role','none',true) as r, query_to_xml('select email, password_hash from public.users', true, false, '') as x",
  },
  { name: "set_config('role','postgres')", sql: "select set_config('role','postgres',true) as r, (select count(*) from public.users) as n" },
  { name: 'SET ROLE postgres', sql: 'set role postgres' },
  { name: 'RESET ROLE', sql: 'reset role', mayRun: true },
  { name: 'SET SESSION AUTHORIZATION', sql: 'set session authorization postgres' },
  { name: 'query_to_xml of users', sql: "select query_to_xml('select email, password_hash from public.users', true, false, '') as x" },
  { name: 'public.users', sql: 'select email, password_hash from public.users' },
  { name: 'public.api_keys', sql: 'select key_id, secret_hash from public.api_keys' },
  { name: 'dblink', sql: "select * from dblink('dbname=postgres user=postgres', 'select email from public.users') as t(email text)" },
  { name: 'pg_read_file', sql: "select pg_read_file('/etc/passwd') as f" },
  { name: 'lo_import', sql: "select lo_import('/etc/passwd') as o" },
  { name: 'COPY TO PROGRAM', sql: "copy (select 1) to program 'id'" },
  { name: 'current_setting(data_directory)', sql: "select current_setting('data_directory') as d" },
  { name: 'current_setting(hba_file)', sql: "select current_setting('hba_file') as d" },
  { name: 'create temp table', sql: 'create temp table cairn_escape (x int)' },
  { name: 'pg_stat_activity', sql: 'select query from pg_stat_activity' },
];

let orgA: CreateOrganizationResult;
let orgB: CreateOrganizationResult;
let keyA: string;
let keyB: string;
/** Strings of organization A that must never appear in anything organization B gets back. */
let secretsOfA: string[];

beforeAll(async () => {
  orgA = await makeOrg('isolation-a');
  orgB = await makeOrg('isolation-b');
  keyA = await makeKey(orgA.organization.id);
  keyB = await makeKey(orgB.organization.id);
  secretsOfA = [orgA.admin.email, orgA.organization.id, keyA.slice(0, 24)];
});

function expectNothingOf(answer: unknown) {
  const text = JSON.stringify(answer);
  for (const s of secretsOfA) expect(text).not.toContain(s);
  expect(text).not.toMatch(/\$2[aby]\$|scrypt|root:x:0:0/);
}

async function execution(id: string) {
  return eventually(async () => {
    const [row] = await db().select().from(executions).where(eq(executions.id, id));
    return row && !['starting', 'running', 'waiting', 'scheduled'].includes(row.execution_status) ? row : undefined;
  }, 30_000);
}

/** Outcome of one run: `error` (the database refused) or the number of rows it returned. */
type Outcome = { error: string } | { rows: number };

function expectContained(name: string, outcome: Outcome, mayRun: boolean | undefined) {
  if ('error' in outcome) {
    expect(outcome.error, name).toBeTruthy();
  } else {
    expect(mayRun, `${name} ran and returned ${outcome.rows} rows`).toBe(true);
    expect(outcome.rows, name).toBe(0);
  }
}

describe('the sample datasource reaches nothing outside the sample shop', () => {
  it('ad hoc execution SQL', async () => {
    for (const e of ESCAPES) {
      const res = await appCall(`/datasources/${orgB.sampleDatasource.id}/executions`, { key: keyB, method: 'POST', body: { sql_query: e.sql } });
      expect(res.status, `${e.name}: ${JSON.stringify(res.json)}`).toBe(201);
      const row = await execution(res.json.execution_id);
      expectNothingOf(row);
      const data = await appCall(`/executions/${row.id}`, { key: keyB });
      expectNothingOf(data.json);
      expectContained(
        e.name,
        row.execution_status === 'success' ? { rows: data.json.result_rows } : { error: row.error_message ?? row.execution_status },
        e.mayRun,
      );
    }
  });

  it('report SQL', async () => {
    for (const e of ESCAPES) {
      const id = newId('report');
      await db()
        .insert(reports)
        .values({
          id,
          organization_id: orgB.organization.id,
          dashboard_id: orgB.sampleDashboard.id,
          datasource_id: orgB.sampleDatasource.id,
          name: `Escape ${e.name}`,
          sql_query: e.sql,
        });
      const res = await appCall(`/reports/${id}/data`, { key: keyB, method: 'POST' });
      expectNothingOf(res.json);
      if (res.status === 200) {
        const [stored] = await db().select().from(results).where(eq(results.data_key, res.json.data_key));
        expectContained(e.name, { rows: stored!.row_count }, e.mayRun);
      } else if (res.status === 204) {
        expectContained(e.name, { rows: 0 }, e.mayRun); // a statement without a result
      } else {
        expect(res.status, `${e.name}: ${JSON.stringify(res.json)}`).toBe(422);
        expectContained(e.name, { error: res.json.errors[0].detail }, e.mayRun);
      }
    }
  });

  it("a filter's dropdown SQL", async () => {
    for (const e of ESCAPES) {
      const f = await jsonApi(
        '/filters',
        'POST',
        {
          type: 'filters',
          attributes: {
            variable_name: `v_${crypto.randomUUID().slice(0, 8).replace(/-/g, '')}`,
            value_type: 'TEXT',
            control_type: 'dropdown',
            sql_query: e.sql,
          },
          relationships: {
            datasource: { data: { type: 'datasources', id: orgB.sampleDatasource.id } },
            dashboards: { data: [{ type: 'dashboards', id: orgB.sampleDashboard.id }] },
          },
        },
        keyB,
      );
      expect(f.status, `${e.name}: ${JSON.stringify(f.json)}`).toBe(201);
      const res = await appCall(`/filters/${f.json.data.id}/options`, { key: keyB, method: 'POST', body: { dashboard_id: orgB.sampleDashboard.id } });
      expectNothingOf(res.json);
      if (res.status === 200) {
        expectContained(e.name, { rows: res.json.options.reduce((n: number, o: { values: unknown[] }) => n + o.values.length, 0) }, e.mayRun);
      } else {
        expect(res.status, `${e.name}: ${JSON.stringify(res.json)}`).toBe(422);
        expectContained(e.name, { error: res.json.errors[0].detail }, e.mayRun);
      }
    }
  });

  it("an alert's SQL", async () => {
    for (const e of ESCAPES) {
      const created = await jsonApi(
        '/sql_alerts',
        'POST',
        {
          type: 'sql_alerts',
          attributes: { name: `Escape ${e.name}`, sql_query: e.sql, run_schedule: 'disabled', trigger_condition: 'has_results', email_condition: 'triggered' },
          relationships: { datasource: { data: { type: 'datasources', id: orgB.sampleDatasource.id } } },
        },
        keyB,
      );
      expect(created.status, `${e.name}: ${JSON.stringify(created.json)}`).toBe(201);
      const run = await appCall(`/sql_alerts/${created.json.data.id}/run_query`, { key: keyB, method: 'POST' });
      expect(run.status, `${e.name}: ${JSON.stringify(run.json)}`).toBe(200);
      const result = await eventually(async () => {
        const [r] = await db().select().from(sqlAlertResults).where(eq(sqlAlertResults.execution_id, run.json.execution_id));
        return r;
      }, 30_000);
      expectNothingOf(result);
      const row = await execution(run.json.execution_id);
      expectContained(
        e.name,
        row.execution_status === 'success' ? { rows: row.result_rows ?? 0 } : { error: row.error_message ?? row.execution_status },
        e.mayRun,
      );
    }
  });
});

describe('the sample database itself', () => {
  const sampleUrl = () => `postgres://${env.SAMPLE_DB.user}:${encodeURIComponent(env.SAMPLE_DB.password)}@${env.SAMPLE_DB.host}:${env.SAMPLE_DB.port}`;

  it('is reached as the login role cairn_sample, which cannot connect to the metadata database', async () => {
    const c = await connectorFor(
      {
        name: 'Sample data',
        database_type: 'postgres',
        connection_mode: 'direct',
        is_sample: true,
        enabled: true,
        host: null,
        port: null,
        username: null,
        password_encrypted: null,
        database: null,
        require_ssl: false,
        verify_ssl: false,
        default_schema_name: null,
      },
      { secretKey: env.SECRET_KEY, sampleDb: env.SAMPLE_DB, policy: targetPolicy(env) },
    );
    const { rows } = await collect(
      c,
      "select current_user, current_database(), current_setting('search_path'), (select rolsuper or rolcreatedb or rolcreaterole from pg_roles where rolname = current_user)",
    );
    expect(rows[0]![0]).toBe('cairn_sample');
    expect(rows[0]![1]).toBe(env.SAMPLE_DB.database);
    expect(rows[0]![2]).toBe('sample_shop');
    expect(rows[0]![3]).toBe(false);
    const metadataDb = new URL(env.HYPERDRIVE.connectionString).pathname.slice(1);
    const direct = postgres(`${sampleUrl()}/${metadataDb}`, { max: 1, fetch_types: false, onnotice: () => {}, connect_timeout: 5 });
    try {
      await expect(direct`select 1`).rejects.toThrow(/permission denied for database|CONNECT privilege/);
    } finally {
      await direct.end({ timeout: 1 });
    }
  });

  it("one organization's running sample query is not visible to another's", async () => {
    const marker = `marker_${crypto.randomUUID().slice(0, 8)}`;
    const slow = await appCall(`/datasources/${orgA.sampleDatasource.id}/executions`, {
      key: keyA,
      method: 'POST',
      body: { sql_query: `select pg_sleep(3), '${marker}' as m` },
    });
    expect(slow.status).toBe(201);
    await new Promise((r) => setTimeout(r, 500));
    for (const sql of [
      'select query from pg_stat_activity',
      'select pg_stat_get_backend_activity(b) as q from pg_stat_get_backend_idset() b',
      'select query from pg_stat_get_activity(null)',
    ]) {
      const res = await appCall(`/datasources/${orgB.sampleDatasource.id}/executions`, { key: keyB, method: 'POST', body: { sql_query: sql } });
      const row = await execution(res.json.execution_id);
      expect(row.execution_status, sql).toBe('query_error');
      expect(JSON.stringify(row)).not.toContain(marker);
    }
    expect((await execution(slow.json.execution_id)).execution_status).toBe('success');
    // The other organization's key cannot open the run either.
    expect((await appCall(`/executions/${slow.json.execution_id}`, { key: keyB })).status).toBe(404);
  });

  it("one organization's sample SQL cannot cancel or end another's running query", async () => {
    const slow = await appCall(`/datasources/${orgA.sampleDatasource.id}/executions`, {
      key: keyA,
      method: 'POST',
      body: { sql_query: 'select pg_sleep(3) as s' },
    });
    expect(slow.status).toBe(201);
    await new Promise((r) => setTimeout(r, 500));
    const others = 'from pg_stat_get_backend_idset() b where pg_stat_get_backend_pid(b) <> pg_backend_pid()';
    for (const sql of [
      `select pg_cancel_backend(pg_stat_get_backend_pid(b)) ${others}`,
      `select pg_terminate_backend(pg_stat_get_backend_pid(b)) ${others}`,
      // Cairn's own cancel function needs the run's tag, which the SQL cannot read.
      `select cairn_control.cancel_run(pg_stat_get_backend_pid(b), 'cairn-run-00000000-0000-0000-0000-000000000000') ${others}`,
      `select cairn_control.cancel_run(pg_stat_get_backend_pid(b), '') ${others}`,
    ]) {
      const res = await appCall(`/datasources/${orgB.sampleDatasource.id}/executions`, { key: keyB, method: 'POST', body: { sql_query: sql } });
      const row = await execution(res.json.execution_id);
      if (sql.includes('cancel_run')) expect(row.execution_status, sql).toMatch(/success|query_error/);
      else expect(row.execution_status, sql).toBe('query_error');
    }
    expect((await execution(slow.json.execution_id)).execution_status).toBe('success');
  });
});
