import type { Region } from '@cairn/core';
import type { DbClient } from '@cairn/db';
import type { RateLimiter } from './durable/rate-limiter.ts';
import type { DbPool } from './durable/db-pool.ts';
import type { DatasourceGate } from './durable/datasource-gate.ts';
import type { PooledDb } from './lib/db.ts';
import type { Principal } from './auth/principal.ts';

export interface Env {
  REGION: Region;
  HYPERDRIVE: Hyperdrive;
  /** Set by the test config only: leave connections open (the test pool cannot close them). */
  CAIRN_KEEP_CONNECTIONS?: string;
  /** HMAC secret shared with this region's data server. */
  DATA_TOKEN_SECRET: string;
  /** Seals secrets that must be read back (datasource passwords). */
  SECRET_KEY: string;
  /** Public URL of this region's data server, returned beside data tokens. */
  DATA_SERVER_URL?: string;
  RATE_LIMITER: DurableObjectNamespace<RateLimiter>;
  DB_POOL: DurableObjectNamespace<DbPool>;
  /** One per datasource: its concurrency limit, waiting queue and cancellation. */
  DATASOURCE_GATE: DurableObjectNamespace<DatasourceGate>;
  /** How many DbPool instances share the load (default 2), and connections per instance (default 6). */
  DB_POOL_SHARDS?: string;
  DB_POOL_CONNECTIONS?: string;
  /** Requests per second a key may sustain, and its burst (defaults 20 and 200). */
  RATE_LIMIT_RPS?: string;
  RATE_LIMIT_BURST?: string;
  /** How long this isolate trusts a verified API key before looking it up again (ms, default 2000; 0 = never cache). */
  AUTH_CACHE_MS?: string;
}

/** What the init middleware puts on the context. Nothing is ever written to c.env. */
export interface Variables {
  requestId: string;
  /** Statements through the connection pool (no transactions). */
  db: PooledDb;
  /** A request-scoped client for transactions; opened on first use. */
  direct: () => DbClient;
  principal: Principal;
}

export type AppEnv = { Bindings: Env; Variables: Variables };
