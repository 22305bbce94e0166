/**
 * Compiled SQL run for real on MariaDB (127.0.0.1:3306, root; MYSQL_HOST / MYSQL_PORT to override)
 * through mysql2: server-side prepared statements (execute) and client-side escaping (query). Ranges
 * and buckets across DST without the server's time zone tables, cross-checked against Postgres' time
 * zone database; every value type; snippets; injection payloads as plain values.
 */
import mysql from 'mysql2/promise';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AGGREGATIONS, compileSql, type CompileOptions } from '../src/index.ts';
import { BERLIN_BUCKETS, BUCKET_SAMPLES_UTC, PAYLOADS, UTC_BUCKETS, filter, pick, unix } from './sql-helpers.ts';

const DB = `cairn_compile_test_${process.pid}`;
let conn: mysql.Connection;

beforeAll(async () => {
  conn = await mysql.createConnection({
    host: process.env.MYSQL_HOST ?? '127.0.0.1',
    port: Number(process.env.MYSQL_PORT ?? 3306),
    user: 'root',
    password: '',
    dateStrings: true,
    timezone: 'Z',
    supportBigNumbers: true,
    bigNumberStrings: true,
    decimalNumbers: false,
  });
  await conn.query(`CREATE DATABASE ${DB}`);
  await conn.query(`USE ${DB}`);
  // As the engine runs sessions: in the data time zone (UTC here).
  await conn.query("SET time_zone = '+00:00'");
  await conn.query('CREATE TABLE payloads (id INT, v TEXT COLLATE utf8mb4_bin) DEFAULT CHARSET utf8mb4');
  for (const [id, v] of PAYLOADS.filter((p) => !p.includes('\u0000')).entries()) await conn.execute('INSERT INTO payloads VALUES (?, ?)', [id, v]);
  await conn.query(
    `CREATE TABLE typed (id INT, n DECIMAL(10,2), big DECIMAL(30,0), b BOOLEAN, d DATE, tm TIME(1), ts DATETIME(3), s VARCHAR(10) COLLATE utf8mb4_bin)`,
  );
  await conn.query(`INSERT INTO typed VALUES
    (1, 1.5, 12345678901234567890, TRUE, '2024-02-29', '07:30:00', '2024-01-01 12:00:00', 'DE'),
    (2, 42, 1, FALSE, '2024-03-01', '23:59:59.5', '2024-01-01 12:00:01', 'FR'),
    (3, NULL, NULL, NULL, NULL, NULL, NULL, NULL)`);
  await conn.query('CREATE TABLE stamps (t DATETIME(3))');
  await conn.query(`INSERT INTO stamps VALUES ('2024-03-30 22:59:59'), ('2024-03-30 23:00:00'), ('2024-03-31 21:59:59.999'),
    ('2024-03-31 22:00:00'), ('2024-04-01 21:59:59'), ('2024-04-01 22:00:00')`);
});
afterAll(async () => {
  await conn?.query(`DROP DATABASE IF EXISTS ${DB}`);
  await conn?.end();
});

function compiled(opts: Partial<CompileOptions> & { sql: string }) {
  return compileSql({ dialect: 'mysql', filters: [], parameters: {}, ...opts });
}
/** Runs as a server-side prepared statement. */
async function run(opts: Partial<CompileOptions> & { sql: string }): Promise<Record<string, unknown>[]> {
  const c = compiled(opts);
  const [rows] = await conn.execute(c.text, c.values as never[]);
  return rows as Record<string, unknown>[];
}
/** Runs with mysql2's client-side escaping of the values. */
async function runEscaped(opts: Partial<CompileOptions> & { sql: string }): Promise<Record<string, unknown>[]> {
  const c = compiled(opts);
  const [rows] = await conn.query(c.text, c.values);
  return rows as Record<string, unknown>[];
}
const col = (rows: Record<string, unknown>[], name = 'v') => rows.map((r) => r[name]);

