import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type postgres from 'postgres';
import { ConnectorError, type CancelHandle } from './index.ts';
import { collect, createPgDatabase, failure, pgConnector, sleep } from '../../../test/connectors-fixtures.ts';
import { wireStats } from '@cairn/core/pg/wire';

let db: Awaited<ReturnType<typeof createPgDatabase>>;
let sql: postgres.Sql;
const connector = () => pgConnector({ database: db.name });

beforeAll(async () => {
  db = await createPgDatabase();
  sql = db.sql;
  await sql.unsafe(`
    create type mood as enum ('sad', 'happy');
    create schema shop;
    create schema hidden;
    create table shop.types (
      id serial primary key,
      b bool, i2 int2, i4 int4, i8 int8, f4 float4, f8 float8, n numeric, n2 numeric(10, 2),
      t text, vc varchar(20), ch char(3), j json, jb jsonb,
      ts timestamp, tstz timestamptz, ts3 timestamp(3), d date, tm time, tmtz timetz, iv interval,
      by bytea, u uuid, ip inet, m money, e mood, ia int4[], ta text[], tsa timestamptz[], x xml, o oid
    );
    insert into shop.types (b, i2, i4, i8, f4, f8, n, n2, t, vc, ch, j, jb, ts, tstz, ts3, d, tm, tmtz, iv, by, u, ip, m, e, ia, ta, tsa, x, o)
    values (true, -32768, 2147483647, 9007199254740993, 1.5, 0.1, 12345678901234567890.123456789, 42.10,
            E'quote " backslash \\\\ newline \\n tab \\t bell \\x07 café 😀', 'varchar', 'ab',
            '{"a": [1, 2.50, "x"], "b": null}', '{"z": 1, "a": {"n": true}}',
            '2024-03-05 06:07:08.5', '2024-03-05 06:07:08.123456+02', '2024-03-05 06:07:08', '2024-02-29',
            '23:59:59.250', '10:00:00+05:30', '1 day 02:03:04', '\\x000102fffe', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
            '192.168.0.1/24', 12.5, 'happy', '{1,NULL,3}', E'{"a,b","say \\\\"hi\\\\"",NULL,plain}',
            '{"2024-01-01 00:00:00+00","2024-06-01 12:00:00.75+00"}', '<a>1</a>', 42),
           (false, 0, -1, -9007199254740991, 'NaN', '-Infinity', 'NaN', -0.5, '', null, null, 'null', '[]',
            '0044-03-15 12:00:00 BC', 'infinity', null, '10000-01-01', '00:00:00', null, '-1 mon', '\\x', null, null, null, 'sad',
            '{}', '{{a,b},{c,d}}', null, null, 0);
    insert into shop.types (b) values (null);
    create view shop.happy as select id, e from shop.types where e = 'happy';
    create table shop.big as select g as id, 'row ' || g as label from generate_series(1, 2500) g;
    analyze shop.big;
    create table hidden.secret (x int);
  `);
});

afterAll(async () => {
  await db?.drop();
});

