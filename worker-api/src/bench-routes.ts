import { Hono } from 'hono';
import { sql } from 'drizzle-orm';
import type { AppEnv } from './env.ts';
import { dbPoolStub } from './durable/stubs.ts';

/**
 * Diagnostics for `bench/run.ts --diagnose`, answered only when the worker runs with BENCH_ROUTES=1 (404
 * otherwise, like any unknown path): the cost of authentication and the rate limit alone, of one no-op call
 * to a DbPool object and of one database round trip, and the router the app runs on. Mounted behind
 * authentication; the bare baseline route (`/bench/bare`) stays on the app itself, in front of everything.
 */
export function benchRoutes(routerName: () => string | undefined): Hono<AppEnv> {
  const bench = new Hono<AppEnv>();
  bench.use('/bench/*', async (c, next) => (c.env.BENCH_ROUTES === '1' ? next() : c.notFound()));
  bench.get('/bench/auth', (c) => c.json({ ok: true }));
  bench.get('/bench/router', (c) => c.json({ router: routerName() }));
  bench.get('/bench/rpc', async (c) => c.json({ ok: (await dbPoolStub(c.env, 0).ping()) === 1 }));
  bench.get('/bench/db', async (c) => c.json({ ok: (await c.get('db').execute(sql`select 1 as one`)).length === 1 }));
  return bench;
}
