import { MAX_BACKLOG, ResultWriter, type ResultSummary, type RowSink } from '../result.ts';
import {
  DEFAULT_TIMEOUT_MS,
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
import { clickhouseColumn, clickhouseTypeToDataType } from './clickhouse-types.ts';
import { LineReader, baseUrl, basicAuth, connectionTestFailure, runFailure, unreachable, type Fetcher } from './http-common.ts';
import { Kind } from '../types.ts';
import { RunGuard, callSink } from './run-guard.ts';

/** ClickHouse error codes (src/Common/ErrorCodes.cpp). */
const TIMEOUT_EXCEEDED = 159;
const QUERY_WAS_CANCELLED = 394;
/** Login and database errors: the connection's settings, not the query. */
const CONNECT_CODES = new Set([
  81 /* UNKNOWN_DATABASE */, 192 /* UNKNOWN_USER */, 193 /* WRONG_PASSWORD */, 194 /* REQUIRED_PASSWORD */, 195 /* IP_ADDRESS_NOT_ALLOWED */,
  516 /* AUTHENTICATION_FAILED */,
]);
const SYSTEM_DATABASES = ['system', 'INFORMATION_SCHEMA', 'information_schema'];
const QUERY_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The server's error text without the decoration: 18.x writes `Code: 62, e.displayText() =
 * DB::Exception: Syntax error…, e.what() = DB::Exception`, newer servers `Code: 62. DB::Exception:
 * Syntax error…. (SYNTAX_ERROR) (version 23.8…)`.
 */
export function parseClickhouseError(body: string): { code: number; message: string } | null {
  const m = /Code:\s*(\d+)[.,]\s*(?:e\.displayText\(\) = )?(?:DB::Exception: )?([\s\S]*)$/.exec(body.trim());
  if (!m) return null;
  const message = m[2]!
    .replace(/,\s*e\.what\(\) = [\s\S]*$/, '')
    .replace(/\s*\(version .*\)\s*$/, '')
    .replace(/\s*\([A-Z_]+\)\s*$/, '')
    .replace(/\.$/, '')
    .trim();
  return { code: Number(m[1]), message };
}

/** A string literal in ClickHouse's syntax. */
const literal = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

/**
 * ClickHouse over its HTTP interface (`fetch`, so it runs in workerd as it is). A run POSTs the SQL
 * with a fresh `query_id`, `readonly=2` (no writes; settings still allowed) and `max_execution_time`
 * (the statement timeout) and reads the answer as TabSeparatedWithNamesAndTypes line by line: the
 * first two lines name the columns and their types, each further line is a row; the body is read only
 * as fast as the sink writes (backpressure). Cancel is `KILL QUERY WHERE query_id = …` from a second
 * request. Bound values: ClickHouse 18.x has no query parameters, so a query with bound values (a
 * filter with a value) is refused with a query_error that says so.
 * Dates and times are written as the server prints them: DateTime columns in the column's (or the
 * server's) time zone, which is why such a datasource's data time zone should be the server's.
 */
export class ClickhouseConnector implements Connector {
  private readonly label: string;
  private readonly base: string;

  constructor(
    private readonly s: ConnectionSettings,
    private readonly preflight?: () => Promise<void>,
    private readonly fetcher: Fetcher = (input, init) => fetch(input, init),
  ) {
    this.label = `${s.host}:${s.port}`;
    this.base = baseUrl(s.host, s.port, s.requireSsl);
  }

  /** One POST of `sql`; resolves with the response once its status and headers are in. */
  private async post(sql: string, params: Record<string, string>, signal?: AbortSignal): Promise<Response> {
    await this.preflight?.();
    const qs = new URLSearchParams();
    if (this.s.database) qs.set('database', this.s.database);
    for (const [k, v] of Object.entries(params)) qs.set(k, v);
    let res: Response;
    try {
      res = await this.fetcher(`${this.base}/?${qs}`, {
        method: 'POST',
        body: sql,
        headers: { authorization: basicAuth(this.s.user || 'default', this.s.password), 'content-type': 'text/plain; charset=utf-8' },
        signal,
      });
    } catch (err) {
      if (err instanceof ConnectorError) throw err;
      throw unreachable(this.label, err);
    }
    if (!res.ok) throw await this.httpError(res);
    if (!/tab-separated-values|text\/plain/.test(res.headers.get('content-type') ?? '') || !hasClickhouseHeader(res)) {
      res.body?.cancel().catch(() => {});
      throw this.notClickhouse(`it answered HTTP ${res.status} with ${res.headers.get('content-type') ?? 'no content type'}`);
    }
    return res;
  }

  private notClickhouse(what: string): ConnectorError {
    return new ConnectorError(
      'connection_error',
      `Could not connect to ${this.label}: ${what}, not as ClickHouse's HTTP interface does. Is this the HTTP port (8123, or 8443 with SSL)?`,
    );
  }

  /** An error answer: the server's own message, as a query or a connection error. */
  private async httpError(res: Response): Promise<ConnectorError> {
    const body = await res.text().catch(() => '');
    const parsed = parseClickhouseError(body);
    if (!parsed) return this.notClickhouse(`it answered HTTP ${res.status}`);
    return this.errorOf(parsed);
  }

  private errorOf({ code, message }: { code: number; message: string }): ConnectorError {
    if (code === TIMEOUT_EXCEEDED) return new ConnectorError('timed_out', `The query was stopped: ${message}.`, { clickhouse_code: code });
    if (code === QUERY_WAS_CANCELLED) return cancelled();
    if (CONNECT_CODES.has(code)) return new ConnectorError('connection_error', `Could not connect to ${this.label}: ${message}`, { clickhouse_code: code });
    return new ConnectorError('query_error', message, { clickhouse_code: code });
  }

  /** A statement whose whole (small) answer is read as TabSeparated rows of text. */
  private async rows(sql: string, params: Record<string, string> = {}): Promise<string[][]> {
    const controller = new AbortController();
    const work = (async () => {
      const res = await this.post(sql, { ...params, default_format: 'TabSeparated' }, controller.signal);
      const text = await res.text();
      const lines = text.split('\n');
      if (lines[lines.length - 1] === '') lines.pop();
      const rows: string[][] = [];
      for (const line of lines) {
        if (line.startsWith('Code: ')) {
          const parsed = parseClickhouseError(line);
          if (parsed) throw this.errorOf(parsed);
        }
        rows.push(line.split('\t').map((cell) => new TextDecoder().decode(unescapeCell(new TextEncoder().encode(cell)) ?? new Uint8Array())));
      }
      return rows;
    })();
    return answerWithin(work, FIRST_ANSWER_MS, this.label, () => controller.abort());
  }

  async run(query: Query, sink: RowSink, opts: RunOptions = {}): Promise<ResultSummary> {
    if (query.values.length > 0) {
      throw new ConnectorError(
        'query_error',
        'ClickHouse datasources cannot run queries with bound values yet (a filter with a value, or a parameter): ' +
          'ClickHouse 18 has no query parameters, and Cairn never writes values into the SQL text. Remove the filter from the query, or use a fixed value in the SQL.',
        { code: 'bound_values_unsupported' },
      );
    }
    const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const controller = new AbortController();
    const handle: CancelHandle = { family: 'clickhouse', query_id: crypto.randomUUID() };
    const guard = new RunGuard(timeoutMs, opts.signal, { cancel: (h) => this.cancel(h), destroy: () => controller.abort() });
    let reader: LineReader | null = null;
    try {
      guard.handle = handle;
      await opts.onCancelHandle?.(handle);
      guard.throwIfStopped();
      const res = await this.post(
        query.text,
        {
          query_id: handle.query_id,
          default_format: 'TabSeparatedWithNamesAndTypes',
          max_execution_time: String(Math.max(1, Math.ceil(timeoutMs / 1000))),
          readonly: '2',
        },
        controller.signal,
      );
      if (!res.body) throw new ConnectorError('connection_error', `ClickHouse at ${this.label} answered without a body.`);
      reader = new LineReader(res.body.getReader());
      const summary = await stream(reader, sink, guard, (parsed) => this.errorOf(parsed));
      guard.throwIfStopped();
      return summary;
    } catch (err) {
      reader?.cancel();
      throw runFailure(err, guard, timeoutMs, this.label);
    } finally {
      guard.done();
    }
  }

  async cancel(handle: CancelHandle): Promise<boolean> {
    if (handle.family !== 'clickhouse' || !QUERY_ID.test(handle.query_id)) return false;
    const rows = await this.rows(`KILL QUERY WHERE query_id = ${literal(handle.query_id)} ASYNC`);
    return rows.length > 0;
  }

  async testConnection(): Promise<ConnectionTestResult> {
    try {
      const [row] = await this.rows('SELECT version()');
      return { status: 'ok', error_message: null, server_version: row?.[0] || null };
    } catch (err) {
      return connectionTestFailure(err, this.label);
    }
  }

  async schema(opts: SchemaOptions = {}): Promise<SchemaData> {
    const wanted = opts.name ? [opts.name] : opts.included_databases?.length ? opts.included_databases : null;
    const where = wanted ? `database IN (${wanted.map(literal).join(', ')})` : `database NOT IN (${SYSTEM_DATABASES.map(literal).join(', ')})`;
    let columns: string[][];
    let counts: string[][] = [];
    try {
      columns = await this.rows(`SELECT database, table, name, type FROM system.columns WHERE ${where}`);
      if (opts.rowCounts) {
        counts = await this.rows(`SELECT database, table, sum(rows) FROM system.parts WHERE active AND ${where} GROUP BY database, table`);
      }
    } catch (err) {
      if (err instanceof ConnectorError && err.kind === 'query_error') {
        throw new ConnectorError('query_error', `Reading the schema failed: ${err.message}`);
      }
      throw err;
    }
    const rowCount = new Map(counts.map(([db, table, n]) => [`${db}\u0000${table}`, Number(n)]));
    const schemas = new Map<string, Map<string, SchemaTable>>();
    for (const [db, table, name, type] of columns) {
      let tables = schemas.get(db!);
      if (!tables) schemas.set(db!, (tables = new Map()));
      let t = tables.get(table!);
      if (!t) {
        t = { name: table!, columns: [] };
        const n = rowCount.get(`${db}\u0000${table}`);
        if (opts.rowCounts && n !== undefined) t.row_count = n;
        tables.set(table!, t);
      }
      t.columns.push({ name: name!, db_type: type!, data_type: clickhouseTypeToDataType(type!) });
    }
    const data: SchemaData = {
      schemas: [...schemas.entries()]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([name, tables]) => ({
          name,
          tables: [...tables.values()].sort((a, b) => a.name.localeCompare(b.name)),
        })),
    };
    if (opts.rowCounts) {
      const all = data.schemas.flatMap((s) => s.tables);
      data.total_row_count = all.reduce((sum, t) => sum + (t.row_count ?? 0), 0);
      // Parts hold exact counts of MergeTree tables; other engines (Memory, Log, views) have none.
      data.total_row_count_exact = all.every((t) => t.row_count !== undefined);
    }
    return data;
  }
}

