/**
 * Compiled SQL run for real on PostgreSQL (DATABASE_URL, else 127.0.0.1:5432): range and bucket
 * boundaries, time zones across DST, every value type, snippets, and injection payloads as plain values.
 * Only literals written by these tests and compiled SQL are sent; test rows are inserted with bound values.
 */
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AGGREGATIONS, compileSql, type CompileOptions } from '../src/index.ts';
import { BERLIN_BUCKETS, BUCKET_SAMPLES_UTC, PAYLOADS, UTC_BUCKETS, filter, pick, unix } from './sql-helpers.ts';

const url = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
// Two connection settings the compiled values rely on (the engine's connector needs them too):
// - postgres.js describes a statement before binding and re-serialises any value of a date, timestamp
//   or timestamptz parameter through `new Date(value).toISOString()` — a UTC reading that turns the
//   data-zone wall clock of a zone-less timestamp into a UTC one. The `date` type below sends strings
//   as they are.
// - the session runs in the data time zone, as CompiledQuery.sessionTimeZone asks.
const passStrings = {
  date: {
    to: 1184,
    from: [1082, 1114, 1184],
    serialize: (x: unknown) => (x instanceof Date ? x.toISOString() : String(x)),
    parse: (x: string) => x,
  },
};
const connect = (zone: string) =>
  postgres(url, { max: 1, prepare: false, fetch_types: false, onnotice: () => {}, connection: { TimeZone: zone }, types: passStrings });
const utcDb = connect('UTC');
const nyDb = connect('America/New_York');

async function run<T extends Record<string, unknown>>(db: postgres.Sql, opts: Partial<CompileOptions> & { sql: string }): Promise<T[]> {
  const c = compileSql({ dialect: 'postgres', filters: [], parameters: {}, ...opts });
  return (await db.unsafe(c.text, c.values as never[])) as unknown as T[];
}
const col = <T>(rows: Record<string, unknown>[], name = 'v') => rows.map((r) => r[name] as T);

const BERLIN = 'Europe/Berlin';
const DST_DAY = '2024-03-31~2024-03-31';
const TZ_ROWS =
  "(VALUES (timestamptz '2024-03-30 22:59:59+00'), ('2024-03-30 23:00:00+00'), ('2024-03-31 21:59:59.999+00'), ('2024-03-31 22:00:00+00'), ('2024-04-01 21:59:59+00'), ('2024-04-01 22:00:00+00')) x(t)";
const utcText = "to_char(t AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.MS') AS v";

beforeAll(async () => {
  await utcDb`CREATE TEMP TABLE payloads (id int, v text)`;
  await utcDb`INSERT INTO payloads ${utcDb(PAYLOADS.filter((p) => !p.includes('\u0000')).map((v, id) => ({ id, v })))}`;
  await utcDb`CREATE TEMP TABLE typed (id int, n numeric, big numeric, b boolean, d date, tm time, ts timestamptz, s text)`;
  await utcDb`INSERT INTO typed VALUES
    (1, 1.5, 12345678901234567890, true, '2024-02-29', '07:30:00', '2024-01-01 12:00:00+00', 'DE'),
    (2, 42, 1, false, '2024-03-01', '23:59:59.5', '2024-01-01 12:00:01+00', 'FR'),
    (3, null, null, null, null, null, null, null)`;
});
afterAll(async () => {
  await Promise.all([utcDb.end(), nyDb.end()]);
});

