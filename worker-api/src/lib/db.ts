import { createDb, schema, type DbClient, type Schema } from '@cairn/db';
import { drizzle, type PgRemoteDatabase } from 'drizzle-orm/pg-proxy';
import type { MiddlewareHandler } from 'hono';
import type { AppEnv, Env } from '../env.ts';
import type { DbPool, PoolAnswer } from '../durable/db-pool.ts';
import { AsyncLocalStorage } from 'node:async_hooks';

export type PooledDb = PgRemoteDatabase<Schema>;

/**
 * Statements of a request go through a DbPool Durable Object, which keeps its connections between
 * requests (see durable/db-pool.ts). Transactions need one connection for several statements, so
 * `direct()` opens a request-scoped postgres.js client on first use (and only then).
 */
type Send = (text: string, params: unknown[], method: string) => Promise<{ rows: never[] }>;

/**
 * A function that sends statements to a DbPool Durable Object, which keeps its connections between
 * requests (see durable/db-pool.ts). The object is picked on the first statement, so a request that
 * asks nothing of the database (a cached read) pays nothing.
 */
function poolSender(env: Env): Send {
  let stub: DurableObjectStub<DbPool> | null = null;
  const pool = () => {
    const shards = Math.max(1, Number(env.DB_POOL_SHARDS ?? 2));
    return (stub ??= env.DB_POOL.get(env.DB_POOL.idFromName(`db-pool::${Math.floor(Math.random() * shards)}`)));
  };
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

/** A drizzle database whose statements go through a DbPool object (for work outside a request, e.g. the cron). */
export function pooledDb(env: Env): PooledDb {
  return drizzle(poolSender(env), { schema });
}

/**
 * Requests share one drizzle instance: building one maps the whole schema (about half a millisecond of
 * CPU), too much to pay per request. Each request's statements find their sender through
 * AsyncLocalStorage, which follows the request's async work (waitUntil included).
 */
const requestSender = new AsyncLocalStorage<Send>();
let shared: PooledDb | null = null;
function requestDb(): PooledDb {
  return (shared ??= drizzle((text, params, method) => {
    const send = requestSender.getStore();
    if (!send) return Promise.reject(new Error('A database statement ran outside a request (use pooledDb(env)).'));
    return send(text, params, method);
  }, { schema }));
}

export const withDb: MiddlewareHandler<AppEnv> = async (c, next) => {
  c.set('db', requestDb());
  let direct: DbClient | null = null;
  c.set('direct', () => (direct ??= createDb(c.env.HYPERDRIVE.connectionString, { max: 1 })));
  try {
    await requestSender.run(poolSender(c.env), next);
  } finally {
    // Closing inside the vitest workers pool raises "Stream was cancelled"; there the isolate is
    // torn down anyway, so the test config sets CAIRN_KEEP_CONNECTIONS.
    if (direct && !c.env.CAIRN_KEEP_CONNECTIONS) c.executionCtx.waitUntil((direct as DbClient).sql.end({ timeout: 5 }));
  }
};

/**
 * One statement with positional parameters (`$1`…) through the DbPool objects, without drizzle; its
 * rows as objects. For small helpers shared with the Durable Objects, which pass postgres.js's `unsafe`.
 */
export function poolStatement(env: Env): (text: string, params?: unknown[]) => Promise<Record<string, unknown>[]> {
  const send = poolSender(env);
  return async (text, params = []) => (await send(text, params, 'execute')).rows as Record<string, unknown>[];
}
