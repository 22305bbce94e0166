/**
 * `DocsInsights`: one Durable Object (named "docs") that keeps the docs search insights in its SQLite
 * storage, as daily counts: per query (searches, searches without results, results chosen) and per
 * chosen page. Rows older than 90 days are dropped; a day holds at most 5000 distinct queries (more
 * are counted under "(other queries)"), so a flood of junk cannot grow the storage without bound.
 *
 *   POST /record  {events: StoredEvent[], now?: number}   → 204
 *   GET  /report?days=30                                  → InsightsReport
 */
import { dayOf, type InsightsReport, type StoredEvent } from '../app/lib/docs-insights.server.ts';

// The parts of workerd's Durable Object API used here (the app's tsconfig has no workers types).
interface SqlCursor {
  toArray(): Record<string, unknown>[];
}
interface SqlStorage {
  exec(query: string, ...bindings: unknown[]): SqlCursor;
}
interface DurableObjectStateLike {
  storage: { sql: SqlStorage; transactionSync<T>(fn: () => T): T };
  blockConcurrencyWhile<T>(fn: () => Promise<T>): Promise<T>;
}

export const KEEP_DAYS = 90;
export const MAX_QUERIES_PER_DAY = 5000;
export const OTHER_QUERIES = '(other queries)';
const DAY_MS = 86_400_000;

const SCHEMA = [
  `CREATE TABLE IF NOT EXISTS query_day (
     day TEXT NOT NULL, query TEXT NOT NULL,
     searches INTEGER NOT NULL DEFAULT 0, no_results INTEGER NOT NULL DEFAULT 0, clicks INTEGER NOT NULL DEFAULT 0,
     PRIMARY KEY (day, query))`,
  `CREATE TABLE IF NOT EXISTS page_day (
     day TEXT NOT NULL, route TEXT NOT NULL, clicks INTEGER NOT NULL DEFAULT 0,
     PRIMARY KEY (day, route))`,
  `CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`,
];

export class DocsInsights {
  private readonly sql: SqlStorage;

  constructor(
    private readonly state: DurableObjectStateLike,
    _env: unknown,
  ) {
    this.sql = state.storage.sql;
    void state.blockConcurrencyWhile(async () => {
      for (const statement of SCHEMA) this.sql.exec(statement);
    });
  }

  async fetch(request: Request): Promise<Response> {
    const url = new URL(request.url);
    if (request.method === 'POST' && url.pathname === '/record') {
      const body = (await request.json()) as { events: StoredEvent[]; now?: number };
      this.record(body.events, body.now ?? Date.now());
      return new Response(null, { status: 204 });
    }
    if (request.method === 'GET' && url.pathname === '/report') {
      const days = Math.min(Math.max(Number(url.searchParams.get('days')) || 30, 1), KEEP_DAYS);
      return Response.json(this.report(days, Date.now()));
    }
    return new Response('not found', { status: 404 });
  }

  private rows(query: string, ...bindings: unknown[]) {
    return this.sql.exec(query, ...bindings).toArray();
  }

  /** The query row to count under: the query itself, or "(other queries)" once the day is full. */
  private queryKey(day: string, query: string): string {
    if (this.rows('SELECT 1 AS x FROM query_day WHERE day = ? AND query = ?', day, query).length > 0) return query;
    const n = Number(this.rows('SELECT COUNT(*) AS n FROM query_day WHERE day = ?', day)[0]?.n ?? 0);
    return n >= MAX_QUERIES_PER_DAY ? OTHER_QUERIES : query;
  }

  record(events: StoredEvent[], now: number): void {
    const day = dayOf(now);
    this.state.storage.transactionSync(() => {
      this.prune(day, now);
      for (const e of events) {
        const query = this.queryKey(day, e.query);
        const [searches, empty, clicks] = e.type === 'view' ? [1, e.results === 0 ? 1 : 0, 0] : [0, 0, 1];
        this.sql.exec(
          `INSERT INTO query_day (day, query, searches, no_results, clicks) VALUES (?, ?, ?, ?, ?)
           ON CONFLICT (day, query) DO UPDATE SET searches = searches + excluded.searches,
             no_results = no_results + excluded.no_results, clicks = clicks + excluded.clicks`,
          day,
          query,
          searches,
          empty,
          clicks,
        );
        if (e.type === 'click') {
          this.sql.exec(
            `INSERT INTO page_day (day, route, clicks) VALUES (?, ?, 1)
             ON CONFLICT (day, route) DO UPDATE SET clicks = clicks + 1`,
            day,
            e.route,
          );
        }
      }
    });
  }

  /** Once a day: rows older than KEEP_DAYS go. */
  private prune(day: string, now: number): void {
    const last = this.rows(`SELECT value FROM meta WHERE key = 'pruned'`)[0]?.value;
    if (last === day) return;
    const cutoff = dayOf(now - KEEP_DAYS * DAY_MS);
    this.sql.exec('DELETE FROM query_day WHERE day < ?', cutoff);
    this.sql.exec('DELETE FROM page_day WHERE day < ?', cutoff);
    this.sql.exec(`INSERT INTO meta (key, value) VALUES ('pruned', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`, day);
  }

  report(days: number, now: number): InsightsReport {
    const since = dayOf(now - (days - 1) * DAY_MS);
    const num = (v: unknown) => Number(v ?? 0);
    const totals = this.rows('SELECT SUM(searches) AS s, SUM(no_results) AS n, SUM(clicks) AS c FROM query_day WHERE day >= ?', since)[0];
    return {
      days,
      since,
      totals: { searches: num(totals?.s), noResults: num(totals?.n), clicks: num(totals?.c) },
      topQueries: this.rows(
        `SELECT query, SUM(searches) AS s, SUM(no_results) AS n, SUM(clicks) AS c FROM query_day
         WHERE day >= ? GROUP BY query ORDER BY s DESC, c DESC, query LIMIT 50`,
        since,
      ).map((r) => ({ query: String(r.query), searches: num(r.s), noResults: num(r.n), clicks: num(r.c) })),
      noResultQueries: this.rows(
        `SELECT query, SUM(no_results) AS n FROM query_day WHERE day >= ?
         GROUP BY query HAVING SUM(no_results) > 0 ORDER BY n DESC, query LIMIT 50`,
        since,
      ).map((r) => ({ query: String(r.query), searches: num(r.n) })),
      topPages: this.rows('SELECT route, SUM(clicks) AS c FROM page_day WHERE day >= ? GROUP BY route ORDER BY c DESC, route LIMIT 20', since).map((r) => ({
        route: String(r.route),
        clicks: num(r.c),
      })),
    };
  }
}
