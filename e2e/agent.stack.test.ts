/**
 * Issue 17, datasource agents: a real agent process (agent/bin/cairn-agent.js) against the running stack.
 * It connects over its WebSocket, runs queries on the local PostgreSQL (127.0.0.1:5432) and MariaDB
 * (127.0.0.1:3306, root without a password) for datasources with connection_mode agent, tests their
 * connections and reads their schemas; a cancel reaches the database; killing the agent mid-query ends
 * the execution as internal_error; `connected` turns false when the process is gone and true again after a
 * restart; a wrong secret makes the agent exit non-zero. A redshift datasource (on the local Postgres) is kept
 * read-only; a vertica one is wired (no Vertica server here: a port that answers another protocol is a clear
 * error). MariaDB parts are skipped when nothing listens on 3306.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { connect } from 'node:net';
import { resolve } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, apiFetch, getStack } from './harness.ts';

const BIN = resolve(REPO_ROOT, 'agent/bin/cairn-agent.js');
const PG_URL = process.env.CAIRN_AGENT_TEST_PG ?? 'postgres://postgres:postgres@127.0.0.1:5432/postgres';
const json = { 'content-type': 'application/json' };
const attrs = (doc: any) => doc?.data?.attributes ?? doc;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const UNFINISHED = ['starting', 'running', 'waiting', 'scheduled'];

interface Agent {
  id: string;
  agent_id: string;
  secret_key: string;
}
const children = new Set<ChildProcess>();

function startAgent(a: Pick<Agent, 'agent_id' | 'secret_key'>) {
  const child = spawn(process.execPath, [BIN, '--server', getStack().regions.eu.api, '--agent', a.agent_id, '--secret', a.secret_key], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const exited = new Promise<number | null>((res) => child.on('exit', (code) => res(code)));
  children.add(child);
  exited.then(() => children.delete(child));
  return { child, exited, output: () => output };
}

async function until<T>(what: string, fn: () => Promise<T | null | undefined | false>, ms = 30_000): Promise<T> {
  const t0 = Date.now();
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() - t0 > ms) throw new Error(`timed out waiting for ${what}`);
    await sleep(200);
  }
}

const agentState = async (id: string) => attrs((await apiFetch(`/datasource_agents/${id}`)).body);

async function createDatasource(name: string, attributes: Record<string, unknown>, agentRowId: string): Promise<string> {
  const res = await apiFetch('/datasources', {
    method: 'POST',
    body: {
      data: {
        type: 'datasources',
        attributes: { name, connection_mode: 'agent', ...attributes },
        relationships: { agents: { data: [{ type: 'datasource_agents', id: agentRowId }] } },
      },
    },
  });
  expect(res.status, res.text).toBe(201);
  return (res.body as any).data.id;
}

async function start(datasource: string, sql: string): Promise<string> {
  const res = await apiFetch(`/datasources/${datasource}/executions`, { method: 'POST', body: { sql_query: sql }, headers: json });
  expect(res.status, res.text).toBe(201);
  return attrs(res.body).execution_id ?? (res.body as any).data.id;
}

async function finished(id: string, ms = 90_000) {
  return until(
    `execution ${id} to end`,
    async () => {
      const got = attrs((await apiFetch(`/executions/${id}`)).body);
      return UNFINISHED.includes(got.execution_status) ? null : got;
    },
    ms,
  );
}

async function rowsOf(id: string) {
  const handle = await apiFetch(`/executions/${id}/data`);
  expect(handle.status, handle.text).toBe(200);
  const { data_url, data_access_token } = handle.body as { data_url: string; data_access_token: string };
  const res = await fetch(data_url, { headers: { authorization: `Data ${data_access_token}` } });
  expect(res.status).toBe(200);
  return (await res.json()) as { fields: { name: string; data_type: string }[]; rows: unknown[][] };
}

const mariadbUp = await new Promise<boolean>((ok) => {
  const s = connect(3306, '127.0.0.1', () => (s.end(), ok(true)));
  s.on('error', () => ok(false));
});

let agent: Agent;
let running: ReturnType<typeof startAgent>;
let pgDs: string;
const made: string[] = [];

beforeAll(async () => {
  const res = await apiFetch('/datasource_agents', {
    method: 'POST',
    body: { data: { type: 'datasource_agents', attributes: { name: `e2e agent ${Date.now()}` } } },
  });
  expect(res.status, res.text).toBe(201);
  agent = { id: (res.body as any).data.id, ...attrs(res.body) };
  expect(agent.secret_key.length).toBeGreaterThan(30);
  running = startAgent(agent);
  await until('the agent to connect', async () => (await agentState(agent.id)).connected, 90_000) // the agent's own start (tsx) takes tens of seconds on a loaded machine
    .catch((err) => {
      throw new Error(`${err.message}; agent output: ${running.output()}`);
    });
  pgDs = await createDatasource(
    `agent pg ${Date.now()}`,
    {
      database_type: 'postgres',
      host: '127.0.0.1',
      port: 5432,
      username: 'postgres',
      password: 'postgres',
      database: 'postgres',
    },
    agent.id,
  );
  made.push(pgDs);
});

afterAll(async () => {
  for (const id of made) await apiFetch(`/datasources/${id}`, { method: 'DELETE' });
  if (agent) await apiFetch(`/datasource_agents/${agent.id}`, { method: 'DELETE' });
  for (const c of children) c.kill('SIGKILL');
});

describe('a datasource agent', () => {
  it('reports itself connected with its version and address', async () => {
    const a = await agentState(agent.id);
    expect(a).toMatchObject({ connected: true, version: '0.1.0', active_queries: 0 });
    expect(a.address).toEqual(expect.any(String));
    expect(a).not.toHaveProperty('secret_key');
  });

  it('runs a Postgres query, streaming many chunks through the window, into an ordinary result', async () => {
    const id = await start(
      pgDs,
      "select g as n, 'row ' || g as label, timestamptz '2024-05-06 07:08:09+00' + g * interval '1 second' as at from generate_series(1, 40000) g",
    );
    const done = await finished(id);
    expect(done.execution_status, done.error_message).toBe('success');
    const data = await rowsOf(id);
    expect(data.fields.map((f) => [f.name, f.data_type])).toEqual([
      ['n', 'Integer'],
      ['label', 'String'],
      ['at', 'DateTime'],
    ]);
    expect(data.rows.length).toBe(40000);
    expect(data.rows[0]).toEqual([1, 'row 1', '2024-05-06T07:08:10Z']);
    expect(data.rows[39999]![0]).toBe(40000);
  });

  it('answers test_connection and reads the schema through the agent', async () => {
    const ok = await apiFetch(`/datasources/${pgDs}/test_connection`, { method: 'POST' });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body).toMatchObject({ status: 'ok', error_message: null });
    const bad = await apiFetch('/datasources/test_connection', {
      method: 'POST',
      body: {
        data: {
          type: 'datasources',
          attributes: { name: 'x', database_type: 'postgres', connection_mode: 'agent', host: '127.0.0.1', port: 1, username: 'postgres' },
          relationships: { agents: { data: [{ type: 'datasource_agents', id: agent.id }] } },
        },
      },
    });
    expect(bad.status, bad.text).toBe(200);
    expect(bad.body).toMatchObject({ status: 'error', error_message: expect.stringMatching(/127\.0\.0\.1:1.*agent/) });
    const refresh = await apiFetch(`/datasources/${pgDs}/refresh`, { method: 'POST' });
    expect(refresh.status, refresh.text).toBeLessThan(300);
    const done = await finished((refresh.body as any).execution_id);
    expect(done.execution_status, done.error_message).toBe('success');
    const ds = attrs((await apiFetch(`/datasources/${pgDs}`)).body);
    expect(ds.schema_updated_at).toEqual(expect.any(String));
  });

  it.skipIf(!mariadbUp)('runs a MariaDB query through the agent', async () => {
    const ds = await createDatasource(`agent mariadb ${Date.now()}`, { database_type: 'mariadb', host: '127.0.0.1', port: 3306, username: 'root' }, agent.id);
    made.push(ds);
    const id = await start(ds, "select 7 as n, 'seven' as s, cast('2024-01-02 03:04:05' as datetime) as d, 1.50 as price");
    const done = await finished(id);
    expect(done.execution_status, done.error_message).toBe('success');
    const data = await rowsOf(id);
    expect(data.fields.map((f) => f.data_type)).toEqual(['Integer', 'String', 'DateTime', 'Float']);
    expect(data.rows).toEqual([[7, 'seven', '2024-01-02T03:04:05Z', 1.5]]);
    const test = await apiFetch(`/datasources/${ds}/test_connection`, { method: 'POST' });
    expect(test.body).toMatchObject({ status: 'ok' });
  });

  it('keeps Redshift read-only like a direct Redshift datasource (a redshift datasource on the local Postgres)', async () => {
    const rs = await createDatasource(
      `agent redshift ${Date.now()}`,
      {
        database_type: 'redshift',
        host: '127.0.0.1',
        port: 5432,
        username: 'postgres',
        password: 'postgres',
        database: 'postgres',
      },
      agent.id,
    );
    made.push(rs);
    const table = `cairn_agent_ro_${Date.now()}`;
    const write = await finished(await start(rs, `create table ${table} (a int)`));
    expect(write).toMatchObject({ execution_status: 'query_error', error_message: expect.stringMatching(/read-only transaction/) });
    // One statement only: leaving the transaction with `commit; …` is refused by the protocol.
    const escaped = await finished(await start(rs, `commit; create table ${table} (a int)`));
    expect(escaped.execution_status).toBe('query_error');
    const db = new pg.Client({ connectionString: PG_URL });
    await db.connect();
    try {
      expect((await db.query('select to_regclass($1) as t', [table])).rows[0].t).toBeNull();
    } finally {
      await db.end();
    }
    const read = await finished(await start(rs, 'select 1 as one'));
    expect(read.execution_status, read.error_message).toBe('success');
  });

  it('wires Vertica through vertica-nodejs: a port that does not speak its protocol is a clear error, and the agent stays up', async () => {
    const v = await createDatasource(`agent vertica ${Date.now()}`, { database_type: 'vertica', host: '127.0.0.1', port: 5432, username: 'dbadmin' }, agent.id);
    made.push(v);
    const test = await apiFetch(`/datasources/${v}/test_connection`, { method: 'POST' });
    expect(test.status, test.text).toBe(200);
    expect(test.body).toMatchObject({ status: 'error', error_message: expect.stringMatching(/127\.0\.0\.1:5432 \(from the agent\).*Vertica's protocol/) });
    expect((await agentState(agent.id)).connected).toBe(true);
    const again = await finished(await start(pgDs, 'select 1 as one'));
    expect(again.execution_status).toBe('success');
  });

  it('cancels the statement in the database', async () => {
    const marker = `cancel_${Date.now()}`;
    const id = await start(pgDs, `select pg_sleep(30) as ${marker}`);
    const db = new pg.Client({ connectionString: PG_URL });
    await db.connect();
    try {
      const active = () =>
        db
          .query("select count(*)::int as n from pg_stat_activity where state = 'active' and query like $1", [`%${marker}%`])
          .then((r) => r.rows[0].n as number);
      await until('the query to run in Postgres', async () => (await active()) > 0);
      expect((await agentState(agent.id)).active_queries).toBe(1);
      const t0 = Date.now();
      expect((await apiFetch(`/executions/${id}/cancel`, { method: 'POST' })).status).toBeLessThan(300);
      const done = await finished(id);
      expect(done.execution_status).toBe('cancelled');
      await until('the statement to leave Postgres', async () => (await active()) === 0, 5_000);
      expect(Date.now() - t0).toBeLessThan(5_000);
    } finally {
      await db.end();
    }
  });

  it('ends a query as internal_error when the agent dies mid-query, shows it disconnected, and connected again after a restart', async () => {
    const id = await start(pgDs, 'select pg_sleep(6)');
    await until('the query to run', async () => attrs((await apiFetch(`/executions/${id}`)).body).execution_status === 'running');
    await sleep(300);
    running.child.kill('SIGKILL');
    await running.exited;
    const done = await finished(id, 15_000);
    expect(done.execution_status).toBe('internal_error');
    expect(done.error_message).toMatch(/agent .*disconnected while the query was running/);
    await until('connected to turn false', async () => (await agentState(agent.id)).connected === false, 30_000);

    running = startAgent(agent);
    await until('connected to turn true again', async () => (await agentState(agent.id)).connected, 90_000);
    const again = await finished(await start(pgDs, 'select 1 as one'));
    expect(again.execution_status).toBe('success');
  });

  it('refuses a wrong secret: the agent says so and exits non-zero', async () => {
    const wrong = startAgent({ agent_id: agent.agent_id, secret_key: 'x'.repeat(48) });
    const code = await Promise.race([wrong.exited, sleep(90_000).then(() => 'still running')]);
    expect(code, wrong.output()).toBe(1);
    expect(wrong.output()).toMatch(/refused the agent \(401\).*secret key is wrong/);
  });

  it('a deleted agent is disconnected and its process exits', async () => {
    for (const id of made.splice(0)) expect((await apiFetch(`/datasources/${id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await apiFetch(`/datasource_agents/${agent.id}`, { method: 'DELETE' })).status).toBe(204);
    const code = await Promise.race([running.exited, sleep(10_000).then(() => 'still running')]);
    expect(code, running.output()).toBe(1);
    agent = undefined as never;
  });
});
