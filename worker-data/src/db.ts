import postgres from 'postgres';
import type { Context } from 'hono';
import { ownSocket } from '@cairn/core/pg/socket';
import type { AppEnv } from './env.ts';
import { objectBody, objectBytes, objectChunks, type ResultBucket, type StoredObject } from '@cairn/core/results/object';
import { storedChunks } from './chunks.ts';
import { RowsText } from './results.ts';

export interface RequestSql {
  sql: postgres.Sql;
  /**
   * A result's stored chunks in order, as raw bytes: from its object in the region's bucket (D55), or
   * from result_chunks (chunks.ts; one reader at a time per request).
   */
  chunks(r: ResultRef): AsyncGenerator<Uint8Array>;
  /** The result's rows as the JSON document's text: the object's bytes as stored, or the chunks joined. */
  rowsText(r: ResultRef): AsyncIterable<Uint8Array> | RowsText;
  /** The region's bucket (RESULTS). */
  bucket: ResultBucket;
  /** Ends the connection once (after the response body is done, or on an error before it). */
  close: () => void;
}

const CONNECT_TIMEOUT_MS = 10_000;

interface ResultRef {
  execution_id: string;
  stored_object?: StoredObject | null;
}

/**
 * One connection per request, kept until the response body has been streamed. Inside workerd the
 * socket is Cairn's own (`@cairn/core/pg/socket`), so a download can read its chunks straight off
 * the wire (chunks.ts) instead of through postgres.js.
 */
function openSql(c: Context<AppEnv>): RequestSql {
  const own = ownSocket(c.env.HYPERDRIVE.connectionString, CONNECT_TIMEOUT_MS);
  const sql = postgres(c.env.HYPERDRIVE.connectionString, { max: 1, fetch_types: false, onnotice: () => {}, ...own.options });
  // The request stays alive until its connection has ended cleanly, even when the client went away
  // mid-download: workerd would otherwise tear the socket down with a statement's rows still
  // arriving, and that reset kills the local Hyperdrive proxy (miniflare pipes its sockets without
  // an error handler, in wrangler's or vitest's Node process). So closing waits for the statement in
  // flight, then ends the connection, then lets the request go.
  let ended!: () => void;
  c.executionCtx.waitUntil(new Promise<void>((r) => (ended = r)));
  let inFlight: Promise<unknown> = Promise.resolve();
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    void inFlight
      .catch(() => {})
      .then(() => (c.env.CAIRN_KEEP_CONNECTIONS ? undefined : sql.end({ timeout: 5 })))
      .catch(() => {})
      .finally(ended);
  };
  // Readers take turns, in the order they start: a statement read off the socket must be alone on
  // the connection (a zip or workbook of several results reads them one after the other).
  let turn: Promise<void> = Promise.resolve();
  const conn = { sql, socket: () => own.ready(() => sql`select 1`), track: (statement: Promise<unknown>) => (inFlight = statement) };
  const bucket = c.env.RESULTS as ResultBucket;
  const fromTable = async function* (executionId: string): AsyncGenerator<Uint8Array> {
    const before = turn;
    let release!: () => void;
    turn = new Promise<void>((r) => (release = r));
    try {
      await before;
      yield* storedChunks(conn, executionId);
    } finally {
      release();
    }
  };
  const objectOf = (r: ResultRef) => {
    if (!r.stored_object) return null;
    return r.stored_object;
  };
  return {
    sql,
    close,
    bucket,
    chunks: (r) => {
      const obj = objectOf(r);
      return obj ? objectChunks(bucket, obj) : fromTable(r.execution_id);
    },
    rowsText: (r) => {
      const obj = objectOf(r);
      return obj ? new RowsText(objectBytes(bucket, obj), () => objectBody(bucket, obj)) : fromTable(r.execution_id);
    },
  };
}

/** Runs `fn` with a request connection; closes it if `fn` fails (otherwise the response closes it). */
export async function withSql<T>(c: Context<AppEnv>, fn: (db: RequestSql) => Promise<T>): Promise<T> {
  const db = openSql(c);
  try {
    return await fn(db);
  } catch (err) {
    db.close();
    throw err;
  }
}
