import type { ResultSummary, RowSink } from '../result.ts';
import { Kind, type EncodedColumn } from '../types.ts';
import {
  type CancelHandle,
  type ConnectionSettings,
  type ConnectionTestResult,
  type Connector,
  type Query,
  type RunOptions,
  type SchemaData,
  type SchemaOptions,
  type SchemaTable,
} from './connector.ts';
import { ConnectorError, FIRST_ANSWER_MS, answerWithin, cancelled } from './errors.ts';
import { baseUrl, basicAuth, connectionTestFailure, unreachable, type Fetcher } from './http-common.ts';
import { refuseBoundValues, runStatement } from './statement-run.ts';
import { trinoColumn, trinoTypeToDataType, zonedTimestamp } from './trino-types.ts';

/** Trino and Presto speak the same protocol; only the header prefix differs. */
export type TrinoFlavour = 'trino' | 'presto';

/** The parts of a QueryResults document (the client protocol's answer to POST and to each nextUri). */
interface QueryResults {
  id: string;
  nextUri?: string;
  columns?: { name: string; type: string }[];
  data?: unknown[][];
  stats?: { state?: string };
  error?: { message?: string; errorName?: string; errorType?: string; errorCode?: number };
}

/** Statuses after which the protocol says to try the same request again shortly (gateways, a busy coordinator). */
const RETRY_STATUSES = new Set([502, 503, 504]);
const RETRY_DELAYS_MS = [50, 100, 200, 400, 800];
const TIMEOUT_ERRORS = new Set(['EXCEEDED_TIME_LIMIT', 'EXCEEDED_CPU_LIMIT']);
const CANCEL_ERRORS = new Set(['USER_CANCELED', 'USER_CANCELLED']);
/** Errors about where the query runs rather than what it says. */
const SETUP_ERRORS = new Set(['CATALOG_NOT_FOUND', 'MISSING_CATALOG_NAME', 'PERMISSION_DENIED']);

/**
 * Trino and Presto through the client REST protocol (`fetch`; runs in workerd): POST /v1/statement with
 * the SQL, then GET each `nextUri` until there is none, writing each page's `data` rows as they come
 * (the next page is asked for only after the sink took the rows: backpressure). The user goes in
 * `X-Trino-User` / `X-Presto-User` (and as Basic auth when there is a password, which the servers
 * accept only over HTTPS), the datasource's database is the catalog, its default schema the schema,
 * the data time zone `X-…-Time-Zone`, the statement timeout the session property
 * `query_max_execution_time`. Cancel is a DELETE of the current nextUri. Big integers keep their digits
 * (JSON.parse's source text). Bound values: refused with a query_error (no literal is ever spliced).
 *
 * Proven against recorded exchanges that follow the published protocol (trino.test.ts),
 * not against a running server: none can run on the test machines.
 */
export class TrinoConnector implements Connector {
  private readonly label: string;
  private readonly base: string;
  private readonly prefix: string;

  constructor(
    private readonly flavour: TrinoFlavour,
    private readonly s: ConnectionSettings,
    private readonly preflight?: () => Promise<void>,
    private readonly fetcher: Fetcher = (input, init) => fetch(input, init),
    private readonly pause: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
  ) {
    this.label = `${s.host}:${s.port}`;
    this.base = baseUrl(s.host, s.port, s.requireSsl);
    this.prefix = flavour === 'trino' ? 'X-Trino' : 'X-Presto';
  }

  private get name(): string {
    return this.flavour === 'trino' ? 'Trino' : 'Presto';
  }

  private headers(extra: Record<string, string> = {}): Record<string, string> {
    const h: Record<string, string> = { [`${this.prefix}-User`]: this.s.user || 'cairn', [`${this.prefix}-Source`]: 'cairn', ...extra };
    if (this.s.password) h.authorization = basicAuth(this.s.user, this.s.password);
    return h;
  }

