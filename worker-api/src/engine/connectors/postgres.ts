import type postgres from 'postgres';
import { ResultWriter, type ResultSummary, type RowSink } from '../result.ts';
import { CHUNK_BYTES, MAX_BACKLOG } from '../result.ts';
import {
  DEFAULT_TIMEOUT_MS,
  FIRST_BATCH_ROWS,
  type CancelHandle,
  type ConnectionTestResult,
  type Connector,
  type Query,
  type RunOptions,
  type SchemaData,
  type SchemaOptions,
} from './connector.ts';
import { ConnectorError, FIRST_ANSWER_MS, answerWithin, cancelled, messageOf, timedOut } from './errors.ts';
import { pgColumn } from './postgres-types.ts';
import { pgSchema } from './postgres-schema.ts';
import type { PgFamily, PgSession, PgSource } from './postgres-source.ts';
import { RunGuard, callSink } from './run-guard.ts';
import { runWireStatement, type Tappable } from '@cairn/core/pg/wire';
import { SAMPLE_CANCEL_FUNCTION } from '@cairn/db/sample-shop/constants';

/** Per-family differences inside the wire-compatible family. */
const FAMILY: Record<PgFamily, { transaction: boolean; cancels: boolean; wire: boolean; version: string }> = {
  postgres: { transaction: true, cancels: true, wire: true, version: `select current_setting('server_version') as v` },
  redshift: { transaction: true, cancels: true, wire: true, version: 'select version() as v' },
  // CrateDB has no transactions and does not cancel through pg_cancel_backend (the run's own
  // timeout guard closes the connection instead). Its results are read through postgres.js's cursor.
  cratedb: { transaction: false, cancels: false, wire: false, version: 'select version() as v' },
};

type Tx = postgres.TransactionSql | postgres.Sql;

/**
 * The Postgres family through postgres.js. A run opens a read-only transaction, sets the statement
 * timeout, a per-run application_name (so a cancel finds exactly this statement) and ISO date output,
 * then reads the result through a cursor in batches of about one chunk: rows arrive as raw text
 * bytes and are written straight into JSON chunks (engine/result.ts), never as JS objects.
 */
export class PostgresConnector implements Connector {
  constructor(private readonly source: PgSource) {}

  async run(query: Query, sink: RowSink, opts: RunOptions = {}): Promise<ResultSummary> {
    const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const session = this.source.open();
    const tag = `cairn-run-${crypto.randomUUID()}`;
    const destroy = () => void session.sql.end({ timeout: 0 }).catch(() => {});
    const guard = new RunGuard(timeoutMs, opts.signal, {
      cancel: (handle) => this.cancel(handle),
      // If cancelling does not stop it, the connection goes.
      destroy,
    });
    let connected = false;
    try {
      const family = FAMILY[this.source.family];
      const body = async (tx: Tx) => {
        // Inside a transaction the connection is up (BEGIN ran); without one, once the settings are made.
        connected = family.transaction;
        const handle = await this.prepare(tx, timeoutMs, tag, opts.timeZone ?? 'UTC');
        connected = true;
        if (handle) {
          guard.handle = handle;
          await opts.onCancelHandle?.(handle);
        }
        guard.throwIfStopped();
        // Our own socket (workerd): the statement is read off the wire; otherwise through a cursor.
        const socket = family.wire ? session.socket?.() : null;
        if (socket) return readWire(socket, query, sink, guard, destroy);
        return readCursor(tx, query, sink, guard);
      };
      await this.preflight(session);
      const summary = family.transaction ? ((await session.sql.begin('read only', body)) as ResultSummary) : await body(session.sql);
      guard.throwIfStopped();
      return summary;
    } catch (err) {
      throw this.failure(err, guard, connected, timeoutMs);
    } finally {
      guard.done();
      session.release();
    }
  }

  /** Session settings for one run, in one round trip; returns how to cancel it. */
  private async prepare(tx: Tx, timeoutMs: number, tag: string, timeZone: string): Promise<CancelHandle | null> {
    const family = this.source.family;
    if (family === 'cratedb') return null;
    if (family === 'redshift') {
      await tx.unsafe(`set statement_timeout to ${Math.max(1, Math.floor(timeoutMs))}`);
      await tx.unsafe(`set timezone to '${timeZone.replace(/'/g, "''")}'`);
      const [row] = await tx.unsafe<{ pid: number }[]>('select pg_backend_pid() as pid');
      return { family: 'postgres', pid: Number(row!.pid), application_name: '' };
    }
    const settings: [string, string][] = [
      ['statement_timeout', String(Math.max(1, Math.floor(timeoutMs)))],
      ['application_name', tag],
      ['TimeZone', timeZone],
      ['DateStyle', 'ISO, YMD'],
      ['IntervalStyle', 'postgres'],
    ];
    if (this.source.defaultSchema) settings.push(['search_path', this.source.defaultSchema]);
    const calls = settings.map((_, i) => `set_config($${2 * i + 1}, $${2 * i + 2}, true)`).join(', ');
    const [row] = await tx.unsafe<{ pid: number }[]>(`select pg_backend_pid() as pid, ${calls}`, settings.flat());
    return { family: 'postgres', pid: Number(row!.pid), application_name: tag };
  }