describe('Postgres connector: type mapping', () => {
  it('maps every column type to a data type and its values to JSON', async () => {
    const { summary, rows } = await collect(connector(), 'select * from shop.types order by id');
    const types = Object.fromEntries(summary.columns.map((c) => [c.name, [c.data_type, c.db_type]]));
    expect(types).toEqual({
      id: ['Integer', 'int4'],
      b: ['Boolean', 'bool'],
      i2: ['Integer', 'int2'],
      i4: ['Integer', 'int4'],
      i8: ['BigInt', 'int8'],
      f4: ['Float', 'float4'],
      f8: ['Float', 'float8'],
      n: ['Float', 'numeric'],
      n2: ['Float', 'numeric'],
      t: ['String', 'text'],
      vc: ['String', 'varchar'],
      ch: ['String', 'bpchar'],
      j: ['JSON', 'json'],
      jb: ['JSON', 'jsonb'],
      ts: ['DateTime', 'timestamp'],
      tstz: ['DateTime', 'timestamptz'],
      ts3: ['DateTime', 'timestamp'],
      d: ['Date', 'date'],
      tm: ['Time', 'time'],
      tmtz: ['Time', 'timetz'],
      iv: ['String', 'interval'],
      by: ['Binary', 'bytea'],
      u: ['String', 'uuid'],
      ip: ['String', 'inet'],
      m: ['String', 'money'],
      e: ['Other', expect.stringMatching(/^oid \d+$/)],
      ia: ['Array<Integer>', '_int4'],
      ta: ['Array<String>', '_text'],
      tsa: ['Array<DateTime>', '_timestamptz'],
      x: ['String', 'xml'],
      o: ['Internal', 'oid'],
    });
    const [first, second, third] = rows.map((r) => Object.fromEntries(summary.columns.map((c, i) => [c.name, r[i]])));
    expect(first).toEqual({
      id: 1,
      b: true,
      i2: -32768,
      i4: 2147483647,
      i8: '9007199254740993', // beyond 2^53: exact digits as a string
      f4: 1.5,
      f8: 0.1,
      // biome-ignore lint/correctness/noPrecisionLoss: numerics arrive as JS numbers; the literal is the value as written
      n: 12345678901234567890.123456789,
      n2: 42.1,
      t: 'quote " backslash \\ newline \n tab \t bell \x07 café 😀',
      vc: 'varchar',
      ch: 'ab ',
      j: { a: [1, 2.5, 'x'], b: null },
      jb: { a: { n: true }, z: 1 },
      ts: '2024-03-05T06:07:08.5Z',
      tstz: '2024-03-05T04:07:08.123456Z',
      ts3: '2024-03-05T06:07:08Z',
      d: '2024-02-29',
      tm: '23:59:59.25',
      tmtz: '10:00:00+05:30',
      iv: '1 day 02:03:04',
      by: btoa(String.fromCharCode(0, 1, 2, 255, 254)),
      u: 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
      ip: '192.168.0.1/24',
      m: '$12.50',
      e: 'happy',
      ia: [1, null, 3],
      ta: ['a,b', 'say "hi"', null, 'plain'],
      tsa: ['2024-01-01T00:00:00Z', '2024-06-01T12:00:00.75Z'],
      x: '<a>1</a>',
      o: 42,
    });
    expect(second).toMatchObject({
      b: false,
      i2: 0,
      i4: -1,
      i8: -9007199254740991,
      f4: null,
      f8: null,
      n: null,
      n2: -0.5,
      t: '',
      vc: null,
      ch: null,
      j: null,
      jb: [],
      ts: '0044-03-15 12:00:00 BC',
      tstz: 'infinity',
      d: '10000-01-01',
      tm: '00:00:00',
      iv: '-1 mons',
      by: '',
      e: 'sad',
      ia: [],
      ta: [
        ['a', 'b'],
        ['c', 'd'],
      ],
      o: 0,
    });
    expect(Object.values(third!).filter((v) => v !== null)).toEqual([3]);
  });

  it('keeps the numeric digits exactly in the JSON text', async () => {
    const { chunks } = await collect(connector(), 'select 12345678901234567890.123456789::numeric as n, 9223372036854775807::int8 as big');
    expect(new TextDecoder().decode(chunks[0]!.data)).toBe('[12345678901234567890.123456789,"9223372036854775807"]');
  });

  it('computes field statistics: min, max, distinct count, group_by', async () => {
    const { summary } = await collect(
      connector(),
      `
      select g as n, (g % 3)::text as s, date '2024-01-01' + g as d,
             timestamptz '2024-01-01 00:00:05+00' + g * interval '500 milliseconds' as ts
        from generate_series(0, 9) g union all select null, null, null, null`,
    );
    const [n, s, d, ts] = summary.fields;
    expect(n).toMatchObject({ idx: 0, name: 'n', data_type: 'Integer', min_value: 0, max_value: 9, unique_count: 10, group_by: false, human_name: 'N' });
    expect(s).toMatchObject({ data_type: 'String', min_value: '0', max_value: '2', unique_count: 3, group_by: true });
    expect(d).toMatchObject({ data_type: 'Date', min_value: '2024-01-01', max_value: '2024-01-10', unique_count: 10 });
    // "…05Z" sorts before "…05.5Z": the fraction is compared as a number would be.
    expect(ts).toMatchObject({ data_type: 'DateTime', min_value: '2024-01-01T00:00:05Z', max_value: '2024-01-01T00:00:09.5Z', unique_count: 10 });
    expect(summary.rowCount).toBe(11);
  });

  it('binds values as parameters, never as SQL', async () => {
    const payload = `'); drop table shop.types; --`;
    const { rows } = await collect(connector(), { text: 'select $1::text as v, $2::int + 1 as n', values: [payload, 41] });
    expect(rows).toEqual([[payload, 42]]);
    const [{ n }] = (await sql`select count(*)::int as n from shop.types`) as unknown as [{ n: number }];
    expect(n).toBe(3);
  });
});