/** Whether the answer came from ClickHouse (every version sends one of these headers). */
function hasClickhouseHeader(res: Response): boolean {
  for (const [name] of res.headers) if (name.toLowerCase().startsWith('x-clickhouse-')) return true;
  return false;
}

const BACKSLASH = 0x5c;
const ESCAPES: Record<number, number> = {
  0x62: 0x08,
  0x66: 0x0c,
  0x72: 0x0d,
  0x6e: 0x0a,
  0x74: 0x09,
  0x30: 0x00,
  0x27: 0x27,
  0x5c: 0x5c,
  0x61: 0x07,
  0x76: 0x0b,
};

/** A TabSeparated cell's bytes with its escapes undone; null for `\N` (NULL). */
export function unescapeCell(cell: Uint8Array): Uint8Array | null {
  if (cell.length === 2 && cell[0] === BACKSLASH && cell[1] === 0x4e) return null;
  if (!cell.includes(BACKSLASH)) return cell;
  const out = new Uint8Array(cell.length);
  let n = 0;
  for (let i = 0; i < cell.length; i++) {
    const c = cell[i]!;
    if (c === BACKSLASH && i + 1 < cell.length) {
      const next = cell[++i]!;
      out[n++] = ESCAPES[next] ?? next;
    } else out[n++] = c;
  }
  return out.subarray(0, n);
}

