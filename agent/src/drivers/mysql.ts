import mysql from 'mysql2';
import type { AgentCell, AgentDatasource } from '@cairn/core/agent-protocol';
import {
  AgentFailure,
  CONNECT_TIMEOUT_MS,
  bytesCell,
  connectionFailure,
  messageOf,
  testBy,
  type Driver,
  type ResultOut,
  type RunRequest,
  type SchemaOptions,
  type SchemaRow,
} from './driver.ts';

type Conn = mysql.Connection & { _handshakePacket?: { serverVersion?: string } };

const SYSTEM = ['information_schema', 'mysql', 'performance_schema', 'sys'];
const EXACT_ENGINES = new Set(['MyISAM', 'Aria', 'MEMORY', 'CSV']);
const TIMEOUT_ERRNOS = new Set([3024, 1969]);
const INTERRUPTED = 1317;
const CONNECT_ERRNOS = new Set([1044, 1045, 1049, 1040, 1129, 1130, 1251, 2059]);

const portOf = (ds: AgentDatasource) => ds.port ?? 3306;

/** The same session settings as the API's direct mysql2 connector: text dates, exact big numbers. */
function create(ds: AgentDatasource, database = ds.database): Conn {
  const conn = mysql.createConnection({
    host: ds.host,
    port: portOf(ds),
    user: ds.user,
    password: ds.password ?? '',
    database: database || undefined,
    connectTimeout: CONNECT_TIMEOUT_MS,
    ssl: ds.require_ssl ? { rejectUnauthorized: ds.verify_ssl } : undefined,
    rowsAsArray: true,
    dateStrings: true,
    supportBigNumbers: true,
    bigNumberStrings: true,
    jsonStrings: true,
    decimalNumbers: false,
    timezone: 'Z',
    charset: 'utf8mb4_general_ci',
    multipleStatements: false,
  }) as Conn;
  conn.on('error', () => {});
  return conn;
}

async function open(ds: AgentDatasource, database?: string): Promise<Conn> {
  const conn = create(ds, database);
  try {
    await new Promise<void>((resolve, reject) => conn.connect((err) => (err ? reject(err) : resolve())));
  } catch (err) {
    conn.destroy();
    throw connectionFailure(ds, portOf(ds), err);
  }
  return conn;
}

const text = (conn: Conn, sql: string, values: unknown[] = []) =>
  new Promise<unknown[][]>((resolve, reject) =>
    conn.query({ sql, values, rowsAsArray: true }, (err, rows) => (err ? reject(err) : resolve(rows as unknown[][]))),
  );

const cell = (v: unknown): AgentCell => (v === undefined ? null : Buffer.isBuffer(v) ? bytesCell(v) : (v as AgentCell));

