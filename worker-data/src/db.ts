import postgres from 'postgres';
import type { Context } from 'hono';
import type { AppEnv } from './env.ts';

export interface RequestSql {
  sql: postgres.Sql;
  /** Ends the connection once (after the response body is done, or on an error before it). */
  close: () => void;
}

/**
 * One connection per request, kept until the response body has been streamed: a download reads its
 * chunks one query at a time while the client receives the bytes.
 */
export function openSql(c: Context<AppEnv>): RequestSql {
  const sql = postgres(c.env.HYPERDRIVE.connectionString, { max: 1, fetch_types: false, onnotice: () => {} });
  let closed = false;
  return {
    sql,
    close: () => {
      if (closed) return;
      closed = true;
      if (!c.env.CAIRN_KEEP_CONNECTIONS) c.executionCtx.waitUntil(sql.end({ timeout: 5 }));
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
