import { createDb, schema, type DbClient, type Schema } from '@cairn/db';
import { drizzle, type PgRemoteDatabase } from 'drizzle-orm/pg-proxy';
import type { MiddlewareHandler } from 'hono';
import type { AppEnv, Env } from '../env.ts';
import type { PoolAnswer } from '../durable/db-pool.ts';

export type PooledDb = PgRemoteDatabase<Schema>;

/**
 * Statements of a request go through a DbPool Durable Object, which keeps its connections between
 * requests (see durable/db-pool.ts). Transactions need one connection for several statements, so
 * `direct()` opens a request-scoped postgres.js client on first use (and only then).
 */
export function pooledDb(env: Env): PooledDb {
  const shards = Math.max(1, Number(env.DB_POOL_SHARDS ?? 2));
  const stub = env.DB_POOL.get(env.DB_POOL.idFromName(`db-pool::${Math.floor(Math.random() * shards)}`));
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
        i!.resolve((await stub.query(i!.text, i!.params, i!.method)) as unknown as PoolAnswer);
        return;
      }
      const answers = (await stub.batch(items.map(({ text, params, method }) => ({ text, params, method })))) as unknown as PoolAnswer[];
      items.forEach((i, n) => i.resolve(answers[n]!));
    } catch (err) {
      for (const i of items) i.reject(err);
    }
  };
  return drizzle(
    async (text, params, method) => {
      const answer = await new Promise<PoolAnswer>((resolve, reject) => {
        if (queue.length === 0) setTimeout(flush, 0);
        queue.push({ text, params, method: method === 'all' ? 'all' : 'execute', resolve, reject });
      });
      if (answer.error) throw Object.assign(new Error(answer.error.message), answer.error);
      return { rows: answer.rows as never[] };
    },
    { schema },
  );
}

export const withDb: MiddlewareHandler<AppEnv> = async (c, next) => {
  c.set('db', pooledDb(c.env));
  let direct: DbClient | null = null;
  c.set('direct', () => (direct ??= createDb(c.env.HYPERDRIVE.connectionString, { max: 1 })));
  try {
    await next();
  } finally {
    // Closing inside the vitest workers pool raises "Stream was cancelled"; there the isolate is
    // torn down anyway, so the test config sets CAIRN_KEEP_CONNECTIONS.
    if (direct && !c.env.CAIRN_KEEP_CONNECTIONS) c.executionCtx.waitUntil((direct as DbClient).sql.end({ timeout: 5 }));
  }
};
