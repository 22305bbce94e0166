import type { AgentDatasource } from '@cairn/core/agent-protocol';
import {
  AgentFailure,
  CONNECT_TIMEOUT_MS,
  connectionFailure,
  messageOf,
  testBy,
  type Driver,
  type ResultOut,
  type RunRequest,
  type SchemaOptions,
  type SchemaRow,
} from './driver.ts';
import { mssqlColumn, mssqlDataType, otherCell } from './other-types.ts';

/* eslint-disable @typescript-eslint/no-explicit-any -- tedious is loaded on demand and typed loosely here */
type Tedious = any;
let loaded: Promise<Tedious> | null = null;
const tedious = () => (loaded ??= import('tedious').then((m: any) => m.default ?? m));

const portOf = (ds: AgentDatasource) => ds.port ?? 1433;

async function open(ds: AgentDatasource, timeoutMs = 0): Promise<any> {
  const t = await tedious();
  const conn = new t.Connection({
    server: ds.host,
    authentication: { type: 'default', options: { userName: ds.user, password: ds.password ?? '' } },
    options: {
      port: portOf(ds),
      database: ds.database || undefined,
      encrypt: ds.require_ssl,
      trustServerCertificate: !ds.verify_ssl,
      connectTimeout: CONNECT_TIMEOUT_MS,
      requestTimeout: timeoutMs,
      rowCollectionOnRequestCompletion: false,
      useUTC: true,
    },
  });
  try {
    await new Promise<void>((resolve, reject) => {
      conn.on('connect', (err: unknown) => (err ? reject(err) : resolve()));
      conn.connect();
    });
  } catch (err) {
    conn.close();
    throw connectionFailure(ds, portOf(ds), err);
  }
  conn.on('error', () => {});
  return conn;
}

/** `$1`-style placeholders become tedious' named parameters `@p1`. */
const named = (sql: string) => sql.replace(/\$(\d+)/g, '@p$1');

function collect(conn: any, sql: string): Promise<unknown[][]> {
  return tedious().then(
    (t) =>
      new Promise((resolve, reject) => {
        const rows: unknown[][] = [];
        const req = new t.Request(sql, (err: unknown) => (err ? reject(err) : resolve(rows)));
        req.on('row', (cols: { value: unknown }[]) => rows.push(cols.map((c) => c.value)));
        conn.execSql(req);
      }),
  );
}

/**
 * SQL Server through tedious (wired and type-mapped; not proven against a server here — see the docs).
 * requestTimeout is the statement timeout; cancel is tedious' attention packet; the request pauses while the reader is behind.
 */
export const mssqlDriver: Driver = {
  async run(ds, req: RunRequest, out: ResultOut, signal: AbortSignal) {
    const t = await tedious();
    const conn = await open(ds, req.timeoutMs);
    let cancelled = false;
    const onAbort = () => {
      cancelled = true;
      conn.cancel();
    };
    try {
      signal.addEventListener('abort', onAbort, { once: true });
      await new Promise<void>((resolve, reject) => {
        let kinds: number[] = [];
        const request = new t.Request(named(req.text), (err: unknown) => (err ? reject(err) : resolve()));
        req.values.forEach((v, i) => {
          const type = typeof v === 'number' ? (Number.isInteger(v) ? t.TYPES.BigInt : t.TYPES.Float) : typeof v === 'boolean' ? t.TYPES.Bit : t.TYPES.NVarChar;
          request.addParameter(`p${i + 1}`, type, v);
        });
        request.on('columnMetadata', (cols: { colName: string; type: { name: string } }[]) => {
          const mapped = cols.map((c) => mssqlColumn(c.colName, c.type.name));
          kinds = mapped.map((c) => (c.family === 'other' ? c.kind : 13));
          out.columns(mapped);
        });
        request.on('row', (cols: { value: unknown }[]) => {
          if (!out.row(cols.map((c, i) => otherCell(kinds[i]!, c.value)))) {
            request.pause();
            void out.drained().then(() => request.resume());
          }
        });
        conn.execSql(request);
      });
    } catch (err) {
      if (err instanceof AgentFailure) throw err;
      const code = (err as { code?: string }).code;
      if (cancelled || code === 'ECANCEL') throw new AgentFailure('cancelled', 'The query was cancelled.');
      if (code === 'ETIMEOUT') throw new AgentFailure('timed_out', messageOf(err));
      throw new AgentFailure('query_error', messageOf(err));
    } finally {
      signal.removeEventListener('abort', onAbort);
      conn.close();
    }
  },

  test: (ds) =>
    testBy(ds, async () => {
      const conn = await open(ds);
      try {
        const rows = await collect(conn, 'select @@version');
        return String(rows[0]?.[0] ?? '') || null;
      } finally {
        conn.close();
      }
    }),

  async schema(ds, opts: SchemaOptions) {
    const conn = await open(ds, 120_000);
    try {
      const found = await collect(
        conn,
        `select c.TABLE_SCHEMA, c.TABLE_NAME, c.COLUMN_NAME, c.DATA_TYPE
          from INFORMATION_SCHEMA.COLUMNS c order by c.TABLE_SCHEMA, c.TABLE_NAME, c.ORDINAL_POSITION`,
      );
      let wanted = opts.included_schemas?.length ? opts.included_schemas : null;
      if (opts.name) wanted = wanted && !wanted.includes(opts.name) ? [] : [opts.name];
      const rows: SchemaRow[] = found
        .filter((r) => !wanted || (wanted.includes(String(r[0])) && !['sys', 'INFORMATION_SCHEMA'].includes(String(r[0]))))
        .map((r) => [String(r[0]), String(r[1]), String(r[2]), String(r[3]), mssqlDataType(String(r[3])), null]);
      return { rows, exact: false };
    } catch (err) {
      throw err instanceof AgentFailure ? err : new AgentFailure('query_error', messageOf(err));
    } finally {
      conn.close();
    }
  },
};
