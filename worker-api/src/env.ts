import type { Region } from '@cairn/core';
import type { DbClient } from '@cairn/db';
import type { RateLimiter } from './durable/rate-limiter.ts';
import type { DbPool } from './durable/db-pool.ts';
import type { DatasourceGate } from './durable/datasource-gate.ts';
import type { DashboardStatus } from './durable/dashboard-status.ts';
import type { AgentHub } from './durable/agent-hub.ts';
import type { PooledDb } from './lib/db.ts';
import type { Principal } from './auth/principal.ts';
import type { JobMessage } from './jobs/messages.ts';

export interface Env {
  REGION: Region;
  HYPERDRIVE: Hyperdrive;
  /**
   * The region's bucket of result rows and export files (ARCHITECTURE D55); shared by the region's API
   * and data server. Required (D61): query results and export files live only there.
   */
  RESULTS: R2Bucket;
  /**
   * The sample database (D32): holds only the sample shop, reached as the login role cairn_sample. The
   * sample datasource's queries run there and nowhere else. Locally
   * CLOUDFLARE_HYPERDRIVE_LOCAL_CONNECTION_STRING_SAMPLE_DB (npm start sets it).
   */
  SAMPLE_DB: Hyperdrive;
  /** Days the audit log keeps a row (default 365; `0` keeps every row). The cron deletes older ones. */
  AUDIT_LOG_KEPT_DAYS?: string;
  /** Set by the test config only: leave connections open (the test pool cannot close them). */
  CAIRN_KEEP_CONNECTIONS?: string;
  /** HMAC secret shared with this region's data server. */
  DATA_TOKEN_SECRET: string;
  /** Seals secrets that must be read back (datasource passwords). */
  SECRET_KEY: string;
  /** Public URL of this region's data server, returned beside data tokens. */
  DATA_SERVER_URL?: string;
  /** Public base URLs of both regions' servers, named in 403 wrong_region answers (core/src/regions.ts). */
  API_BASE_URL_EU?: string;
  API_BASE_URL_US?: string;
  DATA_BASE_URL_EU?: string;
  DATA_BASE_URL_US?: string;
  RATE_LIMITER: DurableObjectNamespace<RateLimiter>;
  DB_POOL: DurableObjectNamespace<DbPool>;
  /** One per datasource: its concurrency limit, waiting queue and cancellation. */
  DATASOURCE_GATE: DurableObjectNamespace<DatasourceGate>;
  /** One per dashboard and parameter set: coalesces the pollers of a dashboard into one execution per report. */
  DASHBOARD_STATUS: DurableObjectNamespace<DashboardStatus>;
  /** One per datasource agent: its WebSocket, and the queries of the datasources that use it. */
  AGENT_HUB: DurableObjectNamespace<AgentHub>;
  /** The job queue (src/jobs, D54): exports, scheduled e-mails, alert runs, prewarming. */
  JOBS: Queue<JobMessage>;
  /** Seconds before a failed job message is tried again, times its attempt (default 30; tests 0). */
  JOB_RETRY_DELAY_S?: string;
  /**
   * How statements reach Postgres (lib/db.ts, D53): `hyperdrive` (default, production) straight through
   * the HYPERDRIVE binding, or `pool` through the DbPool objects (the local stack: local Hyperdrive does not pool).
   */
  DB_ACCESS?: 'hyperdrive' | 'pool';
  /** How many DbPool instances share the load (default 2), and connections per instance (default 6). */
  DB_POOL_SHARDS?: string;
  DB_POOL_CONNECTIONS?: string;
  /** Requests per second a key may sustain, and its burst (defaults 20 and 200). */
  RATE_LIMIT_RPS?: string;
  RATE_LIMIT_BURST?: string;
  /** How long this isolate trusts a verified API key before looking it up again (ms, default 2000; 0 = never cache). */
  AUTH_CACHE_MS?: string;
  /** "1" turns on the /bench/auth and /bench/db diagnostic routes (bench/run.ts). */
  BENCH_ROUTES?: string;
  /** "off" disables the read cache (lib/read-cache.ts). */
  READ_CACHE?: string;
  /** How long a read trusts the organization version this isolate read last (ms, default 100; see lib/read-cache.ts). */
  READ_CACHE_TRUST_MS?: string;
  /** How long a dashboard status answer is reused for the same caller and body (ms, default 250; 0 = never). */
  POLL_REUSE_MS?: string;
  /** Outgoing mail (src/mail): the SMTP relay; unset = mail is not sent (and callers are told so). */
  SMTP_HOST?: string;
  /** Default 25, or 587 with SMTP_SECURE=starttls, 465 with SMTP_SECURE=tls. */
  SMTP_PORT?: string;
  /** off (default), starttls or tls. */
  SMTP_SECURE?: string;
  /** AUTH PLAIN credentials (a secret in production). */
  SMTP_USER?: string;
  SMTP_PASSWORD?: string;
  /** Longest wait for one SMTP reply in ms (default 15000). */
  SMTP_TIMEOUT_MS?: string;
  /** Sender of every message, `Name <address>` (default `Cairn <no-reply@cairn.local>`). */
  MAIL_FROM?: string;
  /** Origin of the web app, for links in e-mails (e.g. https://cairn.example.com); the renderer opens its print view. */
  APP_URL?: string;
  /**
   * The renderer of PDF/PNG exports (resources/export-jobs/renderer.ts): a headless browser service.
   * Locally scripts/lib/renderer.ts; in production Cloudflare Browser Rendering. Unset: PDF/PNG exports end in error.
   */
  RENDERER_URL?: string;
  /** Which renderer draws PDF/PNG: `service` (default, RENDERER_URL) or `browser` (Cloudflare Browser Rendering, BROWSER). */
  RENDERER?: string;
  /** Cloudflare Browser Rendering (wrangler.toml [browser]); used when RENDERER=browser. */
  BROWSER?: Fetcher;
  /** Statement timeout of query runs in ms (default 120000): past it an execution ends timed_out. */
  STATEMENT_TIMEOUT_MS?: string;
  /** Overall limit of one execution in ms (default 600000): past it the run is stopped as internal_timeout. */
  EXECUTION_GUARD_MS?: string;
  /**
   * "1" refuses datasources (and SSH tunnel hosts) at loopback, private, link-local, CGNAT, unique-local
   * and other non-public addresses, names resolved first (engine/connectors/target-guard.ts). On in the
   * production environments (wrangler.toml), off for the local stack and the tests, which connect to 127.0.0.1.
   */
  BLOCK_PRIVATE_NETWORKS?: string;
  /**
   * How long an unfinished execution's lease lasts in ms (default 45000, at least 1000): the gate renews
   * it every third of that; past it a reader writes the execution off as internal_error (engine/lease.ts).
   */
  EXECUTION_LEASE_MS?: string;
}

/** What the init middleware puts on the context. Nothing is ever written to c.env. */
interface Variables {
  requestId: string;
  /** Statements through the connection pool (no transactions). */
  db: PooledDb;
  /** A request-scoped client for transactions; opened on first use. */
  direct: () => DbClient;
  principal: Principal;
}

export type AppEnv = { Bindings: Env; Variables: Variables };
