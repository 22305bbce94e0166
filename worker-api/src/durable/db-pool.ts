import { DurableObject } from 'cloudflare:workers';
import type postgres from 'postgres';
import { statementClient } from '../lib/statement-client.ts';
import type { Env } from '../env.ts';
import { settingsOf } from '../config.ts';

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
    this.sql = statementClient(env.HYPERDRIVE.connectionString, {
      max: settingsOf(env).dbPoolConnections,
      fetch_types: false,
      prepare: true,
      idle_timeout: 60,
      onnotice: () => {},
      connection: { application_name: 'cairn-api-pool' },
    });
  }

  /**
   * The organization's content version (see lib/read-cache.ts), read by a statement that starts after
   * this call arrived: a write committed before the caller asked is always seen. Calls that arrive while
   * a read is under way wait for the next one, so a thousand concurrent callers cost the database one
   * or two statements, not a thousand.
   */
  orgVersion(organizationId: string): Promise<string> {
    let state = this.versionReads.get(organizationId);
    if (!state) {
      state = { running: null, next: null };
      this.versionReads.set(organizationId, state);
    }
    const s = state;
    if (!s.running) {
      s.running = this.readVersion(organizationId).finally(() => {
        s.running = null;
        if (!s.next) this.versionReads.delete(organizationId);
      });
      return s.running;
    }
    // The read under way may have started before this call: wait for the one after it.
    s.next ??= s.running
      .catch(() => {})
      .then(() => {
        s.next = null;
        return this.orgVersion(organizationId);
      });
    return s.next;
  }

  private readonly versionReads = new Map<string, { running: Promise<string> | null; next: Promise<string> | null }>();

  private async readVersion(organizationId: string): Promise<string> {
    const rows = await this.sql.unsafe('select version::text as v from organization_versions where organization_id = $1', [organizationId], { prepare: true });
    return String((rows[0] as { v?: string } | undefined)?.v ?? '0');
  }

  /** A no-op round trip (bench/run.ts --diagnose: what the RPC hop alone costs). */
  ping(): number {
    return 1;
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
