import { describe, expect, it } from 'vitest';
import { ConnectorError, TrinoConnector, executionStatusOf, type CancelHandle, type ConnectionSettings } from './index.ts';
import type { Fetcher } from './http-common.ts';
import { collect, failure, sleep } from '../../../test/connectors-fixtures.ts';
import {
  CANCELLED_PAGE,
  CATALOG_ERROR,
  RUNNING_ID,
  RUNNING_PAGE,
  SYNTAX_ERROR,
  TIME_LIMIT_ERROR,
  errorExchanges,
  schemaExchanges,
  selectExchanges,
  versionExchanges,
  type Exchange,
} from '../../../test/recordings/trino.ts';

/**
 * The Trino and Presto connector against recorded exchanges of the client REST protocol
 * (test/recordings/trino.ts): a substituted fetch checks each request against the next recorded one
 * (method, path, headers) and answers with the recorded response. No coordinator runs on the test
 * machines, so these are the proof, and the docs say so.
 */
const settings: ConnectionSettings = {
  host: 'trino.example',
  port: 8080,
  user: 'analyst',
  password: undefined,
  database: 'hive',
  defaultSchema: 'sales',
  requireSsl: false,
  verifySsl: false,
};

interface Seen {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
}

/** A fetch that replays `exchanges` in order and records what was asked. */
function replay(exchanges: Exchange[]): { fetcher: Fetcher; seen: Seen[] } {
  const queue = [...exchanges];
  const seen: Seen[] = [];
  const fetcher: Fetcher = async (url, init = {}) => {
    const headers = Object.fromEntries(Object.entries((init.headers ?? {}) as Record<string, string>).map(([k, v]) => [k.toLowerCase(), v]));
    seen.push({ method: init.method ?? 'GET', url, headers, body: typeof init.body === 'string' ? init.body : undefined });
    const next = queue.shift();
    if (!next) throw new Error(`unexpected request ${init.method} ${url}`);
    const u = new URL(url);
    expect(`${init.method} ${u.pathname}${u.search}`).toBe(`${next.method} ${next.path}`);
    return new Response(next.body || null, { status: next.status, headers: { 'content-type': 'application/json' } });
  };
  return { fetcher, seen };
}

const noPause = async () => {};
const trino = (fetcher: Fetcher, over: Partial<ConnectionSettings> = {}) => new TrinoConnector('trino', { ...settings, ...over }, undefined, fetcher, noPause);

