import { DurableObject } from 'cloudflare:workers';
import postgres from 'postgres';
import { drizzle } from 'drizzle-orm/postgres-js';
import type { Env } from '../env.ts';

export interface PoolAnswer {
  rows?: unknown[];
  error?: { message: string; code?: string; detail?: string; position?: string; constraint_name?: string };
}

/**
 * Holds a postgres.js pool across requests. A Worker's request cannot keep a socket for the next
 * request, so without this every API call would open its own database connection (local Hyperdrive
 * opens a backend per connection). Requests send their statements here over RPC (drizzle's pg-proxy
 * driver on the other side) and the pool's connections stay open. Several instances share the load
 * (`db-pool::<n>`); each one interleaves queries while it waits on the network.
 *
 * Errors travel back as data: RPC keeps only an error's message, and callers need the SQLSTATE.
 */
export class DbPool extends DurableObject<Env> {
  private readonly sql: postgres.Sql;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = postgres(env.HYPERDRIVE.connectionString, {
      max: Number(env.DB_POOL_CONNECTIONS ?? 6),
      fetch_types: false,
      prepare: true,
      idle_timeout: 60,
      onnotice: () => {},
      connection: { application_name: 'cairn-api-pool' },
    });
    // drizzle's postgres-js driver installs the parsers drizzle's column mappers expect (dates as
    // text, for example); the statements themselves are run below.
    drizzle(this.sql);
  }

  /** Several statements of one request in one call; they run concurrently on the pool's connections. */
  async batch(items: { text: string; params: unknown[]; method: 'all' | 'execute' }[]): Promise<PoolAnswer[]> {
    return Promise.all(items.map((i) => this.query(i.text, i.params, i.method)));
  }

  async query(text: string, params: unknown[], method: 'all' | 'execute'): Promise<PoolAnswer> {
    try {
      const q = this.sql.unsafe(text, params as postgres.ParameterOrJSON<never>[]);
      const result = method === 'all' ? await q.values() : await q;
      return { rows: Array.from(result as unknown[]) };
    } catch (err) {
      const e = err as { message?: string; code?: string; detail?: string; position?: string; constraint_name?: string };
      return {
        error: { message: e.message ?? String(err), code: e.code, detail: e.detail, position: e.position, constraint_name: e.constraint_name },
      };
    }
  }
}