const BERLIN = 'Europe/Berlin';
const DST_DAY = '2024-03-31~2024-03-31';
const T = "DATE_FORMAT(t, '%Y-%m-%d %H:%i:%s.%f') AS v";
const ms = (s: string) => `${s}000`;

describe('the server has no time zone tables (why offsets are computed in JS)', () => {
  it('CONVERT_TZ with zone names answers NULL here', async () => {
    const [rows] = await conn.query("SELECT CONVERT_TZ('2024-01-01 00:00', 'UTC', 'Europe/Berlin') AS v");
    expect(col(rows as Record<string, unknown>[])).toEqual([null]);
  });
});

describe('ranges on MariaDB', () => {
  it('a Berlin day across spring-forward, on DATETIME in UTC', async () => {
    const rows = await run({ sql: `SELECT ${T} FROM stamps WHERE {t=timerange} ORDER BY t`, parameters: { timerange: DST_DAY }, timeZone: BERLIN });
    expect(col(rows)).toEqual([ms('2024-03-30 23:00:00.000'), ms('2024-03-31 21:59:59.999')]);
  });

  it('.next and .previous', async () => {
    const next = await run({ sql: `SELECT ${T} FROM stamps WHERE {t=timerange.next} ORDER BY t`, parameters: { timerange: DST_DAY }, timeZone: BERLIN });
    expect(col(next)).toEqual([ms('2024-03-31 22:00:00.000'), ms('2024-04-01 21:59:59.000')]);
    const prev = await runEscaped({
      sql: `SELECT ${T} FROM stamps WHERE {t=timerange.previous} ORDER BY t`,
      parameters: { timerange: DST_DAY },
      timeZone: BERLIN,
    });
    expect(col(prev)).toEqual([ms('2024-03-30 22:59:59.000')]);
  });

  it('open ends', async () => {
    const rows = await run({ sql: `SELECT ${T} FROM stamps WHERE {t=timerange} ORDER BY t`, parameters: { timerange: `~${unix('2024-03-30T23:00:00Z')}` } });
    expect(col(rows)).toEqual([ms('2024-03-30 22:59:59.000'), ms('2024-03-30 23:00:00.000')]);
  });

  it('zone-less values in a New York data zone', async () => {
    const rows = await run({
      sql: "SELECT v FROM (SELECT '2024-03-30 18:59:59' AS v UNION ALL SELECT '2024-03-30 19:00:00' UNION ALL SELECT '2024-03-31 17:59:59' UNION ALL SELECT '2024-03-31 18:00:00') x WHERE {[CAST(v AS DATETIME)]=timerange} ORDER BY v",
      parameters: { timerange: DST_DAY },
      timeZone: BERLIN,
      dataTimeZone: 'America/New_York',
    });
    expect(col(rows)).toEqual(['2024-03-30 19:00:00', '2024-03-31 17:59:59']);
  });

  it('date and time ranges', async () => {
    const dates = await run({
      sql: 'SELECT id AS v FROM typed WHERE {d=r} ORDER BY id',
      filters: [filter('r', 'date_range', 'DATE')],
      parameters: pick({ r: ['2024-02-29~2024-02-29'] }),
    });
    expect(col(dates)).toEqual([1]);
    const months = await run({
      sql: 'SELECT id AS v FROM typed WHERE {d=r.next} ORDER BY id',
      filters: [filter('r', 'date_range', 'DATE')],
      parameters: pick({ r: ['2024-02-01~2024-02-29'] }),
    });
    expect(col(months)).toEqual([2]);
    const times = await run({
      sql: 'SELECT id AS v FROM typed WHERE {tm=r} ORDER BY id',
      filters: [filter('r', 'time_range', 'TIME')],
      parameters: pick({ r: ['22:00~23:59:59'] }),
    });
    expect(col(times)).toEqual([2]);
  });
});

