import type mysqlModule from 'mysql2';
import net from 'node:net';
import { formatOffset, zoneOffset } from '@cairn/core';
import { MAX_BACKLOG, ResultWriter, type ResultSummary, type RowSink } from '../result.ts';
import {
  CONNECT_TIMEOUT_S,
  DEFAULT_TIMEOUT_MS,
  type CancelHandle,
  type ConnectionSettings,
  type ConnectionTestResult,
  type Connector,
  type Query,
  type RunOptions,
  type SchemaData,
  type SchemaOptions,
} from './connector.ts';
import { ConnectorError, FIRST_ANSWER_MS, answerWithin, cancelled, messageOf, timedOut } from './errors.ts';
import { mysqlColumn, type MysqlField } from './mysql-types.ts';
import { mysqlSchema } from './mysql-schema.ts';
import { closeInBackground, type Closer } from './postgres-source.ts';
import { RunGuard, callSink } from './run-guard.ts';

/**
 * mysql2 (a large CommonJS package) is loaded on first use, not with the module: every other request of the
 * worker, and every test file of the workers' suite, is spared evaluating it. A bundled deployment holds it
 * either way.
 */
let mysqlLoaded: Promise<typeof mysqlModule> | undefined;
const loadMysql = () =>
  (mysqlLoaded ??= import('mysql2').then((m) => (m as unknown as { default?: typeof mysqlModule }).default ?? (m as unknown as typeof mysqlModule)));

type Callback = (err: (Error & Record<string, unknown>) | null, rows?: unknown) => void;

interface Command {
  on(event: 'fields', fn: (fields: MysqlField[], index: number) => void): Command;
  on(event: 'result', fn: (row: unknown, index: number) => void): Command;
  on(event: 'error', fn: (err: unknown) => void): Command;
  on(event: 'end', fn: () => void): Command;
}

/**
 * The part of a mysql2 connection used here. (mysql2's own typings need Node's global types, which
 * a Workers project does not load.)
 */
interface Conn {
  threadId: number | null;
  _handshakePacket?: { serverVersion?: string };
  connect(cb: (err: unknown) => void): void;
  query(opts: { sql: string; rowsAsArray: boolean }, cb: Callback): void;
  execute(opts: { sql: string; values: unknown[]; rowsAsArray: boolean }, cb?: Callback): Command;
  pause(): void;
  resume(): void;
  end(cb: () => void): void;
  destroy(): void;
  on(event: 'error', fn: (err: unknown) => void): void;
}

/** Server errors that mean the statement was stopped: by a timeout or by KILL QUERY. */
const TIMEOUT_ERRNOS = new Set([3024 /* MySQL max_execution_time */, 1969 /* MariaDB max_statement_time */]);
const INTERRUPTED = 1317;
/** Login and database errors: the connection, not the query. */
const CONNECT_ERRNOS = new Set([1044, 1045, 1049, 1040, 1129, 1130, 1251, 2059]);

/**
 * MySQL and MariaDB through mysql2 (its static parsers, no code generation: it runs in workerd).
 * A run opens one connection, makes the session read-only with a statement timeout and UTC time
 * zone, and executes the query as a server-side prepared statement (values bound, never spliced),
 * streaming rows into JSON chunks; the socket is paused while the sink writes a chunk.
 */
export class MysqlConnector implements Connector {
  private readonly label: string;

  constructor(
    private readonly s: ConnectionSettings,
    private readonly close: Closer = closeInBackground,
  ) {
    this.label = s.via ? `${s.host}:${s.port} through ${s.via}` : `${s.host}:${s.port}`;
  }

  /** The handshake, over within FIRST_ANSWER_MS (a silent peer is given up). */
  private async connect(conn: Conn): Promise<void> {
    await answerWithin(connect(conn), FIRST_ANSWER_MS, this.label, () => conn.destroy());
  }

  /**
   * A connection, not yet logged in. Through an SSH tunnel (D51, D59) the channel is opened first and
   * handed to mysql2 as its `stream` (mysql2 takes a ready stream, not a promise of one).
   */
  private async open(database = this.s.database): Promise<Conn> {
    const channel = this.s.tunnel ? await this.s.tunnel() : undefined;
    const mysql = await loadMysql();
    const conn = mysql.createConnection({
      host: this.s.host,
      port: this.s.port,
      user: this.s.user,
      password: this.s.password ?? '',
      database: database || undefined,
      connectTimeout: CONNECT_TIMEOUT_S * 1000,
      ssl: this.s.requireSsl ? { rejectUnauthorized: this.s.verifySsl } : undefined,
      disableEval: true,
      rowsAsArray: true,
      dateStrings: true,
      supportBigNumbers: true,
      bigNumberStrings: true,
      jsonStrings: true,
      decimalNumbers: false,
      timezone: 'Z',
      charset: 'utf8mb4_general_ci',
      multipleStatements: false,
      // mysql2 connects here, to `host`; a checked address (s.address) is dialled instead while `host`
      // stays the name TLS verifies.
      ...(channel ? { stream: channel } : this.s.address ? { stream: () => dial(this.s.port, this.s.address!) } : {}),
    }) as unknown as Conn;
    // Errors also arrive through each command; an unhandled 'error' event would crash the isolate.
    conn.on('error', () => {});
    return conn;
  }