  private failure(err: unknown, guard: RunGuard, connected: boolean, timeoutMs: number): unknown {
    // The sink's failure is the cause even when the connection it made us drop reports one of its own.
    if (guard.sinkError !== undefined) return guard.sinkError;
    if (guard.timedOut) return timedOut(timeoutMs);
    if (guard.cancelled) return cancelled();
    if (err instanceof ConnectorError) return err;
    const e = err as { code?: string; message?: string; position?: string; hint?: string };
    if (e.code === '57014') {
      return /statement timeout/i.test(e.message ?? '') ? timedOut(timeoutMs) : cancelled();
    }
    if (!connected) return pgConnectionError(this.source.label, err);
    if (typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code) && !/^(08|57P)/.test(e.code)) {
      const where = e.position ? ` (at character ${e.position})` : '';
      return new ConnectorError('query_error', `${e.message ?? 'The query failed'}${where}`, {
        sqlstate: e.code,
        ...(e.hint ? { hint: e.hint } : {}),
      });
    }
    return new ConnectorError('connection_error', `Lost the connection to ${this.source.label}: ${messageOf(err)}`);
  }

  async cancel(handle: CancelHandle): Promise<boolean> {
    if (handle.family !== 'postgres' || !FAMILY[this.source.family].cancels) return false;
    const session = this.source.open();
    try {
      // The sample role may neither read pg_stat_activity nor call pg_cancel_backend (D32): the sample
      // database's cancel function signals the session only if its tag matches.
      const rows = this.source.sample
        ? await session.sql.unsafe<{ ok: boolean }[]>(`select ${SAMPLE_CANCEL_FUNCTION}($1, $2) as ok`, [handle.pid, handle.application_name])
        : handle.application_name
          ? await session.sql.unsafe<{ ok: boolean }[]>('select pg_cancel_backend(pid) as ok from pg_stat_activity where pid = $1 and application_name = $2', [
              handle.pid,
              handle.application_name,
            ])
          : await session.sql.unsafe<{ ok: boolean }[]>('select pg_cancel_backend($1) as ok', [handle.pid]);
      return rows.some((r) => r.ok === true);
    } finally {
      session.release();
    }
  }

  /**
   * The source's checks on a fresh session (not Cairn's own database, not a blocked network), which
   * also make the connection: its first answer must come within FIRST_ANSWER_MS.
   */
  private async preflight(session: PgSession): Promise<void> {
    if (!this.source.preflight) return;
    const giveUp = () => void session.sql.end({ timeout: 0 }).catch(() => {});
    await answerWithin(this.source.preflight(session.sql), FIRST_ANSWER_MS, this.source.label, giveUp);
  }

  /** ok with the server version, or error with the database's (or the network's) message; a refused target throws (a 422). */
  async testConnection(): Promise<ConnectionTestResult> {
    const session = this.source.open();
    try {
      // The whole test (name resolution, connection, checks, version) answers within FIRST_ANSWER_MS.
      const work = (async () => {
        await this.source.preflight?.(session.sql);
        return session.sql.unsafe<{ v: string }[]>(FAMILY[this.source.family].version);
      })();
      const [row] = await answerWithin(work, FIRST_ANSWER_MS, this.source.label, () => void session.sql.end({ timeout: 0 }).catch(() => {}));
      return { status: 'ok', error_message: null, server_version: row?.v ?? null };
    } catch (err) {
      if (err instanceof ConnectorError && err.kind === 'refused') throw err;
      return { status: 'error', error_message: pgConnectionError(this.source.label, err).message, server_version: null };
    } finally {
      session.release();
    }
  }

  async schema(opts: SchemaOptions = {}): Promise<SchemaData> {
    const session = this.source.open();
    try {
      await this.preflight(session);
      return await pgSchema(session.sql, this.source, opts);
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && !/^(08|28|3D|57P)/.test(code)) {
        throw new ConnectorError('query_error', `Reading the schema failed: ${messageOf(err)}`, { sqlstate: code });
      }
      throw pgConnectionError(this.source.label, err);
    } finally {
      session.release();
    }
  }
}