describe('buckets on MariaDB', () => {
  const SAMPLES = `(${BUCKET_SAMPLES_UTC.map((t, i) => `SELECT ${i} AS i, CAST('${t}' AS DATETIME) AS t`).join(' UNION ALL ')}) x`;
  for (const aggregation of AGGREGATIONS) {
    it(`${aggregation}: in Berlin and in UTC`, async () => {
      const sql = `SELECT DATE_FORMAT({[t]:aggregation}, '%Y-%m-%d %H:%i:%s') AS v FROM ${SAMPLES} ORDER BY i`;
      const opts = { sql, parameters: { aggregation }, aggregationOptions: [...AGGREGATIONS] };
      expect(col(await run({ ...opts, timeZone: BERLIN }))).toEqual(BERLIN_BUCKETS[aggregation]);
      expect(col(await run(opts))).toEqual(UTC_BUCKETS[aggregation]);
    });
  }

  it('hours across both Berlin changes', async () => {
    const rows = await run({
      sql: "SELECT DATE_FORMAT({[t]:aggregation}, '%Y-%m-%d %H:%i') AS v FROM (SELECT CAST('2024-03-31 00:59:59' AS DATETIME) AS t UNION ALL SELECT '2024-03-31 01:00:00' UNION ALL SELECT '2024-10-27 00:30:00' UNION ALL SELECT '2024-10-27 01:30:00' UNION ALL SELECT '2024-10-27 02:00:00') x ORDER BY t",
      parameters: { aggregation: 'hour' },
      timeZone: BERLIN,
    });
    expect(col(rows)).toEqual(['2024-03-31 01:00', '2024-03-31 03:00', '2024-10-27 02:00', '2024-10-27 02:00', '2024-10-27 03:00']);
  });

  it('GROUP BY the same transformation, and all_time as one group', async () => {
    const hours = Array.from({ length: 28 }, (_, i) => `SELECT TIMESTAMP '2024-03-30 20:00:00' + INTERVAL ${i} HOUR AS t`).join(' UNION ALL ');
    const sql = `SELECT {[t]:aggregation} AS b, COUNT(*) AS n FROM (${hours}) x GROUP BY {[t]:aggregation} ORDER BY 1`;
    expect(col(await run({ sql, parameters: { aggregation: 'day' }, timeZone: BERLIN }), 'n').map(Number)).toEqual([3, 23, 2]);
    expect(col(await run({ sql, parameters: { aggregation: 'all_time' }, aggregationOptions: ['all_time'], timeZone: BERLIN }), 'n').map(Number)).toEqual([28]);
  });

  it('agrees with Postgres on every half hour around the DST changes of New York and Berlin, from New York data', async () => {
    const walls: string[] = [];
    for (const day of ['2024-03-10', '2024-03-31', '2024-10-27', '2024-11-03']) {
      for (let m = 0; m < 24 * 60; m += 30) walls.push(`${day} ${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}:00`);
    }
    const opts = { parameters: { aggregation: 'hour' }, timeZone: BERLIN, dataTimeZone: 'America/New_York' };
    const my = await run({
      ...opts,
      sql: `SELECT DATE_FORMAT({[t]:aggregation}, '%Y-%m-%d %H:%i') AS v FROM (${walls.map((w, i) => `SELECT ${i} AS i, CAST('${w}' AS DATETIME) AS t`).join(' UNION ALL ')}) x ORDER BY i`,
    });
    const pg = postgres(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres', {
      max: 1,
      prepare: false,
      fetch_types: false,
      onnotice: () => {},
      connection: { TimeZone: 'America/New_York' },
    });
    try {
      const c = compileSql({
        dialect: 'postgres',
        filters: [],
        ...opts,
        sql: `SELECT to_char({[t]:aggregation}, 'YYYY-MM-DD HH24:MI') AS v FROM unnest(ARRAY[${walls.map((w) => `'${w}'`).join(', ')}]::timestamp[]) WITH ORDINALITY x(t, i) ORDER BY i`,
      });
      const theirs = await pg.unsafe(c.text, c.values as never[]);
      expect(col(my)).toEqual(theirs.map((r) => r.v));
      expect(new Set(col(my)).size).toBeGreaterThan(90);
    } finally {
      await pg.end();
    }
  });
});