describe('Postgres connector: streaming', () => {
  it('streams more rows than one batch in several chunks, in order, to a slow sink', async () => {
    const chunks: { rows: number; text: string }[] = [];
    let announced: unknown = null;
    const summary = await connector().run(
      { text: `select g as id, repeat('x', 40) || g as label, now() as at from generate_series(1, 60000) g`, values: [] },
      {
        columns: (c) => void (announced = c),
        chunk: async (c) => {
          expect(announced).not.toBeNull(); // columns come first
          chunks.push({ rows: c.rows, text: new TextDecoder().decode(c.data) });
          await sleep(5);
        },
      },
    );
    expect(summary.rowCount).toBe(60000);
    expect(chunks.length).toBeGreaterThan(5);
    expect(chunks.reduce((a, c) => a + c.rows, 0)).toBe(60000);
    expect(summary.sizeInBytes).toBe(chunks.reduce((a, c) => a + new TextEncoder().encode(c.text).length, 0));
    for (const c of chunks) {
      expect(c.text.length).toBeLessThan(600 * 1024);
      expect(JSON.parse(`[${c.text}]`)).toHaveLength(c.rows);
    }
    const ids = JSON.parse(`[${chunks.map((c) => c.text).join(',')}]`).map((r: unknown[]) => r[0]);
    expect(ids).toEqual(Array.from({ length: 60000 }, (_, i) => i + 1));
    expect(summary.fields[0]).toMatchObject({ min_value: 1, max_value: 60000, unique_count: 60000 });
  });

  it('announces the columns of an empty result', async () => {
    const { summary, rows, chunks, columnsAnnounced } = await collect(connector(), 'select id, t from shop.types where false');
    expect(rows).toEqual([]);
    expect(chunks).toEqual([]);
    expect(columnsAnnounced).toEqual([
      { name: 'id', data_type: 'Integer', db_type: 'int4' },
      { name: 't', data_type: 'String', db_type: 'text' },
    ]);
    expect(summary.fields.map((f) => f.name)).toEqual(['id', 't']);
  });

  it('uses default_schema_name as the search path', async () => {
    const c = pgConnector({ database: db.name, defaultSchema: 'shop' });
    const { rows } = await collect(c, 'select count(*)::int from big');
    expect(rows).toEqual([[2500]]);
  });

  it('reports a failing sink as its own error, not as a query error', async () => {
    const boom = new Error('sink is full');
    const err = await failure(
      connector().run(
        { text: 'select g from generate_series(1, 100000) g', values: [] },
        {
          chunk: () => {
            throw boom;
          },
        },
      ),
    );
    expect(err).toBe(boom);
  });
});