describe('Trino connector (recorded exchanges)', () => {
  it('posts the statement with the session headers, follows nextUri (retrying a 503) and maps types and values', async () => {
    const { fetcher, seen } = replay(selectExchanges());
    const { summary, rows, chunks } = await collect(trino(fetcher), 'SELECT * FROM orders', { timeoutMs: 30_000, timeZone: 'Europe/Berlin' });
    expect(seen[0]).toMatchObject({
      method: 'POST',
      url: 'http://trino.example:8080/v1/statement',
      body: 'SELECT * FROM orders',
      headers: {
        'x-trino-user': 'analyst',
        'x-trino-catalog': 'hive',
        'x-trino-schema': 'sales',
        'x-trino-time-zone': 'Europe/Berlin',
        'x-trino-session': 'query_max_execution_time=30s',
        'x-trino-source': 'cairn',
      },
    });
    expect(seen[0]!.headers.authorization).toBeUndefined();
    // nextUri names the coordinator's own address; requests stay on the datasource's host.
    expect(seen.slice(1).map((s) => s.url)).toEqual(seen.slice(1).map((s) => `http://trino.example:8080${new URL(s.url).pathname}`));
    expect(seen).toHaveLength(6);
    expect(Object.fromEntries(summary.columns.map((c) => [c.name, c.data_type]))).toEqual({
      id: 'Integer',
      big: 'BigInt',
      price: 'Float',
      ratio: 'Float',
      name: 'String',
      ok: 'Boolean',
      day: 'Date',
      at: 'DateTime',
      at_zone: 'DateTime',
      t: 'Time',
      raw: 'Binary',
      doc: 'JSON',
      tags: 'Array<String>',
      pair: 'Record',
      u: 'String',
    });
    expect(rows).toEqual([
      [
        1,
        '9007199254740993',
        12345.67,
        0.5,
        'café "q"',
        true,
        '2024-02-29',
        '2024-03-05T06:07:08.5Z',
        '2024-03-05T06:07:08Z',
        '10:11:12',
        'AAH/',
        { a: [1, 2] },
        ['x', 'y'],
        [7, 'z'],
        '61f0c404-5cb3-11e7-907b-a6006ad3dba0',
      ],
      [2, -5, -0.5, null, '', false, '1970-01-01', '2024-01-01T00:00:00Z', '2024-07-01T10:00:00Z', '00:00:00', '', null, [], [null, null], null],
      [3, null, null, null, null, null, null, null, '2024-01-01T04:30:00Z', null, null, null, null, null, null],
    ]);
    // The digits travel exactly in the stored chunk.
    expect(new TextDecoder().decode(chunks[0]!.data)).toContain('"9007199254740993"');
    expect(summary.rowCount).toBe(3);
  });

  it('Presto: the same protocol with X-Presto-* headers; a password goes as Basic auth', async () => {
    const { fetcher, seen } = replay(selectExchanges());
    const presto = new TrinoConnector('presto', { ...settings, password: 'pw', requireSsl: true, port: 8443 }, undefined, fetcher, noPause);
    const { rows } = await collect(presto, 'SELECT 1');
    expect(rows).toHaveLength(3);
    expect(seen[0]!.url).toBe('https://trino.example:8443/v1/statement');
    expect(seen[0]!.headers).toMatchObject({ 'x-presto-user': 'analyst', 'x-presto-catalog': 'hive', authorization: `Basic ${btoa('analyst:pw')}` });
    expect(Object.keys(seen[0]!.headers).some((h) => h.startsWith('x-trino-'))).toBe(false);
  });

  it("the server's error: query_error with its message; a time limit is timed_out; a missing catalog is the connection's", async () => {
    const syntax = await failure(collect(trino(replay(errorExchanges(SYNTAX_ERROR)).fetcher), 'SELEC 1'));
    expect(syntax).toBeInstanceOf(ConnectorError);
    expect(syntax).toMatchObject({ kind: 'query_error', status: 422, message: SYNTAX_ERROR.message });
    const slow = await failure(collect(trino(replay(errorExchanges(TIME_LIMIT_ERROR)).fetcher), 'SELECT 1', { timeoutMs: 2000 }));
    expect(slow).toMatchObject({ kind: 'timed_out', executionStatus: 'timed_out' });
    const catalog = await failure(collect(trino(replay(errorExchanges(CATALOG_ERROR)).fetcher), 'SELECT 1'));
    expect(catalog).toMatchObject({ kind: 'connection_error' });
    expect(catalog.message).toContain("Catalog 'nope' does not exist");
  });

  it('refuses bound values without sending anything', async () => {
    const { fetcher, seen } = replay([]);
    const err = await failure(collect(trino(fetcher), { text: 'SELECT * FROM t WHERE a = $1', values: ['x'] }));
    expect(err).toMatchObject({ kind: 'query_error', message: expect.stringMatching(/^Trino datasources cannot run queries with bound values/) });
    expect(seen).toHaveLength(0);
  });

  it('cancels with a DELETE of the nextUri, from another connector with the stored handle', async () => {
    let n = 0;
    let deleted = false;
    const seen: string[] = [];
    const fetcher: Fetcher = async (url, init = {}) => {
      seen.push(`${init.method} ${new URL(url).pathname}`);
      if (init.method === 'DELETE') {
        deleted = true;
        return new Response(null, { status: 204 });
      }
      await sleep(20);
      return new Response(deleted ? CANCELLED_PAGE : RUNNING_PAGE(n++), { status: 200 });
    };
    let handle: CancelHandle | null = null;
    const run = failure(collect(trino(fetcher), 'SELECT count(*) FROM huge', { onCancelHandle: (h) => void (handle = h) }));
    while (!handle) await sleep(10);
    expect(handle).toEqual({ family: 'trino', query_id: RUNNING_ID, next_uri: `http://trino.example:8080/v1/statement/executing/${RUNNING_ID}/c1/1` });
    expect(await trino(fetcher).cancel(handle!)).toBe(true);
    const err = await run;
    expect(executionStatusOf(err)).toBe('cancelled');
    expect(seen).toContain(`DELETE /v1/statement/executing/${RUNNING_ID}/c1/1`);
    // A handle of another kind, or one that is not a statement URI, is not followed.
    expect(await trino(fetcher).cancel({ family: 'trino', query_id: 'x', next_uri: 'http://evil.example/admin' })).toBe(false);
    expect(await trino(fetcher).cancel({ family: 'mysql', thread_id: 1 })).toBe(false);
  });

  it('stops at an AbortSignal with a DELETE, and by its own guard when the statement timeout passes', async () => {
    let deletes = 0;
    let n = 0;
    const fetcher: Fetcher = async (_url, init = {}) => {
      if (init.method === 'DELETE') {
        deletes++;
        return new Response(null, { status: 204 });
      }
      await sleep(20);
      return new Response(RUNNING_PAGE(n++), { status: 200 });
    };
    const ctl = new AbortController();
    const aborted = failure(collect(trino(fetcher), 'SELECT 1', { signal: ctl.signal, onCancelHandle: () => void setTimeout(() => ctl.abort(), 50) }));
    expect(await aborted).toMatchObject({ kind: 'cancelled' });
    expect(deletes).toBe(1);
    const started = Date.now();
    const late = await failure(collect(trino(fetcher), 'SELECT 1', { timeoutMs: 200 }));
    expect(late).toMatchObject({ kind: 'timed_out' });
    expect(deletes).toBe(2);
    expect(Date.now() - started).toBeLessThan(8000);
  });

  it("tests the connection: the version, a refused login with the server's words, something that is not Trino, nothing listening", async () => {
    expect(await trino(replay(versionExchanges('438')).fetcher).testConnection()).toEqual({ status: 'ok', error_message: null, server_version: '438' });
    const login = await trino(
      replay([{ method: 'POST', path: '/v1/statement', status: 401, body: 'Unauthorized: Invalid credentials' }]).fetcher,
    ).testConnection();
    expect(login).toEqual({
      status: 'error',
      server_version: null,
      error_message: 'Could not connect to trino.example:8080: Trino refused the login (HTTP 401: Unauthorized: Invalid credentials).',
    });
    const html = await trino(replay([{ method: 'POST', path: '/v1/statement', status: 200, body: '<html>hello</html>' }]).fetcher).testConnection();
    expect(html.error_message).toMatch(/the answer is not Trino's client protocol/);
    const down = await trino(async () => {
      throw new Error('Network connection lost.');
    }).testConnection();
    expect(down.error_message).toMatch(/^Could not connect to trino\.example:8080: nothing accepts connections/);
  });

  it("reads the schema from the catalog's information_schema", async () => {
    const { fetcher, seen } = replay(schemaExchanges());
    const data = await trino(fetcher).schema({ included_schemas: ['sales', "we'b"] });
    expect(seen[0]!.body).toBe(
      "SELECT table_schema, table_name, column_name, data_type FROM \"hive\".information_schema.columns WHERE table_schema IN ('sales', 'we''b') ORDER BY table_schema, table_name, ordinal_position",
    );
    expect(data.schemas.map((s) => [s.name, s.tables.map((t) => t.name)])).toEqual([
      ['sales', ['orders', 'customers']],
      ['web', ['hits']],
    ]);
    expect(data.schemas[0]!.tables[0]!.columns).toEqual([
      { name: 'id', db_type: 'bigint', data_type: 'BigInt' },
      { name: 'placed_at', db_type: 'timestamp(3) with time zone', data_type: 'DateTime' },
      { name: 'total', db_type: 'decimal(10,2)', data_type: 'Float' },
    ]);
    expect(data.schemas[1]!.tables[0]!.columns[0]!.data_type).toBe('Array<String>');
    const noCatalog = await failure(trino(replay([]).fetcher, { database: undefined }).schema());
    expect(noCatalog.message).toMatch(/name their catalog in "database"/);
  });
});