describe('values of every type on MariaDB', () => {
  const ids = async (where: string, filters: ReturnType<typeof filter>[], sel: Record<string, unknown[]>) =>
    col(await run({ sql: `SELECT id AS v FROM typed WHERE ${where} ORDER BY id`, filters, parameters: pick(sel) }));

  it('NUMBER, BOOLEAN, DATE, TIME, DATE_TIME and TEXT compare as their types', async () => {
    expect(await ids('{n=v}', [filter('v', 'input', 'NUMBER')], { v: ['1.50'] })).toEqual([1]);
    expect(await ids('{big=v}', [filter('v', 'input', 'NUMBER')], { v: ['12345678901234567890'] })).toEqual([1]);
    expect(await ids('{b=v}', [filter('v', 'checkbox', 'BOOLEAN')], { v: [false] })).toEqual([2]);
    expect(await ids('{b=v}', [filter('v', 'checkbox_two_way', 'BOOLEAN')], { v: ['true'] })).toEqual([1]);
    expect(await ids('{d=v}', [filter('v', 'date', 'DATE')], { v: ['2024-02-29'] })).toEqual([1]);
    expect(await ids('{tm=v}', [filter('v', 'time', 'TIME')], { v: ['07:30'] })).toEqual([1]);
    expect(await ids('{ts=v}', [filter('v', 'date_time', 'DATE_TIME')], { v: ['2024-01-01T13:00:01+01:00'] })).toEqual([2]);
    expect(await ids('{s=v}', [filter('v', 'dropdown_multi')], { v: ['FR', 'DE'] })).toEqual([1, 2]);
    expect(await ids('{s=v}', [filter('v', 'dropdown_multi')], { v: ['FR', null] })).toEqual([2, 3]);
    expect(await ids('{n=v}', [filter('v', 'input_multi', 'NUMBER')], { v: [] })).toEqual([1, 2, 3]);
  });

  it('built-in snippets and snippet arguments arrive as values', async () => {
    const [row] = await run({
      sql: "SELECT [CAIRN_USER_EMAIL] AS e, [CAIRN_USER_ROLE] AS r, [plus(40, 2)] AS n, [echo('it''s')] AS s",
      snippets: [
        { name: 'plus', text: 'CAST({{a}} AS SIGNED) + CAST({{b}} AS SIGNED)', params: ['a', 'b'] },
        { name: 'echo', text: 'CAST({{x}} AS CHAR)', params: ['x'] },
      ],
      context: { userEmail: 'ada@example.com', userRole: null },
    });
    expect({ ...row, n: Number(row!.n) }).toEqual({ e: 'ada@example.com', r: null, n: 42, s: "it's" });
  });
});

describe('injection payloads on MariaDB', () => {
  const payloads = PAYLOADS.filter((p) => !p.includes('\u0000'));

  it('each payload through a text filter matches exactly its own row (prepared and escaped)', async () => {
    for (const [id, p] of payloads.entries()) {
      const opts = { sql: 'SELECT id AS v FROM payloads WHERE {v=f}', filters: [filter('f', 'dropdown_multi')], parameters: pick({ f: [p] }) };
      expect(col(await run(opts)), p).toEqual([id]);
      expect(col(await runEscaped(opts)), p).toEqual([id]);
    }
  });

  it('each payload as a snippet argument and as a built-in snippet value matches exactly its own row', async () => {
    const snippets = [{ name: 'is', text: 'v = {{x}}', params: ['x'] }];
    for (const [id, p] of payloads.entries()) {
      expect(col(await run({ sql: `SELECT id AS v FROM payloads WHERE [is('${p.replaceAll("'", "''")}')]`, snippets })), p).toEqual([id]);
      expect(col(await runEscaped({ sql: 'SELECT id AS v FROM payloads WHERE v = [CAIRN_USER_EMAIL]', context: { userEmail: p } })), p).toEqual([id]);
    }
  });

  it('the tables are still there', async () => {
    const [rows] = await conn.query('SELECT COUNT(*) AS n FROM payloads');
    expect(Number((rows as { n: number }[])[0]!.n)).toBe(payloads.length);
  });
});
