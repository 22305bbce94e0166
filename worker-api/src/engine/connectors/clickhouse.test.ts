import { beforeAll, describe, expect, inject, it } from 'vitest';
import { env } from 'cloudflare:test';
import { ClickhouseConnector, ConnectorError, connectorFor, executionStatusOf, type CancelHandle, type ConnectionSettings } from './index.ts';
import { targetPolicy } from '../target-policy.ts';
import { collect, failure, sleep } from '../../../test/connectors-fixtures.ts';
import { appCall, eventually, makeDatasource, roomForDatasources } from '../../../test/engine-fixtures.ts';
import { call, makeKey, makeOrg } from '../../../test/fixtures.ts';

/**
 * The ClickHouse connector against a real clickhouse-server (Debian's package, 18.16 on the test
 * machines) that vitest.clickhouse-setup.ts starts; run with `npx vitest run --config vitest.clickhouse.ts`.
 */
const port = inject('clickhousePort');
const PASSWORD = 'cairn-clickhouse-secret';
const DB = `cairn_ch_${crypto.randomUUID().slice(0, 8)}`;
const base: ConnectionSettings = { host: '127.0.0.1', port, user: 'cairn', password: PASSWORD, database: DB, requireSsl: false, verifySsl: false };
const connector = (over: Partial<ConnectionSettings> = {}) => new ClickhouseConnector({ ...base, ...over });

async function exec(sql: string): Promise<string> {
  const res = await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body: sql });
  const text = await res.text();
  if (!res.ok) throw new Error(text);
  return text;
}

const running = async (queryId: string) => (await exec(`SELECT count() FROM system.processes WHERE query_id = '${queryId}'`)).trim() !== '0';