/** mysql and mariadb through mysql2: a read-only session with the statement timeout; the socket pauses while the reader is behind. */
export const mysqlDriver: Driver = {
  async run(ds, req: RunRequest, out: ResultOut, signal: AbortSignal) {
    const conn = await open(ds);
    let cancelled = false;
    const onAbort = () => {
      cancelled = true;
      void killQuery(ds, conn.threadId);
    };
    try {
      const mariadb = /mariadb/i.test(conn._handshakePacket?.serverVersion ?? '');
      await text(conn, 'SET SESSION TRANSACTION READ ONLY');
      await text(
        conn,
        mariadb
          ? `SET SESSION max_statement_time = ${Math.max(0.001, req.timeoutMs / 1000)}`
          : `SET SESSION max_execution_time = ${Math.max(1, Math.floor(req.timeoutMs))}`,
      );
      await text(conn, 'SET time_zone = ?', [req.timeZone === 'UTC' ? '+00:00' : req.timeZone]).catch(() => text(conn, "SET time_zone = '+00:00'"));
      if (signal.aborted) throw new AgentFailure('cancelled', 'The query was cancelled.');
      signal.addEventListener('abort', onAbort, { once: true });
      await new Promise<void>((resolve, reject) => {
        let described = false;
        const cmd = req.values.length
          ? conn.execute({ sql: req.text, values: req.values as never[], rowsAsArray: true })
          : conn.query({ sql: req.text, rowsAsArray: true });
        cmd.on('fields', (fields: { name: string; columnType: number; columnLength: number; characterSet: number; flags: number }[]) => {
          if (described) return;
          described = true;
          out.columns(
            fields.map((f) => ({
              family: 'mysql',
              name: f.name,
              field: { columnType: f.columnType, columnLength: f.columnLength, characterSet: f.characterSet, flags: Number(f.flags) },
            })),
          );
        });
        cmd.on('result', (row: unknown) => {
          if (!Array.isArray(row)) return; // an OK packet (a statement without rows)
          if (!out.row(row.map(cell))) {
            conn.pause();
            void out.drained().then(() => conn.resume());
          }
        });
        cmd.on('error', reject);
        cmd.on('end', () => {
          if (!described) out.columns([]);
          resolve();
        });
      });
    } catch (err) {
      if (err instanceof AgentFailure) throw err;
      const errno = (err as { errno?: number }).errno;
      if (errno !== undefined && TIMEOUT_ERRNOS.has(errno)) throw new AgentFailure('timed_out', messageOf(err));
      if (errno === INTERRUPTED) throw new AgentFailure(cancelled ? 'cancelled' : 'timed_out', cancelled ? 'The query was cancelled.' : messageOf(err));
      if (errno !== undefined && CONNECT_ERRNOS.has(errno)) throw connectionFailure(ds, portOf(ds), err);
      throw new AgentFailure(cancelled ? 'cancelled' : 'query_error', messageOf(err));
    } finally {
      signal.removeEventListener('abort', onAbort);
      conn.destroy();
    }
  },

  test: (ds) =>
    testBy(ds, async () => {
      const conn = await open(ds);
      try {
        const [[v]] = (await text(conn, 'select version()')) as [[string]];
        return v ?? null;
      } finally {
        conn.destroy();
      }
    }),

  async schema(ds, opts: SchemaOptions) {
    const lists = [opts.included_databases, opts.included_schemas].filter((l): l is string[] => Boolean(l?.length));
    let wanted: string[] | null = lists.length ? lists.reduce((a, b) => a.filter((x) => b.includes(x))) : ds.database ? [ds.database] : null;
    if (opts.name) wanted = wanted && !wanted.includes(opts.name) ? [] : [opts.name];
    if (wanted && !wanted.length) return { rows: [], exact: true };
    const conn = await open(ds);
    try {
      const filter = wanted ? `c.TABLE_SCHEMA in (${wanted.map(() => '?').join(', ')})` : `c.TABLE_SCHEMA not in (${SYSTEM.map(() => '?').join(', ')})`;
      const found = await text(
        conn,
        `select c.TABLE_SCHEMA, c.TABLE_NAME, c.COLUMN_NAME, c.COLUMN_TYPE, c.DATA_TYPE, t.TABLE_ROWS, t.ENGINE, t.TABLE_TYPE
          from information_schema.COLUMNS c
          join information_schema.TABLES t on t.TABLE_SCHEMA = c.TABLE_SCHEMA and t.TABLE_NAME = c.TABLE_NAME
         where ${filter} order by c.TABLE_SCHEMA, c.TABLE_NAME, c.ORDINAL_POSITION`,
        wanted ?? SYSTEM,
      );
      let exact = true;
      const rows: SchemaRow[] = found.map((r) => {
        const counted = r[7] !== 'VIEW' && r[5] !== null && r[5] !== undefined;
        if (counted && !EXACT_ENGINES.has(String(r[6]))) exact = false;
        return [String(r[0]), String(r[1]), String(r[2]), String(r[3]), String(r[4]), counted ? Number(r[5]) : null];
      });
      return { rows, exact };
    } catch (err) {
      throw new AgentFailure('query_error', messageOf(err));
    } finally {
      conn.destroy();
    }
  },
};

/** KILL QUERY from a second connection. */
async function killQuery(ds: AgentDatasource, threadId: number | null) {
  if (threadId === null) return;
  const conn = await open(ds).catch(() => null);
  if (!conn) return;
  await text(conn, `KILL QUERY ${Number(threadId)}`).catch(() => {});
  conn.destroy();
}
