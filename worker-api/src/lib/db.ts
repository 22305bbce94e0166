import type postgres from 'postgres';
import { createDb, schema, type DbClient, type Schema } from '@cairn/db';
import { drizzle, type PgRemoteDatabase } from 'drizzle-orm/pg-proxy';
import type { MiddlewareHandler } from 'hono';
import type { AppEnv, Env } from '../env.ts';
import type { DbPool, PoolAnswer } from '../durable/db-pool.ts';
import { AsyncLocalStorage } from 'node:async_hooks';
import { anyDbPoolStub } from '../durable/stubs.ts';
import { statementClient } from './statement-client.ts';

export type PooledDb = PgRemoteDatabase<Schema>;

/**
 * How statements reach Postgres (D53), chosen by the `DB_ACCESS` var:
 * - `hyperdrive` (the default, production): straight through the Hyperdrive binding, which keeps the
 *   pool of connections itself; a request opens its client on its first statement and ends it after.
 * - `pool` (the local stack): through DbPool Durable Objects, which keep connections between requests,
 *   because local Hyperdrive (wrangler dev) opens a new backend connection for every client.
 * Transactions need one connection for several statements, so `direct()` opens a request-scoped
 * postgres.js client on first use (and only then), on either path.
 */
type Send = (text: string, params: unknown[], method: string) => Promise<{ rows: never[] }>;

/** True when statements go through the DbPool objects (DB_ACCESS=pool), false for Hyperdrive directly. */
export function usesDbPool(env: Pick<Env, 'DB_ACCESS'>): boolean {
  const mode = env.DB_ACCESS ?? 'hyperdrive';
  if (mode !== 'pool' && mode !== 'hyperdrive') throw new Error(`DB_ACCESS must be "hyperdrive" or "pool", not "${mode}"`);
  return mode === 'pool';
}

/**
 * A sender over the Hyperdrive binding, with a client of its own opened on the first statement and
 * closed by itself 2 s after its last one (Hyperdrive keeps the real connections to Postgres, so a
 * client per request is cheap; a statement after the close opens it again).
 * Errors keep their SQLSTATE fields as postgres.js raises them.
 */
function hyperdriveSender(env: Env): { send: Send } {
  let client: postgres.Sql | null = null;
  const open = () =>
    (client ??= statementClient(env.HYPERDRIVE.connectionString, {
      // A few statements of one request may run at once (Promise.all); Hyperdrive pools behind them.
      max: 5,
      fetch_types: false,
      prepare: true,
      idle_timeout: 2,
      onnotice: () => {},
      connection: { application_name: 'cairn-api' },
    }));
  return {
    send: async (text, params, method) => {
      const q = open().unsafe(text, params as postgres.ParameterOrJSON<never>[]);
      const result = method === 'all' ? await q.values() : await q;
      return { rows: Array.from(result as unknown[]) as never[] };
    },
  };
}

/**
 * A function that sends statements to a DbPool Durable Object, which keeps its connections between
 * requests (see durable/db-pool.ts). The object is picked on the first statement, so a request that
 * asks nothing of the database (a cached read) pays nothing.
 */
function poolSender(env: Env): Send {
  let stub: DurableObjectStub<DbPool> | null = null;
  const pool = () => (stub ??= anyDbPoolStub(env));
  // Statements issued in the same turn of the event loop (e.g. under Promise.all) go to the pool in
  // one call: a request that asks for five things at once pays one round trip, not five.
  type Pending = { text: string; params: unknown[]; method: 'all' | 'execute'; resolve: (a: PoolAnswer) => void; reject: (e: unknown) => void };
  let queue: Pending[] = [];
  const flush = async () => {
    const items = queue;
    queue = [];
    try {
      if (items.length === 1) {
        const [i] = items;
        i!.resolve((await pool().query(i!.text, i!.params, i!.method)) as unknown as PoolAnswer);
        return;
      }
      const answers = (await pool().batch(items.map(({ text, params, method }) => ({ text, params, method })))) as unknown as PoolAnswer[];
      items.forEach((i, n) => i.resolve(answers[n]!));
    } catch (err) {
      for (const i of items) i.reject(err);
    }
  };
  return async (text, params, method) => {
    const answer = await new Promise<PoolAnswer>((resolve, reject) => {
      if (queue.length === 0) setTimeout(flush, 0);
      queue.push({ text, params, method: method === 'all' ? 'all' : 'execute', resolve, reject });
    });
    if (answer.error) throw Object.assign(new Error(answer.error.message), answer.error);
    return { rows: answer.rows as never[] };
  };
}

/** The sender of `env`'s DB_ACCESS: DbPool objects or Hyperdrive directly (for work outside a request). */
function outsideSender(env: Env): Send {
  if (usesDbPool(env)) return poolSender(env);
  return hyperdriveSender(env).send;
}

/** A drizzle database on the configured path (DB_ACCESS), for work outside a request (e.g. the cron). */
export function pooledDb(env: Env): PooledDb {
  return drizzle(inRequest() ?? outsideSender(env), { schema });
}

/**
 * Requests share one drizzle instance: building one maps the whole schema (about half a millisecond of
 * CPU), too much to pay per request. Each request's statements find their sender through
 * AsyncLocalStorage, which follows the request's async work (waitUntil included).
 */
const requestSender = new AsyncLocalStorage<Send>();
let shared: PooledDb | null = null;
function requestDb(): PooledDb {
  return (shared ??= drizzle(
    (text, params, method) => {
      const send = requestSender.getStore();
      if (!send) return Promise.reject(new Error('A database statement ran outside a request (use pooledDb(env)).'));
      return send(text, params, method);
    },
    { schema },
  ));
}

export const withDb: MiddlewareHandler<AppEnv> = async (c, next) => {
  c.set('db', requestDb());
  let direct: DbClient | null = null;
  c.set('direct', () => (direct ??= createDb(c.env.HYPERDRIVE.connectionString, { max: 1 })));
  const hyperdrive = usesDbPool(c.env) ? null : hyperdriveSender(c.env);
  try {
    await requestSender.run(hyperdrive ? hyperdrive.send : poolSender(c.env), next);
  } finally {
    // Closing inside the vitest workers pool raises "Stream was cancelled"; there the isolate is
    // torn down anyway, so the test config sets CAIRN_KEEP_CONNECTIONS.
    if (direct && !c.env.CAIRN_KEEP_CONNECTIONS) c.executionCtx.waitUntil((direct as DbClient).sql.end({ timeout: 5 }));
    // The request's Hyperdrive client is not ended here: work the request left to waitUntil may still
    // send statements through it. Its idle_timeout closes it 2 s after the last one.
  }
};

/** The sender of the request under way, if any. */
function inRequest(): Send | undefined {
  return requestSender.getStore();
}

/**
 * One statement with positional parameters (`$1`…) on the configured path (DB_ACCESS), without drizzle; its
 * rows as objects. For small helpers shared with the Durable Objects, which pass postgres.js's `unsafe`.
 */
export function poolStatement(env: Env): (text: string, params?: unknown[]) => Promise<Record<string, unknown>[]> {
  const send = inRequest() ?? outsideSender(env);
  return async (text, params = []) => (await send(text, params, 'execute')).rows as Record<string, unknown>[];
}