describe.skipIf(port === 0)('ClickHouse connector (real server)', () => {
  beforeAll(async () => {
    await exec(`CREATE DATABASE ${DB}`);
    await exec(`CREATE TABLE ${DB}.types (
      id UInt32, i8 Int8, u64 UInt64, i64 Int64, f32 Float32, f64 Float64, dec Decimal(18, 4), s String, ns Nullable(String),
      fs FixedString(4), u UUID, e Enum8('red' = 1, 'green' = 2), d Date, dt DateTime, arr Array(Int32), sarr Array(String)
    ) ENGINE = MergeTree ORDER BY id`);
    await exec(`INSERT INTO ${DB}.types VALUES
      (1, -128, 18446744073709551615, 9007199254740993, 0.5, 0.1, 12345.6789, 'tab\\there "quoted" \\\\ café 😀', NULL,
       'ab', '61f0c404-5cb3-11e7-907b-a6006ad3dba0', 'green', '2024-02-29', '2024-03-05 06:07:08', [1, 2, 3], ['a', 'b']),
      (2, 0, 0, -5, 0, -2.5, -0.5, '', 'x', 'abcd', '00000000-0000-0000-0000-000000000000', 'red', '1970-01-02', '2024-01-01 00:00:00', [], [])`);
    await exec(`CREATE TABLE ${DB}.big (id UInt64, label String) ENGINE = MergeTree ORDER BY id`);
    await exec(`INSERT INTO ${DB}.big SELECT number, concat('row ', toString(number)) FROM system.numbers LIMIT 60000`);
  });

  it('maps column types to data types and values to JSON', async () => {
    const { summary, rows } = await collect(connector(), 'SELECT * FROM types ORDER BY id');
    expect(Object.fromEntries(summary.columns.map((c) => [c.name, [c.data_type, c.db_type]]))).toEqual({
      id: ['Integer', 'UInt32'],
      i8: ['Integer', 'Int8'],
      u64: ['BigInt', 'UInt64'],
      i64: ['BigInt', 'Int64'],
      f32: ['Float', 'Float32'],
      f64: ['Float', 'Float64'],
      dec: ['Float', 'Decimal(18, 4)'],
      s: ['String', 'String'],
      ns: ['String', 'Nullable(String)'],
      fs: ['String', 'FixedString(4)'],
      u: ['String', 'UUID'],
      e: ['String', "Enum8('red' = 1, 'green' = 2)"],
      d: ['Date', 'Date'],
      dt: ['DateTime', 'DateTime'],
      arr: ['Array<Integer>', 'Array(Int32)'],
      sarr: ['Other', 'Array(String)'],
    });
    expect(rows[0]).toEqual([
      1,
      -128,
      '18446744073709551615',
      '9007199254740993',
      0.5,
      0.1,
      12345.6789,
      'tab\there "quoted" \\ café 😀',
      null,
      'ab',
      '61f0c404-5cb3-11e7-907b-a6006ad3dba0',
      'green',
      '2024-02-29',
      '2024-03-05T06:07:08Z',
      [1, 2, 3],
      "['a','b']",
    ]);
    expect(rows[1]).toEqual([
      2,
      0,
      0,
      -5,
      0,
      -2.5,
      -0.5,
      '',
      'x',
      'abcd',
      '00000000-0000-0000-0000-000000000000',
      'red',
      '1970-01-02',
      '2024-01-01T00:00:00Z',
      [],
      '[]',
    ]);
    // Field statistics come from the same writer as every other database's.
    expect(summary.fields.find((f) => f.name === 'dt')).toMatchObject({ min_value: '2024-01-01T00:00:00Z', max_value: '2024-03-05T06:07:08Z', group_by: true });
  });

  it('writes NaN and infinities as null, and a statement without rows as an empty result', async () => {
    const { rows } = await collect(connector(), 'SELECT nan AS a, inf AS b, -inf AS c, 1.5 AS d');
    expect(rows).toEqual([[null, null, null, 1.5]]);
    const empty = await collect(connector(), 'SELECT id FROM types WHERE id > 100');
    expect(empty.rows).toEqual([]);
    expect(empty.summary.columns).toEqual([{ name: 'id', data_type: 'Integer', db_type: 'UInt32' }]);
  });

  it('streams a large result in several chunks', async () => {
    const { rows, chunks, summary } = await collect(connector(), "SELECT id, label, 'xxxxxxxxxxxxxxxxxxxx' AS pad FROM big ORDER BY id");
    expect(summary.rowCount).toBe(60000);
    expect(chunks.length).toBeGreaterThan(1);
    expect(rows[59999]).toEqual([59999, 'row 59999', 'x'.repeat(20)]);
  });

  it("the server's own message for a bad query; writes are refused (readonly)", async () => {
    const err = await failure(collect(connector(), 'SELEC 1'));
    expect(err).toBeInstanceOf(ConnectorError);
    expect(err).toMatchObject({ kind: 'query_error', code: 'query_error', status: 422 });
    expect(err.message).toMatch(/^Syntax error: failed at position 1/);
    expect(err.message).not.toMatch(/e\.what\(\)|Code: /);
    const write = await failure(collect(connector(), `INSERT INTO types (id) VALUES (99)`));
    expect(write).toMatchObject({ kind: 'query_error' });
    expect(write.message).toMatch(/readonly/i);
    const count = await collect(connector(), 'SELECT count() FROM types');
    expect(count.rows).toEqual([[2]]);
  });

  it("an error after the first rows were sent fails the run with the server's message", async () => {
    for (const sql of [
      'SELECT toString(number) AS s FROM system.numbers WHERE throwIf(number = 150000) = 0 LIMIT 200000',
      'SELECT number AS n, toString(number) AS s FROM system.numbers WHERE throwIf(number = 150000) = 0 LIMIT 200000',
    ]) {
      const err = await failure(collect(connector(), { text: sql, values: [] }));
      expect(err).toMatchObject({ kind: 'query_error', message: expect.stringMatching(/throwIf/) });
    }
  });

  it('refuses bound values with a clear query_error instead of splicing them', async () => {
    const err = await failure(collect(connector(), { text: 'SELECT * FROM types WHERE s = $1', values: ["x' OR 1=1 --"] }));
    expect(err).toMatchObject({ kind: 'query_error', status: 422 });
    expect(err.message).toMatch(/ClickHouse datasources cannot run queries with bound values/);
  });

  it('times out by max_execution_time', async () => {
    const started = Date.now();
    const err = await failure(collect(connector(), 'SELECT count() FROM system.numbers', { timeoutMs: 1000 }));
    expect(err).toMatchObject({ kind: 'timed_out', executionStatus: 'timed_out' });
    expect(err.message).toMatch(/statement timeout of 1 s/);
    expect(Date.now() - started).toBeLessThan(6000);
  });

  it("cancels with KILL QUERY from another connector, by the run's query_id", async () => {
    let handle: CancelHandle | null = null;
    const run = failure(collect(connector(), 'SELECT count() FROM system.numbers', { onCancelHandle: (h) => void (handle = h) }));
    await eventually(async () => handle && (await running((handle as { query_id: string }).query_id)));
    expect(handle).toMatchObject({ family: 'clickhouse', query_id: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    expect(await connector().cancel(handle!)).toBe(true);
    const err = await run;
    expect(executionStatusOf(err)).toBe('cancelled');
    await eventually(async () => !(await running((handle as unknown as { query_id: string }).query_id)));
    // A finished query: nothing to kill.
    expect(await connector().cancel(handle!)).toBe(false);
  });

  it('stops at an AbortSignal', async () => {
    const ctl = new AbortController();
    let id = '';
    const run = failure(
      collect(connector(), 'SELECT count() FROM system.numbers', {
        signal: ctl.signal,
        onCancelHandle: (h) => void (id = (h as { query_id: string }).query_id),
      }),
    );
    await eventually(async () => id && (await running(id)));
    ctl.abort();
    expect(await run).toMatchObject({ kind: 'cancelled' });
    await eventually(async () => !(await running(id)));
  });

  it("tests the connection with the server's own message", async () => {
    expect(await connector().testConnection()).toEqual({ status: 'ok', error_message: null, server_version: expect.stringMatching(/^\d+\.\d+/) });
    const wrong = await connector({ password: 'nope' }).testConnection();
    expect(wrong).toMatchObject({ status: 'error', server_version: null });
    expect(wrong.error_message).toMatch(new RegExp(`^Could not connect to 127\\.0\\.0\\.1:${port}: Wrong password for user cairn`));
    const noDb = await connector({ database: 'cairn_no_such_db' }).testConnection();
    expect(noDb.error_message).toMatch(/cairn_no_such_db/);
    const closed = await connector({ port: 1 }).testConnection();
    expect(closed).toMatchObject({ status: 'error' });
    expect(closed.error_message).toMatch(/^Could not connect to 127\.0\.0\.1:1: /);
    // Some other HTTP server (vitest.peers.ts) is not mistaken for ClickHouse.
    const other = await connector({ port: inject('httpPort') }).testConnection();
    expect(other.status).toBe('error');
    expect(other.error_message).toMatch(/not as ClickHouse's HTTP interface does/);
  });

  it('reads the schema: databases, tables, columns with data types, row counts', async () => {
    const data = await connector().schema({ name: DB, rowCounts: true });
    expect(data.schemas.map((s) => s.name)).toEqual([DB]);
    const tables = data.schemas[0]!.tables;
    expect(tables.map((t) => t.name)).toEqual(['big', 'types']);
    expect(tables[0]).toMatchObject({
      row_count: 60000,
      columns: [
        { name: 'id', db_type: 'UInt64', data_type: 'BigInt' },
        { name: 'label', db_type: 'String', data_type: 'String' },
      ],
    });
    expect(tables[1]!.columns.find((c) => c.name === 'dt')).toEqual({ name: 'dt', db_type: 'DateTime', data_type: 'DateTime' });
    expect(data).toMatchObject({ total_row_count: 60002, total_row_count_exact: true });
    // Without a name: every database but the system ones.
    const all = await connector().schema();
    expect(all.schemas.map((s) => s.name)).toContain(DB);
    expect(all.schemas.map((s) => s.name)).not.toContain('system');
  });

  it('connectorFor builds it from a datasource, with the port defaulting to 8123', async () => {
    const policy = targetPolicy(env);
    const ds = {
      name: 'CH',
      database_type: 'clickhouse' as const,
      connection_mode: 'direct' as const,
      is_sample: false,
      enabled: true,
      host: '127.0.0.1',
      port,
      username: 'default',
      password_encrypted: null,
      database: DB,
      require_ssl: false,
      verify_ssl: false,
      default_schema_name: null,
    };
    const c = await connectorFor(ds, { secretKey: env.SECRET_KEY, policy });
    expect(c).toBeInstanceOf(ClickhouseConnector);
    expect((await collect(c, 'SELECT count() AS n FROM types')).rows).toEqual([[2]]);
    const dflt = await connectorFor({ ...ds, port: null }, { secretKey: env.SECRET_KEY, policy });
    expect((await dflt.testConnection()).error_message ?? '').toMatch(/127\.0\.0\.1:8123/);
  });

  it('through the API: test_connection, an execution whose result lands like any other, a filter refused with a 422-style query error', async () => {
    const org = await makeOrg('clickhouse');
    const key = await makeKey(org.organization.id);
    await roomForDatasources(org.organization.id);
    const id = await makeDatasource(key, { database_type: 'clickhouse', host: '127.0.0.1', port, username: 'cairn', password: PASSWORD, database: DB });
    const tested = await appCall(`/datasources/${id}/test_connection`, { key, method: 'POST' });
    expect(tested.json).toMatchObject({ status: 'ok' });
    const started = await call(`/datasources/${id}/executions`, { key, method: 'POST', body: { sql_query: 'SELECT id, s FROM types ORDER BY id' } });
    expect(started.status).toBe(201);
    const done = await eventually(async () => {
      const r = await call(`/executions/${started.json.execution_id}`, { key });
      return ['success', 'query_error', 'internal_error'].includes(r.json.execution_status) && r.json;
    });
    expect(done).toMatchObject({ execution_status: 'success', result_rows: 2, result_columns: 2 });
    const data = await call(`/executions/${started.json.execution_id}/data`, { key });
    expect(data.status).toBe(200);
    expect(data.json.data_access_token).toBeTruthy();
    const filtered = await call(`/datasources/${id}/executions`, {
      key,
      method: 'POST',
      body: { sql_query: 'SELECT id FROM types WHERE {s=color}', parameters: { filters: [{ variable_name: 'color', selected_values: ['x'] }] } },
    });
    expect(filtered.status).toBe(201);
    const failed = await eventually(async () => {
      const r = await call(`/executions/${filtered.json.execution_id}`, { key });
      return r.json.execution_status !== 'running' && r.json.execution_status !== 'starting' && r.json;
    });
    expect(failed).toMatchObject({ execution_status: 'query_error', error_message: expect.stringMatching(/cannot run queries with bound values/) });
    // Another organization cannot test or run it.
    const other = await makeOrg('clickhouse-other');
    const otherKey = await makeKey(other.organization.id);
    expect((await appCall(`/datasources/${id}/test_connection`, { key: otherKey, method: 'POST' })).status).toBe(404);
  });
});

it.runIf(port === 0)('ClickHouse tests skipped (CAIRN_SKIP_CLICKHOUSE=1)', async () => {
  await sleep(0);
});

declare module 'vitest' {
  export interface ProvidedContext {
    /** The HTTP port of the clickhouse-server vitest.clickhouse-setup.ts started (0: skipped). */
    clickhousePort: number;
  }
}
