import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConnectorError, type CancelHandle } from './index.ts';
import { collect, createMyDatabase, failure, myConnector, myQuery, sleep } from '../../../test/connectors-fixtures.ts';

let db: Awaited<ReturnType<typeof createMyDatabase>>;
const connector = () => myConnector({ database: db.name });

beforeAll(async () => {
  db = await createMyDatabase();
  await myQuery(
    db.conn,
    `
    create table types (
      id int auto_increment primary key,
      flag tinyint(1), ti tinyint, si smallint, mi mediumint, i int, iu int unsigned, bi bigint, bu bigint unsigned,
      de decimal(30, 10), fl float, dbl double, vc varchar(40), ch char(3), tx text, en enum('red', 'green'), st set('a', 'b'),
      js json, dt datetime(6), dt0 datetime, ts timestamp(3) null default null, d date, tm time(3), yr year,
      b1 bit(1), b8 bit(8), bin binary(3), vb varbinary(10), bl blob, u uuid, ip inet6
    );
    insert into types (flag, ti, si, mi, i, iu, bi, bu, de, fl, dbl, vc, ch, tx, en, st, js, dt, dt0, ts, d, tm, yr, b1, b8, bin, vb, bl, u, ip)
    values (1, -128, -32768, 8388607, -2147483648, 4294967295, 9007199254740993, 18446744073709551615,
            12345678901234567890.0123456789, 0.1, 0.1, 'quote " backslash \\\\ tab \\t café 😀', 'ab', 'long text', 'green', 'a,b',
            '{"a": [1, 2.5, "x"], "b": null}', '2024-03-05 06:07:08.500000', '2024-03-05 06:07:08', '2024-03-05 06:07:08.125',
            '2024-02-29', '-12:30:00.250', 2024, b'1', b'10000001', 'abc', x'00ff', x'010203',
            'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '::1'),
           (0, 0, 0, 0, 0, 0, -9007199254740991, 0, -0.5, -2.5, 1e300, '', null, '', 'red', '', '[]',
            '0000-00-00 00:00:00', null, null, '0000-00-00', '00:00:00', null, b'0', b'0', null, x'', null, null, null);
    insert into types (flag) values (null);
    create view greens as select id, en from types where en = 'green';
    create table big (id int primary key, label varchar(20)) engine = innodb;
    insert into big select seq, concat('row ', seq) from seq_1_to_2500;
    analyze table big;
  `,
  );
});

afterAll(async () => {
  await db?.drop();
});