describe('ranges on Postgres', () => {
  it('a Berlin day across spring-forward: timestamptz rows from 23:00Z to 22:00Z', async () => {
    const rows = await run(utcDb, {
      sql: `SELECT ${utcText} FROM ${TZ_ROWS} WHERE {t=timerange} ORDER BY 1`,
      parameters: { timerange: DST_DAY },
      timeZone: BERLIN,
    });
    expect(col(rows)).toEqual(['2024-03-30 23:00:00.000', '2024-03-31 21:59:59.999']);
  });

  it('.next is the following whole day; .previous has nothing in these rows', async () => {
    const next = await run(utcDb, {
      sql: `SELECT ${utcText} FROM ${TZ_ROWS} WHERE {t=timerange.next} ORDER BY 1`,
      parameters: { timerange: DST_DAY },
      timeZone: BERLIN,
    });
    expect(col(next)).toEqual(['2024-03-31 22:00:00.000', '2024-04-01 21:59:59.000']);
    const prev = await run(utcDb, {
      sql: `SELECT ${utcText} FROM ${TZ_ROWS} WHERE {t=timerange.previous} ORDER BY 1`,
      parameters: { timerange: DST_DAY },
      timeZone: BERLIN,
    });
    expect(col(prev)).toEqual(['2024-03-30 22:59:59.000']);
  });

  it('zone-less timestamps in a New York data zone (session zone New York)', async () => {
    const rows = await run(nyDb, {
      sql: "SELECT to_char(t, 'YYYY-MM-DD HH24:MI:SS') AS v FROM (VALUES (timestamp '2024-03-30 18:59:59'), ('2024-03-30 19:00:00'), ('2024-03-31 17:59:59'), ('2024-03-31 18:00:00')) x(t) WHERE {t=timerange} ORDER BY 1",
      parameters: { timerange: DST_DAY },
      timeZone: BERLIN,
      dataTimeZone: 'America/New_York',
    });
    expect(col(rows)).toEqual(['2024-03-30 19:00:00', '2024-03-31 17:59:59']);
  });

  it('an open-ended timerange and the bounds as values', async () => {
    const rows = await run(utcDb, {
      sql: `SELECT ${utcText} FROM ${TZ_ROWS} WHERE {t=timerange} ORDER BY 1`,
      parameters: { timerange: `${unix('2024-04-01T21:59:59Z')}~` },
    });
    expect(col(rows)).toEqual(['2024-04-01 21:59:59.000', '2024-04-01 22:00:00.000']);
    const [bounds] = await run(utcDb, {
      sql: "SELECT {timerange.start}::timestamptz = timestamptz '2024-03-30 23:00:00+00' AS s, {timerange.end}::timestamptz = timestamptz '2024-03-31 22:00:00+00' AS e",
      parameters: { timerange: DST_DAY },
      timeZone: BERLIN,
    });
    expect(bounds).toEqual({ s: true, e: true });
  });

  it('a date range filters dates by calendar day, timestamps from midnight of the session (data) zone', async () => {
    const f = [filter('d', 'date_range', 'DATE')];
    const dates = await run(utcDb, {
      sql: "SELECT d::text AS v FROM (VALUES (date '2024-03-30'), ('2024-03-31'), ('2024-04-01')) x(d) WHERE {d=d} ORDER BY 1",
      filters: f,
      parameters: pick({ d: [DST_DAY] }),
      timeZone: BERLIN,
    });
    expect(col(dates)).toEqual(['2024-03-31']);
    const stamps = await run(utcDb, {
      sql: `SELECT ${utcText} FROM ${TZ_ROWS} WHERE {t=d} ORDER BY 1`,
      filters: f,
      parameters: pick({ d: [DST_DAY] }),
      timeZone: BERLIN,
    });
    expect(col(stamps)).toEqual(['2024-03-31 21:59:59.999', '2024-03-31 22:00:00.000']);
    // For the dashboard's days on a timestamp column, convert the column: {[(t AT TIME ZONE 'Europe/Berlin')::date]=d}.
    const local = await run(utcDb, {
      sql: `SELECT ${utcText} FROM ${TZ_ROWS} WHERE {[(t AT TIME ZONE 'Europe/Berlin')::date]=d} ORDER BY 1`,
      filters: f,
      parameters: pick({ d: [DST_DAY] }),
      timeZone: BERLIN,
    });
    expect(col(local)).toEqual(['2024-03-30 23:00:00.000', '2024-03-31 21:59:59.999']);
    const months = await run(utcDb, {
      sql: "SELECT d::date::text AS v FROM generate_series(date '2024-01-25', date '2024-04-05', interval '1 day') x(d) WHERE {[d::date]=d.previous} ORDER BY 1",
      filters: f,
      parameters: pick({ d: ['2024-03-01~2024-03-31'] }),
    });
    expect(col<string>(months).map((v) => v.slice(0, 10))).toEqual(Array.from({ length: 29 }, (_, i) => `2024-02-${String(i + 1).padStart(2, '0')}`));
  });

  it('a time range ending 23:59:59 includes the fractions of the last second', async () => {
    const rows = await run(utcDb, {
      sql: 'SELECT id AS v FROM typed WHERE {tm=r} ORDER BY 1',
      filters: [filter('r', 'time_range', 'TIME')],
      parameters: pick({ r: ['22:00~23:59:59'] }),
    });
    expect(col(rows)).toEqual([2]);
  });
});

