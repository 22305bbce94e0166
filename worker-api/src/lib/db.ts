import { createDb } from '@cairn/db';
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../env.ts';

/**
 * One postgres.js client per request over Hyperdrive (which pools in production), closed when the
 * response is done. The client connects lazily, so routes that never query cost nothing.
 */
export const withDb: MiddlewareHandler<AppEnv> = async (c, next) => {
  const { sql, db } = createDb(c.env.HYPERDRIVE.connectionString, { max: 3 });
  c.set('sql', sql);
  c.set('db', db);
  try {
    await next();
  } finally {
    // Closing inside the vitest workers pool raises "Stream was cancelled"; there the isolate is
    // torn down anyway, so the test config sets CAIRN_KEEP_CONNECTIONS.
    if (!c.env.CAIRN_KEEP_CONNECTIONS) {
      c.executionCtx.waitUntil(sql.end({ timeout: 5 }));
    }
  }
};