describe('MySQL/MariaDB connector: type mapping', () => {
  it('maps every column type to a data type and its values to JSON', async () => {
    const { summary, rows } = await collect(connector(), 'select * from types order by id');
    const types = Object.fromEntries(summary.columns.map((c) => [c.name, [c.data_type, c.db_type]]));
    expect(types).toEqual({
      id: ['Integer', 'int'],
      flag: ['Boolean', 'tinyint(1)'],
      ti: ['Integer', 'tinyint'],
      si: ['Integer', 'smallint'],
      mi: ['Integer', 'mediumint'],
      i: ['Integer', 'int'],
      iu: ['Integer', 'int unsigned'],
      bi: ['BigInt', 'bigint'],
      bu: ['BigInt', 'bigint unsigned'],
      de: ['Float', 'decimal'],
      fl: ['Float', 'float'],
      dbl: ['Float', 'double'],
      vc: ['String', 'varchar'],
      ch: ['String', 'char'],
      tx: ['String', 'text'],
      en: ['String', 'enum'],
      st: ['String', 'set'],
      js: ['JSON', 'json'],
      dt: ['DateTime', 'datetime'],
      dt0: ['DateTime', 'datetime'],
      ts: ['DateTime', 'timestamp'],
      d: ['Date', 'date'],
      tm: ['Time', 'time'],
      yr: ['Integer', 'year'],
      b1: ['Boolean', 'bit(1)'],
      b8: ['BigInt', 'bit(8)'],
      bin: ['Binary', 'binary'],
      vb: ['Binary', 'varbinary'],
      bl: ['Binary', 'blob'],
      u: ['String', 'uuid'],
      ip: ['String', 'inet6'],
    });
    const [first, second, third] = rows.map((r) => Object.fromEntries(summary.columns.map((c, i) => [c.name, r[i]])));
    expect(first).toEqual({
      id: 1,
      flag: true,
      ti: -128,
      si: -32768,
      mi: 8388607,
      i: -2147483648,
      iu: 4294967295,
      bi: '9007199254740993',
      bu: '18446744073709551615',
      // biome-ignore lint/correctness/noPrecisionLoss: the driver gives decimals as JS numbers; the literal is the value as written
      de: 12345678901234567890.0123456789,
      fl: 0.1,
      dbl: 0.1,
      vc: 'quote " backslash \\ tab \t café 😀',
      ch: 'ab',
      tx: 'long text',
      en: 'green',
      st: 'a,b',
      js: { a: [1, 2.5, 'x'], b: null },
      dt: '2024-03-05T06:07:08.5Z',
      dt0: '2024-03-05T06:07:08Z',
      ts: '2024-03-05T06:07:08.125Z',
      d: '2024-02-29',
      tm: '-12:30:00.25',
      yr: 2024,
      b1: true,
      b8: 129,
      bin: btoa('abc'),
      vb: btoa(String.fromCharCode(0, 255)),
      bl: btoa(String.fromCharCode(1, 2, 3)),
      u: 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
      ip: '::1',
    });
    expect(second).toMatchObject({
      flag: false,
      bi: -9007199254740991,
      bu: 0,
      de: -0.5,
      fl: -2.5,
      dbl: 1e300,
      vc: '',
      st: '',
      js: [],
      dt: null,
      d: null,
      tm: '00:00:00',
      b1: false,
      b8: 0,
      vb: '',
    });
    expect(Object.values(third!).filter((v) => v !== null)).toEqual([3]);
  });

  it('keeps the decimal digits exactly in the JSON text', async () => {
    const { chunks } = await collect(
      connector(),
      'select cast(12345678901234567890.0123456789 as decimal(30,10)) as n, cast(9223372036854775807 as signed) as big',
    );
    expect(new TextDecoder().decode(chunks[0]!.data)).toBe('[12345678901234567890.0123456789,"9223372036854775807"]');
  });

  it('serialises the same values as the Postgres family', async () => {
    const { rows } = await collect(
      connector(),
      `select true as b, 42 as i, 1.5e0 as f, 'x"y' as s, date '2024-01-02' as d,
      timestamp '2024-01-02 03:04:05.000' as ts, json_object('a', 1) as j, cast(null as char) as n`,
    );
    expect(rows).toEqual([[1, 42, 1.5, 'x"y', '2024-01-02', '2024-01-02T03:04:05Z', { a: 1 }, null]]);
  });

  it('binds values as parameters of a prepared statement', async () => {
    const payload = `'; drop table types; -- \\`;
    const { rows } = await collect(connector(), { text: 'select ? as v, ? + 1 as n', values: [payload, 41] });
    expect(rows).toEqual([[payload, 42]]);
    const counted = await myQuery<{ n: number }[]>(db.conn, 'select count(*) as n from types');
    expect(counted[0]!.n).toBe(3);
  });

  it('computes field statistics', async () => {
    const { summary } = await collect(connector(), 'select id, en, d from types');
    expect(summary.fields[0]).toMatchObject({ name: 'id', data_type: 'Integer', min_value: 1, max_value: 3, unique_count: 3, group_by: false });
    expect(summary.fields[1]).toMatchObject({ name: 'en', min_value: 'green', max_value: 'red', unique_count: 2, group_by: true });
    expect(summary.fields[2]).toMatchObject({ data_type: 'Date', min_value: '2024-02-29', max_value: '2024-02-29', unique_count: 1 });
  });
});

describe('MySQL/MariaDB connector: streaming', () => {
  it('streams more rows than one chunk, in order, to a slow sink', async () => {
    const chunks: { rows: number; text: string }[] = [];
    const summary = await connector().run(
      { text: `select seq as id, concat(repeat('x', 40), seq) as label, now() as at from seq_1_to_60000`, values: [] },
      {
        chunk: async (c) => {
          chunks.push({ rows: c.rows, text: new TextDecoder().decode(c.data) });
          await sleep(5);
        },
      },
    );
    expect(summary.rowCount).toBe(60000);
    expect(chunks.length).toBeGreaterThan(5);
    for (const c of chunks) expect(JSON.parse(`[${c.text}]`)).toHaveLength(c.rows);
    const ids = JSON.parse(`[${chunks.map((c) => c.text).join(',')}]`).map((r: unknown[]) => r[0]);
    expect(ids).toEqual(Array.from({ length: 60000 }, (_, i) => i + 1));
  });

  it('announces the columns of an empty result', async () => {
    const { rows, columnsAnnounced } = await collect(connector(), 'select id, vc from types where 1 = 0');
    expect(rows).toEqual([]);
    expect(columnsAnnounced).toEqual([
      { name: 'id', data_type: 'Integer', db_type: 'int' },
      { name: 'vc', data_type: 'String', db_type: 'varchar' },
    ]);
  });
});