describe('Postgres connector: the statement read off the wire (workerd)', () => {
  it('reads through its own protocol reader, and the connection is usable afterwards', async () => {
    const before = wireStats.statements;
    const { rows } = await collect(connector(), { text: 'select $1::int as a', values: [7] });
    expect(rows).toEqual([[7]]);
    expect(wireStats.statements).toBe(before + 1);
  });

  it('binds nulls, booleans, numbers, dates and text by their text form', async () => {
    const at = new Date('2024-05-06T07:08:09.123Z');
    const { rows } = await collect(connector(), {
      text: 'select $1::text is null as a, $2::bool as b, $3 = true as c, $4::numeric * 2 as d, $5::timestamptz as e, $6::text as f, $7 as g',
      values: [null, false, true, 1.25, at, "café 😀 \\ '", '2024-01-01'],
    });
    expect(rows).toEqual([[true, false, true, 2.5, '2024-05-06T07:08:09.123Z', "café 😀 \\ '", '2024-01-01']]);
  });

  it('reassembles values that span many reads (a 3 MB cell between small ones)', async () => {
    const { rows } = await collect(connector(), `select g, case when g = 2 then repeat('ab', 1500000) else 'x' end as v from generate_series(1, 3) g`);
    expect(rows.map((r) => r[0])).toEqual([1, 2, 3]);
    expect((rows[1] as string[])[1]).toHaveLength(3_000_000);
    expect(rows[2]).toEqual([3, 'x']);
  });

  it('a statement without rows (NoData) and an empty statement give empty results', async () => {
    const set = await collect(connector(), `set local work_mem = '8MB'`);
    expect(set.rows).toEqual([]);
    expect(set.summary.columns).toEqual([]);
    const empty = await collect(connector(), '   ');
    expect(empty.rows).toEqual([]);
    expect(empty.summary.columns).toEqual([]);
  });

  it('an error after rows have streamed is a query error; two statements in one text are refused', async () => {
    const late = await failure(collect(connector(), `select case when g = 50000 then 1 / 0 else g end from generate_series(1, 60000) g`));
    expect(late).toMatchObject({ kind: 'query_error', meta: { sqlstate: '22012' } });
    expect(late.message).toMatch(/division by zero/);
    const copyIn = await failure(collect(connector(), 'copy shop.big from stdin'));
    expect(copyIn).toMatchObject({ kind: 'query_error' });
    const two = await failure(collect(connector(), 'select 1; select 2'));
    expect(two).toMatchObject({ kind: 'query_error' });
    expect(two.message).toMatch(/multiple commands/);
  });
});