describe('buckets on Postgres', () => {
  const SAMPLES = `(VALUES ${BUCKET_SAMPLES_UTC.map((t) => `(timestamptz '${t}+00')`).join(', ')}) x(t)`;
  for (const aggregation of AGGREGATIONS) {
    it(`${aggregation}: in Berlin and in UTC`, async () => {
      const sql = `SELECT to_char({[t]:aggregation}, 'YYYY-MM-DD HH24:MI:SS') AS v FROM ${SAMPLES} ORDER BY t`;
      const opts = { sql, parameters: { aggregation }, aggregationOptions: [...AGGREGATIONS] };
      expect(col(await run(utcDb, { ...opts, timeZone: BERLIN }))).toEqual(BERLIN_BUCKETS[aggregation]);
      expect(col(await run(utcDb, opts))).toEqual(UTC_BUCKETS[aggregation]);
    });
  }

  it('hours across the fall-back change stay apart by instant but share the local label', async () => {
    const rows = await run(utcDb, {
      sql: "SELECT to_char({[t]:aggregation}, 'YYYY-MM-DD HH24:MI') AS v FROM (VALUES (timestamptz '2024-10-27 00:30:00+00'), ('2024-10-27 01:30:00+00'), ('2024-10-27 02:30:00+00')) x(t) ORDER BY t",
      parameters: { aggregation: 'hour' },
      timeZone: BERLIN,
    });
    expect(col(rows)).toEqual(['2024-10-27 02:00', '2024-10-27 02:00', '2024-10-27 03:00']);
  });

  it('GROUP BY the same transformation works (one shared zone parameter) and all_time is one group', async () => {
    const sql =
      "SELECT {[t]:aggregation} AS b, count(*)::int AS n FROM generate_series(timestamptz '2024-03-30 20:00+00', timestamptz '2024-03-31 23:00+00', interval '1 hour') x(t) GROUP BY {[t]:aggregation} ORDER BY 1";
    const days = await run<{ n: number }>(utcDb, { sql, parameters: { aggregation: 'day' }, timeZone: BERLIN });
    expect(days.map((r) => r.n)).toEqual([3, 23, 2]);
    const all = await run<{ n: number }>(utcDb, { sql, parameters: { aggregation: 'all_time' }, aggregationOptions: ['all_time'], timeZone: BERLIN });
    expect(all.map((r) => r.n)).toEqual([28]);
  });

  it('zone-less data in New York bucketed in Berlin', async () => {
    const rows = await run(nyDb, {
      sql: "SELECT to_char({[t]:aggregation}, 'YYYY-MM-DD HH24:MI') AS v FROM (VALUES (timestamp '2024-03-30 19:30:00'), ('2024-11-03 01:30:00')) x(t) ORDER BY t",
      parameters: { aggregation: 'hour' },
      timeZone: BERLIN,
      dataTimeZone: 'America/New_York',
    });
    // 19:30 EDT = 23:30Z = 00:30 CET; the repeated 01:30 of Nov 3 is read as EST (06:30Z) = 07:30 CET.
    expect(col(rows)).toEqual(['2024-03-31 00:00', '2024-11-03 07:00']);
  });
});