  /** Closes politely after success; after a failure the statement may still run, so the socket goes. */
  private release(conn: Conn, ok = true): void {
    if (!ok) {
      conn.destroy();
      return;
    }
    this.close(() => new Promise<void>((resolve) => conn.end(() => resolve())).finally(() => conn.destroy()));
  }

  async run(query: Query, sink: RowSink, opts: RunOptions = {}): Promise<ResultSummary> {
    const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    let conn: Conn | undefined;
    const guard = new RunGuard(timeoutMs, opts.signal, {
      cancel: (handle) => this.cancel(handle),
      destroy: () => conn?.destroy(),
    });
    let connected = false;
    let ok = false;
    try {
      conn = await this.open();
      await this.connect(conn);
      connected = true;
      const mariadb = /mariadb/i.test(conn._handshakePacket?.serverVersion ?? '');
      await text(conn, 'SET SESSION TRANSACTION READ ONLY');
      await text(
        conn,
        mariadb
          ? `SET SESSION max_statement_time = ${Math.max(0.001, timeoutMs / 1000)}`
          : `SET SESSION max_execution_time = ${Math.max(1, Math.floor(timeoutMs))}`,
      );
      await setTimeZone(conn, opts.timeZone ?? 'UTC');
      const handle: CancelHandle = { family: 'mysql', thread_id: conn.threadId! };
      guard.handle = handle;
      await opts.onCancelHandle?.(handle);
      guard.throwIfStopped();
      const summary = await stream(conn, query, sink, guard);
      guard.throwIfStopped();
      ok = true;
      return summary;
    } catch (err) {
      throw this.failure(err, guard, connected, timeoutMs);
    } finally {
      guard.done();
      if (conn) this.release(conn, ok);
    }
  }

  private failure(err: unknown, guard: RunGuard, connected: boolean, timeoutMs: number): unknown {
    if (guard.sinkError !== undefined && err === guard.sinkError) return err;
    if (guard.timedOut) return timedOut(timeoutMs);
    if (guard.cancelled) return cancelled();
    if (err instanceof ConnectorError) return err;
    const e = err as { errno?: number; sqlState?: string; fatal?: boolean; code?: string };
    if (e.errno !== undefined && TIMEOUT_ERRNOS.has(e.errno)) return timedOut(timeoutMs);
    if (e.errno === INTERRUPTED) return cancelled();
    if (!connected || (e.errno !== undefined && CONNECT_ERRNOS.has(e.errno))) return this.connectionError(err);
    if (e.sqlState && !e.fatal) {
      return new ConnectorError('query_error', messageOf(err), { sqlstate: e.sqlState, errno: e.errno, code: e.code });
    }
    return new ConnectorError('connection_error', `Lost the connection to ${this.label}: ${messageOf(err)}`);
  }

  private connectionError(err: unknown): ConnectorError {
    if (err instanceof ConnectorError) return err;
    const e = err as { code?: string };
    let message = messageOf(err);
    if (e.code === 'ETIMEDOUT') message = 'the connection timed out';
    if (e.code === 'HANDSHAKE_NO_SSL_SUPPORT') message = `${message} (the datasource requires SSL)`;
    return new ConnectorError('connection_error', `Could not connect to ${this.label}: ${message}`, e.code ? { code: e.code } : undefined);
  }

  async cancel(handle: CancelHandle): Promise<boolean> {
    if (handle.family !== 'mysql' || !Number.isSafeInteger(handle.thread_id)) return false;
    let conn: Conn | undefined;
    try {
      conn = await this.open();
      await this.connect(conn);
      await text(conn, `KILL QUERY ${handle.thread_id}`);
      return true;
    } catch (err) {
      if ((err as { errno?: number }).errno === 1094) return false; // no such thread: it has finished
      throw this.connectionError(err);
    } finally {
      if (conn) this.release(conn);
    }
  }

  async testConnection(): Promise<ConnectionTestResult> {
    let conn: Conn | undefined;
    try {
      conn = await this.open();
      await this.connect(conn);
      const [row] = (await text(conn, 'SELECT VERSION()')) as unknown[][];
      return { status: 'ok', error_message: null, server_version: String(row?.[0] ?? '') || null };
    } catch (err) {
      if (err instanceof ConnectorError && err.kind === 'refused') throw err;
      return { status: 'error', error_message: this.connectionError(err).message, server_version: null };
    } finally {
      if (conn) this.release(conn);
    }
  }