const NON_FINITE = /^-?(nan|inf)$/i;
const decoder = new TextDecoder();

/** Reads TabSeparatedWithNamesAndTypes from `reader` into the sink. */
async function stream(
  reader: LineReader,
  sink: RowSink,
  guard: RunGuard,
  errorOf: (e: { code: number; message: string }) => ConnectorError,
): Promise<ResultSummary> {
  // A line is a view of the reader's buffer, valid until the next read: decode each before reading on.
  const cellsOf = (line: Uint8Array) => split(line).map((c) => decoder.decode(unescapeCell(c) ?? new Uint8Array()));
  const names = await reader.next();
  const namesText = names ? decoder.decode(names.line) : '';
  const nameCells = names ? cellsOf(names.line) : [];
  const types = names && !names.partial ? await reader.next() : null;
  if (!names || !types || types.partial) {
    const parsed = names && parseClickhouseError(namesText);
    if (parsed) throw errorOf(parsed);
    // A statement without a result set (SET, an empty answer): no columns, no rows.
    const empty = new ResultWriter([]);
    await callSink(guard, () => sink.columns?.([]));
    return empty.summary();
  }
  const typeCells = cellsOf(types.line);
  const columns = nameCells.map((name, i) => clickhouseColumn(name, typeCells[i] ?? 'String'));
  const writer = new ResultWriter(columns);
  const kinds = columns.map((c) => c.kind);
  const fixed = columns.map((c) => /FixedString\(/.test(c.db_type));
  await callSink(guard, () => sink.columns?.(writer.summary().columns));
  const cells: (Uint8Array | null)[] = new Array(columns.length);
  for (;;) {
    const next = await reader.next();
    if (!next) break;
    const parts = split(next.line);
    if (next.partial || parts.length !== columns.length || isErrorLine(next.line)) {
      // The server reports an error that happened after the first rows at the end of the body.
      const parsed = parseClickhouseError(decoder.decode(next.line));
      if (parsed && (next.partial || parts.length !== columns.length || isErrorLine(next.line))) throw errorOf(parsed);
      if (next.partial) throw new ConnectorError('connection_error', 'The answer from ClickHouse ended in the middle of a row.');
      throw new ConnectorError('connection_error', `ClickHouse sent a row with ${parts.length} values for ${columns.length} columns.`);
    }
    for (let i = 0; i < parts.length; i++) {
      let cell = unescapeCell(parts[i]!);
      if (cell && kinds[i] === Kind.Float && cell.length <= 4 && NON_FINITE.test(decoder.decode(cell))) cell = null;
      if (cell && fixed[i]) {
        let end = cell.length;
        while (end > 0 && cell[end - 1] === 0) end--;
        cell = cell.subarray(0, end);
      }
      cells[i] = cell;
    }
    writer.textRow(cells);
    if (writer.hasPending) await callSink(guard, () => writer.flow(sink, MAX_BACKLOG));
  }
  await callSink(guard, () => writer.drain(sink, true));
  return writer.summary();
}

const CODE = [0x43, 0x6f, 0x64, 0x65, 0x3a, 0x20]; // "Code: "
const ERROR_LINE = /^Code: \d+[.,] (?:e\.displayText\(\) = )?DB::Exception: /;

/**
 * Whether a line is the server's report of an error that happened after rows were sent (appended to
 * the body; with one String column it would otherwise pass for a row).
 */
function isErrorLine(line: Uint8Array): boolean {
  for (let i = 0; i < CODE.length; i++) if (line[i] !== CODE[i]) return false;
  return ERROR_LINE.test(decoder.decode(line.subarray(0, 120)));
}

/** A line's cells (views of it), split at tabs; an empty line is one empty cell. */
function split(line: Uint8Array): Uint8Array[] {
  const out: Uint8Array[] = [];
  let start = 0;
  for (let i = 0; i < line.length; i++) {
    if (line[i] === 0x09) {
      out.push(line.subarray(start, i));
      start = i + 1;
    }
  }
  out.push(line.subarray(start));
  return out;
}