describe('MySQL/MariaDB connector: errors, timeouts, cancel', () => {
  it('turns bad SQL into a query error with the database message', async () => {
    const missing = await failure(collect(connector(), 'select * from nope'));
    expect(missing).toBeInstanceOf(ConnectorError);
    expect(missing).toMatchObject({ kind: 'query_error', code: 'query_error', status: 422 });
    expect(missing.message).toBe(`Table '${db.name}.nope' doesn't exist`);
    const syntax = await failure(collect(connector(), 'selec 1'));
    expect(syntax.message).toMatch(/^You have an error in your SQL syntax/);
  });

  it('runs read-only: writes and DDL fail', async () => {
    const create = await failure(collect(connector(), 'create table evil (x int)'));
    expect(create).toMatchObject({ kind: 'query_error' });
    expect(create.message).toMatch(/READ ONLY transaction/);
    const del = await failure(collect(connector(), 'delete from types'));
    expect(del.message).toMatch(/READ ONLY transaction/);
    const rows = await myQuery<unknown[]>(db.conn, 'select id from types');
    expect(rows).toHaveLength(3);
  });

  it('stops a statement at the timeout with a timed_out error', async () => {
    const started = Date.now();
    const err = await failure(collect(connector(), 'select sleep(10)', { timeoutMs: 300 }));
    expect(err).toMatchObject({ kind: 'timed_out', executionStatus: 'timed_out' });
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('cancels a running SLEEP(30) with KILL QUERY from another connection; the server shows it gone', async () => {
    let handle: CancelHandle | null = null;
    const started = Date.now();
    const running = failure(collect(connector(), 'select sleep(30) as slept', { onCancelHandle: (h) => void (handle = h) }));
    while (!handle) await sleep(20);
    const h = handle as CancelHandle & { family: 'mysql' };
    expect(h).toEqual({ family: 'mysql', thread_id: expect.any(Number) });
    const busy = () =>
      myQuery<{ n: number }[]>(db.conn, `select count(*) as n from information_schema.processlist where id = ${h.thread_id} and info like '%sleep(30)%'`);
    for (let i = 0; i < 100 && (await busy())[0]!.n === 0; i++) await sleep(20);
    expect(await connector().cancel(h)).toBe(true);
    expect(await running).toMatchObject({ kind: 'cancelled', executionStatus: 'cancelled', message: 'The query was cancelled.' });
    expect(Date.now() - started).toBeLessThan(5000);
    expect((await busy())[0]!.n).toBe(0);
  });

  it('cancels a busy statement (not only a sleeping one)', async () => {
    let handle: CancelHandle | null = null;
    const running = failure(
      collect(connector(), 'select sum(a.seq * b.seq) from seq_1_to_100000 a, seq_1_to_100000 b', { onCancelHandle: (h) => void (handle = h) }),
    );
    while (!handle) await sleep(20);
    await sleep(200);
    expect(await connector().cancel(handle!)).toBe(true);
    expect(await running).toMatchObject({ kind: 'cancelled', executionStatus: 'cancelled' });
  });

  it('cancelling a finished statement signals nothing', async () => {
    let handle: CancelHandle | null = null;
    await collect(connector(), 'select 1', { onCancelHandle: (h) => void (handle = h) });
    await sleep(100);
    expect(await connector().cancel(handle!)).toBe(false);
  });

  it('cancels through an AbortSignal', async () => {
    const ctl = new AbortController();
    const started = Date.now();
    const err = await failure(
      collect(connector(), 'select sum(a.seq * b.seq) from seq_1_to_100000 a, seq_1_to_100000 b', {
        signal: ctl.signal,
        onCancelHandle: () => void setTimeout(() => ctl.abort(), 200),
      }),
    );
    expect(err).toMatchObject({ kind: 'cancelled' });
    expect(Date.now() - started).toBeLessThan(5000);
  });
});

describe('MySQL/MariaDB connector: connections', () => {
  it('tests a connection: ok with the server version', async () => {
    expect(await connector().testConnection()).toEqual({ status: 'ok', error_message: null, server_version: expect.stringMatching(/MariaDB/) });
  });

  it('tests a connection: wrong password, unknown database, wrong port', async () => {
    const password = await myConnector({ password: 'wrong-password' }).testConnection();
    expect(password).toEqual({
      status: 'error',
      server_version: null,
      error_message: expect.stringMatching(
        /^Could not connect to 127\.0\.0\.1:3306: Access denied for user 'root'@'(localhost|127\.0\.0\.1)' \(using password: YES\)$/,
      ),
    });
    const database = await myConnector({ database: 'no_such_db_cx' }).testConnection();
    expect(database.error_message).toBe("Could not connect to 127.0.0.1:3306: Unknown database 'no_such_db_cx'");
    const port = await myConnector({ port: 1 }).testConnection();
    expect(port.status).toBe('error');
    expect(port.error_message).toMatch(/^Could not connect to 127\.0\.0\.1:1: /);
  });

  it('a run against an unreachable host is a connection error naming the host', async () => {
    const err = await failure(collect(myConnector({ port: 1 }), 'select 1'));
    expect(err).toMatchObject({ kind: 'connection_error', code: 'invalid_state', status: 422 });
    expect(err.message).toMatch(/^Could not connect to 127\.0\.0\.1:1: /);
  });

  it('require_ssl against a server without SSL fails clearly', async () => {
    const result = await myConnector({ database: db.name, requireSsl: true }).testConnection();
    expect(result.status).toBe('error');
    expect(result.error_message).toMatch(/^Could not connect to 127\.0\.0\.1:3306: .*(SSL|secure)/);
    const err = await failure(collect(myConnector({ database: db.name, requireSsl: true }), 'select 1'));
    expect(err).toMatchObject({ kind: 'connection_error' });
  });
});

describe('MySQL/MariaDB connector: schema', () => {
  it('lists the datasource database: tables, views and columns with db_type and data_type', async () => {
    const { schemas } = await connector().schema();
    expect(schemas.map((s) => s.name)).toEqual([db.name]);
    const tables = Object.fromEntries(schemas[0]!.tables.map((t) => [t.name, t]));
    expect(Object.keys(tables)).toEqual(['big', 'greens', 'types']);
    const cols = Object.fromEntries(tables.types!.columns.map((c) => [c.name, [c.db_type, c.data_type]]));
    expect(cols).toMatchObject({
      id: ['int(11)', 'Integer'],
      flag: ['tinyint(1)', 'Boolean'],
      iu: ['int(10) unsigned', 'Integer'],
      bu: ['bigint(20) unsigned', 'BigInt'],
      de: ['decimal(30,10)', 'Float'],
      vc: ['varchar(40)', 'String'],
      en: ["enum('red','green')", 'String'],
      dt: ['datetime(6)', 'DateTime'],
      d: ['date', 'Date'],
      tm: ['time(3)', 'Time'],
      b1: ['bit(1)', 'Boolean'],
      bl: ['blob', 'Binary'],
      u: ['uuid', 'String'],
    });
    expect(tables.types!.columns[0]!.name).toBe('id');
  });

  it('honours included_databases (and included_schemas, the same thing here) and name', async () => {
    const other = await connector().schema({ included_databases: ['mysql'] });
    expect(other.schemas.map((s) => s.name)).toEqual(['mysql']);
    const both = await connector().schema({ included_databases: [db.name, 'mysql'], included_schemas: [db.name] });
    expect(both.schemas.map((s) => s.name)).toEqual([db.name]);
    const named = await connector().schema({ name: db.name, included_databases: ['mysql'] });
    expect(named.schemas).toEqual([]);
    const all = await myConnector().schema();
    expect(all.schemas.map((s) => s.name)).toContain(db.name);
    expect(all.schemas.map((s) => s.name)).not.toContain('information_schema');
  });

  it('counts rows from the catalog (estimates for InnoDB)', async () => {
    const data = await connector().schema({ rowCounts: true });
    const tables = Object.fromEntries(data.schemas[0]!.tables.map((t) => [t.name, t.row_count]));
    expect(tables.greens).toBeUndefined();
    expect(tables.big).toBeGreaterThan(2000);
    expect(tables.big).toBeLessThan(3000);
    expect(data.total_row_count_exact).toBe(false);
  });
});

describe('MySQL/MariaDB connector: session time zone', () => {
  it('sets the session time zone (the current offset where the server has no zone tables)', async () => {
    const { rows } = await collect(connector(), 'select @@session.time_zone as tz, ts from types where id = 1', { timeZone: 'Asia/Kolkata' });
    expect(rows[0]![0]).toMatch(/^(Asia\/Kolkata|\+05:30)$/);
    // TIMESTAMP columns are shown in the session zone: 06:07:08.125 UTC is 11:37:08.125 in Kolkata.
    expect(rows[0]![1]).toBe('2024-03-05T11:37:08.125Z');
    const utc = await collect(connector(), 'select @@session.time_zone');
    expect(utc.rows).toEqual([['+00:00']]);
  });
});