  async schema(opts: SchemaOptions = {}): Promise<SchemaData> {
    let conn: Conn | undefined;
    try {
      const c = (conn = await this.open());
      await this.connect(c);
      return await mysqlSchema((sql, values) => prepared(c, sql, values), this.s.database, opts);
    } catch (err) {
      const e = err as { sqlState?: string; errno?: number; fatal?: boolean };
      if (e.sqlState && !e.fatal && !(e.errno !== undefined && CONNECT_ERRNOS.has(e.errno))) {
        throw new ConnectorError('query_error', `Reading the schema failed: ${messageOf(err)}`);
      }
      throw this.connectionError(err);
    } finally {
      if (conn) this.release(conn);
    }
  }
}

/**
 * The session time zone. Named zones need the server's time zone tables; without them the zone's
 * current UTC offset stands in (right for today, not across daylight-saving changes).
 */
async function setTimeZone(conn: Conn, zone: string): Promise<void> {
  if (zone === 'UTC' || zone === 'Etc/UTC') {
    await text(conn, "SET time_zone = '+00:00'");
    return;
  }
  try {
    await prepared(conn, 'SET time_zone = ?', [zone]);
  } catch (err) {
    if ((err as { errno?: number }).errno !== 1298) throw err;
    await prepared(conn, 'SET time_zone = ?', [currentOffset(zone)]);
  }
}

/** `Europe/Berlin` → `+01:00` (or `+02:00` in summer): the zone's offset right now. */
export function currentOffset(zone: string, at = new Date()): string {
  // MySQL takes whole minutes: a historical offset with seconds keeps its hours and minutes.
  return formatOffset(zoneOffset(zone, at.getTime())).slice(0, 6);
}

/** A TCP connection to an address, set up as mysql2 sets up its own. */
function dial(port: number, address: string): unknown {
  const socket = net.connect(port, address);
  socket.setNoDelay(true);
  return socket;
}

function connect(conn: Conn): Promise<void> {
  return new Promise((resolve, reject) => conn.connect((err) => (err ? reject(err) : resolve())));
}

/** A statement without values, over the text protocol. */
function text(conn: Conn, sql: string): Promise<unknown> {
  return new Promise((resolve, reject) => conn.query({ sql, rowsAsArray: true }, (err, rows) => (err ? reject(err) : resolve(rows))));
}

/** A statement with bound values (server-side prepared). */
function prepared(conn: Conn, sql: string, values: unknown[]): Promise<unknown[][]> {
  return new Promise((resolve, reject) => conn.execute({ sql, values, rowsAsArray: true }, (err, rows) => (err ? reject(err) : resolve(rows as unknown[][]))));
}

/** Executes the query and streams its first result set into the sink. */
function stream(conn: Conn, query: Query, sink: RowSink, guard: RunGuard): Promise<ResultSummary> {
  return new Promise((resolve, reject) => {
    let writer: ResultWriter | null = null;
    let float32: number[] = [];
    let failed = false;
    let paused = false;
    let sinkWork: Promise<void> = Promise.resolve();
    const fail = (err: unknown) => {
      if (failed) return;
      failed = true;
      reject(err);
    };
    // Stops reading from the socket while the sink works (backpressure), then reads on.
    const toSink = (fn: () => unknown) => {
      if (!paused) {
        paused = true;
        conn.pause();
      }
      sinkWork = sinkWork
        .then(() => callSink(guard, fn))
        .then(() => {
          paused = false;
          conn.resume();
        });
      sinkWork.catch(fail);
    };
    const cmd = conn.execute({ sql: query.text, values: query.values, rowsAsArray: true });
    cmd.on('fields', (fields: MysqlField[], index: number) => {
      if (index !== 0 || writer) return;
      const w = (writer = new ResultWriter(fields.map(mysqlColumn)));
      // FLOAT columns arrive as 32-bit floats widened to doubles: round to their 7 significant digits.
      float32 = fields.flatMap((f, i) => (f.columnType === 4 ? [i] : []));
      const columns = w.summary().columns;
      toSink(() => sink.columns?.(columns));
    });
    cmd.on('result', (row: unknown, index: number) => {
      if (index !== 0 || failed) return;
      const cells = row as unknown[];
      for (const i of float32) if (typeof cells[i] === 'number') cells[i] = Number((cells[i] as number).toPrecision(7));
      const w = writer!;
      w.valueRow(cells);
      if (w.hasPending && !paused) toSink(() => w.flow(sink, MAX_BACKLOG));
    });
    cmd.on('error', fail);
    cmd.on('end', () => {
      sinkWork
        .then(async () => {
          const w = writer ?? new ResultWriter([]);
          await callSink(guard, () => w.drain(sink, true));
          if (!failed) resolve(w.summary());
        })
        .catch(fail);
    });
  });
}