/** A failure before the statement ran: unreachable host, refused login, missing database, SSL. */
function pgConnectionError(label: string, err: unknown): ConnectorError {
  if (err instanceof ConnectorError) return err;
  const e = err as { code?: string; message?: string };
  let message = messageOf(err);
  if (e.code === 'CONNECT_TIMEOUT') message = 'the connection timed out';
  return new ConnectorError('connection_error', `Could not connect to ${label}: ${message}`, e.code ? { code: e.code } : undefined);
}

/**
 * Values as text the server parses for the placeholder's type. (Dates as ISO strings: a client that
 * drizzle wraps has its Date serializer replaced by an identity function.)
 */
function bindable(values: unknown[]): postgres.ParameterOrJSON<never>[] {
  return values.map((v) => (v instanceof Date ? v.toISOString() : typeof v === 'bigint' ? v.toString() : v)) as postgres.ParameterOrJSON<never>[];
}

/**
 * Reads the statement straight off the connection's socket (@cairn/core/pg/wire): each DataRow is encoded
 * from the received bytes into JSON chunks, and after each read the full chunks go to the sink; the
 * next read waits only when the sink lags by more than MAX_BACKLOG chunks (TCP holds the rest), so
 * memory stays at one read plus that backlog. A failure that is not the database's (the sink's, a
 * stopped run) leaves the socket mid-statement: the connection is closed.
 */
async function readWire(socket: Tappable, query: Query, sink: RowSink, guard: RunGuard, destroy: () => void): Promise<ResultSummary> {
  let writer: ResultWriter | null = null;
  let announced = false;
  const handOver = async (w: ResultWriter, final: boolean) => {
    if (!announced) {
      announced = true;
      const columns = w.summary().columns;
      await callSink(guard, () => sink.columns?.(columns));
    }
    await callSink(guard, () => w.flow(sink, final ? 0 : MAX_BACKLOG, final));
  };
  try {
    await runWireStatement(socket, query.text, bindable(query.values), {
      columns: (cols) => {
        writer = new ResultWriter(cols.map((c) => pgColumn(c.name, c.type)));
      },
      row: (buf, at) => writer!.wireRow(buf, at),
      batch: () => {
        guard.throwIfStopped();
        if (writer?.hasPending) return handOver(writer, false);
      },
    });
  } catch (err) {
    if (!isServerError(err)) destroy();
    throw err;
  }
  const w: ResultWriter = writer ?? new ResultWriter([]);
  await handOver(w, true);
  return w.summary();
}

/** An error the server reported (the connection is still in step with it). */
function isServerError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return (err as { name?: string } | null)?.name === 'PostgresError' && typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code);
}

/** The internals of a postgres.js query that the cursor read uses (postgres 3.4.9, pinned). */
interface PgQueryInternals {
  cursorRows: number;
  forEachFn?: (row: (Uint8Array | null)[]) => void;
  statement?: { columns?: { name: string; type: number }[] | null };
}

/**
 * Reads the statement's rows through a portal, a batch per round trip. Each row is encoded the
 * moment postgres.js has parsed it (its `forEach` hook, so rows never pile up as objects that outlive
 * a garbage collection), and between batches the full chunks go to the sink, which writes them while
 * the next batch is read; the next batch waits only when the sink lags by more than MAX_BACKLOG
 * chunks, so memory stays at about one batch of JSON plus that backlog.
 */
async function readCursor(tx: Tx, query: Query, sink: RowSink, guard: RunGuard): Promise<ResultSummary> {
  const pending = tx.unsafe(query.text, bindable(query.values), { prepare: false }).raw();
  const q = pending as unknown as PgQueryInternals;
  let writer: ResultWriter | null = null;
  let announced = false;
  const open = () => (writer = new ResultWriter((q.statement?.columns ?? []).map((c) => pgColumn(c.name, c.type))));
  const handOver = async (final: boolean) => {
    const w = writer ?? open();
    if (!announced) {
      announced = true;
      const columns = w.summary().columns;
      await callSink(guard, () => sink.columns?.(columns));
    }
    await callSink(guard, () => w.flow(sink, final ? 0 : MAX_BACKLOG, final));
    return w;
  };
  q.forEachFn = (row) => (writer ?? open()).textRow(row);
  // postgres.js awaits this between batches, but after the last batch it calls it without waiting:
  // the steps are chained, and their failure is rethrown below, never left unhandled.
  let steps: Promise<void> = Promise.resolve();
  const step = () => {
    steps = steps.then(async () => {
      guard.throwIfStopped();
      const w = await handOver(false);
      // About four chunks of JSON per round trip.
      const perRow = Math.max(1, w.bytesWritten / Math.max(1, w.rowCount));
      q.cursorRows = Math.min(50_000, Math.max(100, Math.round((4 * CHUNK_BYTES) / perRow)));
    });
    steps.catch(() => {});
    return steps;
  };
  await pending.cursor(FIRST_BATCH_ROWS, step);
  await steps;
  return (await handOver(true)).summary();
}