  /** One request of the protocol, retried on 502/503/504; the parsed QueryResults. */
  private async call(
    method: 'POST' | 'GET',
    url: string,
    init: { body?: string; headers?: Record<string, string>; signal?: AbortSignal },
  ): Promise<QueryResults> {
    for (let attempt = 0; ; attempt++) {
      let res: Response;
      try {
        res = await this.fetcher(url, { method, body: init.body, headers: init.headers ?? this.headers(), signal: init.signal });
      } catch (err) {
        if (err instanceof ConnectorError) throw err;
        throw unreachable(this.label, err);
      }
      if (RETRY_STATUSES.has(res.status) && attempt < RETRY_DELAYS_MS.length) {
        await res.body?.cancel().catch(() => {});
        await this.pause(RETRY_DELAYS_MS[attempt]!);
        continue;
      }
      const text = await res.text();
      if (res.status === 401 || res.status === 403) {
        throw new ConnectorError(
          'connection_error',
          `Could not connect to ${this.label}: ${this.name} refused the login (HTTP ${res.status}${text.trim() ? `: ${text.trim().slice(0, 300)}` : ''}).`,
        );
      }
      if (res.status !== 200) {
        throw new ConnectorError(
          'connection_error',
          `Could not connect to ${this.label}: it answered HTTP ${res.status}${text.trim() ? ` (${text.trim().slice(0, 300)})` : ''}. Is this ${this.name}'s HTTP port?`,
        );
      }
      try {
        return parseResults(text);
      } catch {
        throw new ConnectorError(
          'connection_error',
          `Could not connect to ${this.label}: the answer is not ${this.name}'s client protocol. Is this ${this.name}'s HTTP port?`,
        );
      }
    }
  }

  /** The query's error as a ConnectorError: the server's own message. */
  private errorOf(e: NonNullable<QueryResults['error']>): ConnectorError {
    const message = e.message ?? e.errorName ?? 'the query failed';
    const meta = { error_name: e.errorName, error_type: e.errorType, error_code: e.errorCode };
    if (e.errorName && TIMEOUT_ERRORS.has(e.errorName)) return new ConnectorError('timed_out', message, meta);
    if (e.errorName && CANCEL_ERRORS.has(e.errorName)) return cancelled();
    if (e.errorName && SETUP_ERRORS.has(e.errorName)) return new ConnectorError('connection_error', `${this.name} at ${this.label}: ${message}`, meta);
    return new ConnectorError('query_error', message, meta);
  }

  /**
   * Runs a statement page by page. `onPage` gets each page (columns once known, data rows); `onId`
   * the query's id and the nextUri to cancel with, after the first answer.
   */
  private async execute(
    sql: string,
    opts: { timeoutMs: number; timeZone?: string; signal?: AbortSignal; stopped?: () => boolean },
    onPage: (columns: QueryResults['columns'], data: unknown[][]) => Promise<void>,
    onId?: (id: string, nextUri: string) => void | Promise<void>,
  ): Promise<void> {
    await this.preflight?.();
    const extra: Record<string, string> = {
      [`${this.prefix}-Session`]: `query_max_execution_time=${Math.max(1, Math.ceil(opts.timeoutMs / 1000))}s`,
    };
    if (this.s.database) extra[`${this.prefix}-Catalog`] = this.s.database;
    if (this.s.defaultSchema) extra[`${this.prefix}-Schema`] = this.s.defaultSchema;
    if (opts.timeZone) extra[`${this.prefix}-Time-Zone`] = opts.timeZone;
    let page = await this.call('POST', `${this.base}/v1/statement`, { body: sql, headers: this.headers(extra), signal: opts.signal });
    let identified = false;
    for (;;) {
      if (page.error) throw this.errorOf(page.error);
      if (page.columns || page.data) await onPage(page.columns, page.data ?? []);
      if (!page.nextUri) break;
      const next = this.sameServer(page.nextUri);
      // The first nextUri is enough to cancel with: the coordinator cancels the query behind any of its URIs.
      if (!identified && onId) {
        identified = true;
        await onId(page.id, next);
      }
      // Cancelled or past the timeout: the DELETE is on its way (RunGuard); no further page is asked for.
      if (opts.stopped?.()) throw new Error('stopped');
      page = await this.call('GET', next, { headers: this.headers(), signal: opts.signal });
    }
  }

  /** A nextUri must point at the server we talk to (a coordinator behind a proxy names itself; we keep our address). */
  private sameServer(uri: string): string {
    const u = new URL(uri, this.base);
    const ours = new URL(this.base);
    return `${ours.origin}${u.pathname}${u.search}`;
  }

  /** Through the warehouses' shared run loop (statement-run.ts: timeout, cancel, backpressure), one page at a time. */
  async run(query: Query, sink: RowSink, opts: RunOptions = {}): Promise<ResultSummary> {
    refuseBoundValues(this.name, query);
    return runStatement(
      this.label,
      query,
      sink,
      opts,
      (h) => this.cancel(h),
      async (sql, ctx) => {
        let columns: EncodedColumn[] | null = null;
        await this.execute(
          sql,
          ctx,
          async (cols, data) => {
            if (!columns && cols) await ctx.columns((columns = cols.map((c) => trinoColumn(c.name, c.type))));
            const known = columns;
            if (known) await ctx.rows(data.map((row) => convertRow(row, known)));
          },
          (id, nextUri) => ctx.handle({ family: 'trino', query_id: id, next_uri: nextUri }),
        );
      },
    );
  }