describe('Postgres connector: errors, timeouts, cancel', () => {
  it('turns bad SQL into a query error with the database message', async () => {
    const missing = await failure(collect(connector(), 'select * from shop.nope'));
    expect(missing).toBeInstanceOf(ConnectorError);
    expect(missing).toMatchObject({ kind: 'query_error', code: 'query_error', status: 422, executionStatus: 'query_error' });
    expect(missing.message).toBe('relation "shop.nope" does not exist (at character 15)');
    expect(missing.meta).toMatchObject({ sqlstate: '42P01' });
    const syntax = await failure(collect(connector(), 'selec 1'));
    expect(syntax.message).toMatch(/^syntax error at or near "selec"/);
  });

  it('runs read-only: writes fail with the database message', async () => {
    const err = await failure(collect(connector(), 'create table shop.evil (x int)'));
    expect(err).toMatchObject({ kind: 'query_error' });
    expect(err.message).toMatch(/read-only transaction/);
    const del = await failure(collect(connector(), 'delete from shop.types'));
    expect(del.message).toMatch(/cannot execute DELETE in a read-only transaction/);
  });

  it('stops a statement at the timeout with a timed_out error', async () => {
    const started = Date.now();
    const err = await failure(collect(connector(), 'select pg_sleep(10)', { timeoutMs: 300 }));
    expect(err).toMatchObject({ kind: 'timed_out', executionStatus: 'timed_out', code: 'query_error' });
    expect(err.message).toMatch(/statement timeout of 0\.3 s/);
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('cancels a running pg_sleep(30) from another connection; the server shows it gone', async () => {
    let handle: CancelHandle | null = null;
    const started = Date.now();
    const running = failure(collect(connector(), 'select pg_sleep(30)', { onCancelHandle: (h) => void (handle = h) }));
    while (!handle) await sleep(20);
    const h = handle as CancelHandle & { family: 'postgres' };
    expect(h).toMatchObject({ family: 'postgres', pid: expect.any(Number), application_name: expect.stringMatching(/^cairn-run-/) });
    // Wait until the server runs it, then cancel through a second connector (another request would).
    for (let i = 0; i < 100; i++) {
      const [row] = await sql`select count(*)::int as n from pg_stat_activity where pid = ${h.pid} and state = 'active' and query like '%pg_sleep(30)%'`;
      if (row!.n === 1) break;
      await sleep(20);
    }
    expect(await connector().cancel(h)).toBe(true);
    const err = await running;
    expect(err).toMatchObject({ kind: 'cancelled', executionStatus: 'cancelled' });
    expect(Date.now() - started).toBeLessThan(5000);
    const [gone] = await sql`select count(*)::int as n from pg_stat_activity where pid = ${h.pid} and query like '%pg_sleep(30)%' and state = 'active'`;
    expect(gone!.n).toBe(0);
    // Cancelling again (the statement has finished) signals nothing.
    expect(await connector().cancel(h)).toBe(false);
  });

  it('cancels through an AbortSignal', async () => {
    const ctl = new AbortController();
    const started = Date.now();
    const running = failure(collect(connector(), 'select pg_sleep(30)', { signal: ctl.signal, onCancelHandle: () => void setTimeout(() => ctl.abort(), 200) }));
    const err = await running;
    expect(err).toMatchObject({ kind: 'cancelled' });
    expect(Date.now() - started).toBeLessThan(5000);
  });
});

describe('Postgres connector: connections', () => {
  it('tests a connection: ok with the server version', async () => {
    const result = await connector().testConnection();
    expect(result).toEqual({ status: 'ok', error_message: null, server_version: expect.stringMatching(/^\d+(\.\d+)?/) });
  });

  it('tests a connection: errors carry the database message and name the host', async () => {
    const role = await pgConnector({ database: db.name, user: 'no_such_role_cx' }).testConnection();
    expect(role).toEqual({
      status: 'error',
      server_version: null,
      error_message: 'Could not connect to 127.0.0.1:5432: role "no_such_role_cx" does not exist',
    });
    const database = await pgConnector({ database: 'no_such_db_cx' }).testConnection();
    expect(database.error_message).toBe('Could not connect to 127.0.0.1:5432: database "no_such_db_cx" does not exist');
    const port = await pgConnector({ port: 1 }).testConnection();
    expect(port.status).toBe('error');
    expect(port.error_message).toMatch(/^Could not connect to 127\.0\.0\.1:1: /);
  });

  it('a run against an unreachable host is a connection error naming the host', async () => {
    const err = await failure(collect(pgConnector({ port: 1 }), 'select 1'));
    expect(err).toBeInstanceOf(ConnectorError);
    expect(err).toMatchObject({ kind: 'connection_error', code: 'invalid_state', status: 422 });
    expect(err.message).toMatch(/^Could not connect to 127\.0\.0\.1:1: /);
  });

  it('require_ssl against a server without SSL fails clearly', async () => {
    const result = await pgConnector({ database: db.name, requireSsl: true }).testConnection();
    expect(result.status).toBe('error');
    expect(result.error_message).toMatch(/^Could not connect to 127\.0\.0\.1:5432: .*SSL/);
    const err = await failure(collect(pgConnector({ database: db.name, requireSsl: true, verifySsl: true }), 'select 1'));
    expect(err).toMatchObject({ kind: 'connection_error' });
    expect(err.message).toMatch(/SSL/);
  });
});

describe('Postgres connector: schema', () => {
  it('lists schemas, tables and columns with db_type and data_type, honouring included_schemas', async () => {
    const { schemas } = await connector().schema({ included_schemas: ['shop'] });
    expect(schemas.map((s) => s.name)).toEqual(['shop']);
    const tables = Object.fromEntries(schemas[0]!.tables.map((t) => [t.name, t]));
    expect(Object.keys(tables)).toEqual(['big', 'happy', 'types']);
    const cols = Object.fromEntries(tables.types!.columns.map((c) => [c.name, [c.db_type, c.data_type]]));
    expect(cols).toMatchObject({
      id: ['integer', 'Integer'],
      b: ['boolean', 'Boolean'],
      i8: ['bigint', 'BigInt'],
      f8: ['double precision', 'Float'],
      n2: ['numeric(10,2)', 'Float'],
      vc: ['character varying(20)', 'String'],
      ch: ['character(3)', 'String'],
      jb: ['jsonb', 'JSON'],
      ts3: ['timestamp(3) without time zone', 'DateTime'],
      tstz: ['timestamp with time zone', 'DateTime'],
      d: ['date', 'Date'],
      tmtz: ['time with time zone', 'Time'],
      by: ['bytea', 'Binary'],
      e: ['mood', 'String'],
      ia: ['integer[]', 'Array<Integer>'],
      ta: ['text[]', 'Array<String>'],
      o: ['oid', 'Internal'],
      u: ['uuid', 'String'],
    });
    expect(tables.types!.columns.map((c) => c.name).slice(0, 3)).toEqual(['id', 'b', 'i2']);
    expect(tables.types!.row_count).toBeUndefined(); // no counts unless asked
  });

  it('without included_schemas lists every user schema but not the system ones', async () => {
    const { schemas } = await connector().schema();
    expect(schemas.map((s) => s.name)).toEqual(['hidden', 'shop']);
    const named = await connector().schema({ name: 'hidden' });
    expect(named.schemas.map((s) => s.name)).toEqual(['hidden']);
    const outside = await connector().schema({ name: 'hidden', included_schemas: ['shop'] });
    expect(outside.schemas).toEqual([]);
  });

  it('counts rows: catalog estimates, exact counts for small unanalysed tables', async () => {
    const data = await connector().schema({ included_schemas: ['shop'], rowCounts: true });
    const tables = Object.fromEntries(data.schemas[0]!.tables.map((t) => [t.name, t.row_count]));
    expect(tables).toEqual({ big: 2500, happy: undefined, types: 3 });
    expect(data.total_row_count).toBe(2503);
    expect(data.total_row_count_exact).toBe(false);
  });
});

describe('Postgres connector: session time zone', () => {
  it('runs in the given time zone and still writes instants in UTC', async () => {
    const { rows } = await collect(
      connector(),
      `select current_setting('TimeZone') as tz,
        timestamptz '2024-03-05 06:07:08.25+00' as instant, timestamp '2024-03-05 06:07:08' as naive,
        (timestamptz '2024-03-05 23:30:00+00')::date as local_day`,
      { timeZone: 'Asia/Kolkata' },
    );
    expect(rows).toEqual([['Asia/Kolkata', '2024-03-05T06:07:08.25Z', '2024-03-05T06:07:08Z', '2024-03-06']]);
  });

  it('an unknown time zone is a query error, not a connection error', async () => {
    const err = await failure(collect(connector(), 'select 1', { timeZone: 'Mars/Olympus' }));
    expect(err).toMatchObject({ kind: 'query_error' });
    expect(err.message).toMatch(/Mars\/Olympus/);
  });
});
