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
  return drizzle(
    async (text, params, method) => {
      // RPC's typing cannot express unknown row values; the shape is PoolAnswer.
      const answer = (await stub.query(text, params, method === 'all' ? 'all' : 'execute')) as unknown as PoolAnswer;
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