  async cancel(handle: CancelHandle): Promise<boolean> {
    if (handle.family !== 'trino' || typeof handle.next_uri !== 'string') return false;
    const url = this.sameServer(handle.next_uri);
    if (!url.includes('/v1/statement/')) return false;
    try {
      const res = await this.fetcher(url, { method: 'DELETE', headers: this.headers() });
      await res.body?.cancel().catch(() => {});
      return res.status === 204 || res.status === 200;
    } catch (err) {
      throw unreachable(this.label, err);
    }
  }

  /** A small statement's rows as JS values. */
  private async rows(sql: string): Promise<unknown[][]> {
    const controller = new AbortController();
    const out: unknown[][] = [];
    const work = this.execute(sql, { timeoutMs: 60_000, signal: controller.signal }, async (_cols, data) => void out.push(...data));
    await answerWithin(work, FIRST_ANSWER_MS, this.label, () => controller.abort());
    return out;
  }

  async testConnection(): Promise<ConnectionTestResult> {
    try {
      const [row] = await this.rows('SELECT version()');
      return { status: 'ok', error_message: null, server_version: row?.[0] == null ? null : String(row[0]) };
    } catch (err) {
      return connectionTestFailure(err, this.label);
    }
  }

  async schema(opts: SchemaOptions = {}): Promise<SchemaData> {
    if (!this.s.database) {
      throw new ConnectorError(
        'connection_error',
        `${this.name} datasources name their catalog in "database"; this one has none, so there is no schema to read.`,
      );
    }
    const wanted = opts.name ? [opts.name] : opts.included_schemas?.length ? opts.included_schemas : null;
    const where = wanted ? `table_schema IN (${wanted.map(literal).join(', ')})` : "table_schema <> 'information_schema'";
    let rows: unknown[][];
    try {
      rows = await this.rows(
        `SELECT table_schema, table_name, column_name, data_type FROM ${identifier(this.s.database)}.information_schema.columns ` +
          `WHERE ${where} ORDER BY table_schema, table_name, ordinal_position`,
      );
    } catch (err) {
      if (err instanceof ConnectorError && err.kind === 'query_error') throw new ConnectorError('query_error', `Reading the schema failed: ${err.message}`);
      throw err;
    }
    const schemas = new Map<string, Map<string, SchemaTable>>();
    for (const [schema, table, column, type] of rows as string[][]) {
      let tables = schemas.get(schema!);
      if (!tables) schemas.set(schema!, (tables = new Map()));
      let t = tables.get(table!);
      if (!t) tables.set(table!, (t = { name: table!, columns: [] }));
      t.columns.push({ name: column!, db_type: type!, data_type: trinoTypeToDataType(type!) });
    }
    // Row counts: the protocol has no cheap estimate (SHOW STATS scans per table), so none are given.
    return { schemas: [...schemas.entries()].map(([name, tables]) => ({ name, tables: [...tables.values()] })) };
  }
}

/** QueryResults JSON; integers beyond 2^53 keep their digits as strings (the reviver sees the source text). */
function parseResults(text: string): QueryResults {
  const parsed = JSON.parse(text, (_key, value, context?: { source?: string }) =>
    typeof value === 'number' && Number.isInteger(value) && !Number.isSafeInteger(value) && context?.source && /^-?\d+$/.test(context.source)
      ? context.source
      : value,
  ) as QueryResults;
  if (!parsed || typeof parsed !== 'object' || typeof parsed.id !== 'string') throw new Error('not QueryResults');
  return parsed;
}

/** Values as the protocol writes them → what ResultWriter.valueRow takes for the column's kind. */
function convertRow(row: unknown[], columns: EncodedColumn[]): unknown[] {
  const out = new Array<unknown>(columns.length);
  for (let i = 0; i < columns.length; i++) {
    const v = row[i];
    const c = columns[i]!;
    if (v === null || v === undefined) out[i] = null;
    else if (c.kind === Kind.Binary && typeof v === 'string') out[i] = base64Bytes(v);
    else if (c.kind === Kind.Float && typeof v === 'string')
      out[i] = null; // "NaN", "Infinity"
    else if (c.kind === Kind.DateTime && typeof v === 'string') out[i] = /with time zone/i.test(c.db_type) ? zonedTimestamp(v) : v;
    else out[i] = v;
  }
  return out;
}

function base64Bytes(s: string): Uint8Array {
  const bin = atob(s);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

const literal = (s: string) => `'${s.replace(/'/g, "''")}'`;
const identifier = (s: string) => `"${s.replace(/"/g, '""')}"`;