describe('values of every type on Postgres', () => {
  const ids = async (sql: string, filters: ReturnType<typeof filter>[], sel: Record<string, unknown[]>) =>
    col<number>(await run(utcDb, { sql: `SELECT id AS v FROM typed WHERE ${sql} ORDER BY 1`, filters, parameters: pick(sel) }));

  it('NUMBER, BOOLEAN, DATE, TIME, DATE_TIME and TEXT compare as their types', async () => {
    expect(await ids('{n=v}', [filter('v', 'input', 'NUMBER')], { v: ['1.50'] })).toEqual([1]);
    expect(await ids('{big=v}', [filter('v', 'input', 'NUMBER')], { v: ['12345678901234567890'] })).toEqual([1]);
    expect(await ids('{b=v}', [filter('v', 'checkbox', 'BOOLEAN')], { v: [false] })).toEqual([2]);
    expect(await ids('{d=v}', [filter('v', 'date', 'DATE')], { v: ['2024-02-29'] })).toEqual([1]);
    expect(await ids('{tm=v}', [filter('v', 'time', 'TIME')], { v: ['07:30'] })).toEqual([1]);
    expect(await ids('{ts=v}', [filter('v', 'date_time', 'DATE_TIME')], { v: ['2024-01-01T13:00:01+01:00'] })).toEqual([2]);
    expect(await ids('{s=v}', [filter('v', 'dropdown_multi')], { v: ['FR', 'DE'] })).toEqual([1, 2]);
    expect(await ids('{s=v}', [filter('v', 'dropdown_multi')], { v: ['FR', null] })).toEqual([2, 3]);
    expect(await ids('{n=v}', [filter('v', 'input_multi', 'NUMBER')], { v: [] })).toEqual([1, 2, 3]);
  });

  it('built-in snippets and snippet arguments arrive as values', async () => {
    const [row] = await run(utcDb, {
      sql: "SELECT [CAIRN_USER_EMAIL] AS e, [CAIRN_USER_ROLE] AS r, [plus(40, 2)] AS n, [echo('it''s')] AS s",
      snippets: [
        { name: 'plus', text: '{{a}}::int + {{b}}::int', params: ['a', 'b'] },
        { name: 'echo', text: '{{x}}::text', params: ['x'] },
      ],
      context: { userEmail: 'ada@example.com', userRole: null },
    });
    expect(row).toEqual({ e: 'ada@example.com', r: null, n: 42, s: "it's" });
  });
});

describe('injection payloads on Postgres', () => {
  const payloads = PAYLOADS.filter((p) => !p.includes('\u0000'));

  it('each payload through a text filter matches exactly its own row', async () => {
    for (const [id, p] of payloads.entries()) {
      const rows = await run(utcDb, {
        sql: 'SELECT id AS v FROM payloads WHERE {v=f}',
        filters: [filter('f', 'dropdown_multi')],
        parameters: pick({ f: [p] }),
      });
      expect(col(rows), p).toEqual([id]);
    }
  });

  it('each payload as a snippet argument and as a built-in snippet value matches exactly its own row', async () => {
    const snippets = [{ name: 'is', text: 'v = {{x}}', params: ['x'] }];
    for (const [id, p] of payloads.entries()) {
      const viaArg = await run(utcDb, { sql: `SELECT id AS v FROM payloads WHERE [is('${p.replaceAll("'", "''")}')]`, snippets });
      expect(col(viaArg), p).toEqual([id]);
      const viaContext = await run(utcDb, { sql: 'SELECT id AS v FROM payloads WHERE v = [CAIRN_USER_EMAIL]', context: { userEmail: p } });
      expect(col(viaContext), p).toEqual([id]);
    }
  });

  it('the tables are still there', async () => {
    const [row] = await utcDb<{ n: number }[]>`SELECT count(*)::int AS n FROM payloads`;
    expect(row?.n).toBe(payloads.length);
  });
});
