import { MAX_BACKLOG, ResultWriter, type ResultSummary, type RowSink } from '../result.ts';
import type { EncodedColumn } from '../types.ts';
import { DEFAULT_TIMEOUT_MS, type CancelHandle, type Query, type RunOptions } from './connector.ts';
import { ConnectorError, FIRST_ANSWER_MS, answerWithin } from './errors.ts';
import { runFailure } from './http-common.ts';
import { RunGuard, callSink } from './run-guard.ts';

/**
 * The run loop the warehouse statement APIs share (Snowflake SQL API, BigQuery jobs, Databricks
 * statement execution, Athena query execution): submit, poll until done, read the result page by
 * page. A connector supplies `execute`, which calls `ctx.handle` once the statement has an id to
 * cancel by, `ctx.columns` once, and `ctx.rows` per page (the next page is asked for only after the
 * sink took these rows: backpressure); this file does the statement timeout, cancel and the sink.
 */
export interface StatementContext {
  timeoutMs: number;
  timeZone: string;
  /** Aborted when the run is given up (timeout past the grace, cancel without an answer). */
  signal: AbortSignal;
  /** True once the run was cancelled or timed out: ask for no further page. */
  stopped(): boolean;
  handle(h: CancelHandle): Promise<void>;
  columns(cols: EncodedColumn[]): Promise<void>;
  rows(rows: unknown[][]): Promise<void>;
}

export type Execute = (sql: string, ctx: StatementContext) => Promise<void>;

/** Refuses bound values (D48): Cairn never writes values into SQL text, and these drivers do not send them separately yet. */
export function refuseBoundValues(name: string, query: Query): void {
  if (query.values.length === 0) return;
  throw new ConnectorError(
    'query_error',
    `${name} datasources cannot run queries with bound values yet (a filter with a value, or a parameter): ` +
      'Cairn never writes values into the SQL text, and this driver has no way to send them separately. Remove the filter from the query, or use a fixed value in the SQL.',
    { code: 'bound_values_unsupported' },
  );
}

export async function runStatement(
  label: string,
  query: Query,
  sink: RowSink,
  opts: RunOptions,
  cancel: (h: CancelHandle) => Promise<boolean>,
  execute: Execute,
): Promise<ResultSummary> {
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const controller = new AbortController();
  const guard = new RunGuard(timeoutMs, opts.signal, { cancel, destroy: () => controller.abort() });
  let writer: ResultWriter | null = null;
  try {
    await execute(query.text, {
      timeoutMs,
      timeZone: opts.timeZone ?? 'UTC',
      signal: controller.signal,
      stopped: () => guard.timedOut || guard.cancelled,
      handle: async (h) => {
        guard.handle = h;
        await opts.onCancelHandle?.(h);
        guard.throwIfStopped();
      },
      columns: async (cols) => {
        if (writer) return;
        const w = (writer = new ResultWriter(cols));
        await callSink(guard, () => sink.columns?.(w.summary().columns));
      },
      rows: async (rows) => {
        if (!writer) throw new Error('rows before columns');
        for (const r of rows) writer.valueRow(r);
        if (writer.hasPending) await callSink(guard, () => writer!.flow(sink, MAX_BACKLOG));
        guard.throwIfStopped();
      },
    });
    guard.throwIfStopped();
    const w: ResultWriter = writer ?? new ResultWriter([]);
    if (!writer) await callSink(guard, () => sink.columns?.([]));
    await callSink(guard, () => w.drain(sink, true));
    return w.summary();
  } catch (err) {
    throw runFailure(err, guard, timeoutMs, label);
  } finally {
    guard.done();
  }
}

/** A small statement's rows as the connector's JS values (connection tests, schema reads). */
export async function smallRows(label: string, execute: Execute, sql: string): Promise<unknown[][]> {
  const controller = new AbortController();
  const out: unknown[][] = [];
  const work = execute(sql, {
    timeoutMs: 60_000,
    timeZone: 'UTC',
    signal: controller.signal,
    stopped: () => false,
    handle: async () => {},
    columns: async () => {},
    rows: async (r) => void out.push(...r),
  });
  await answerWithin(work, FIRST_ANSWER_MS * 2, label, () => controller.abort());
  return out;
}

/** Waits between polls: short at first, then up to a second. */
export const pollDelay = (n: number) => Math.min(1_000, 50 * 2 ** n);

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** An HTTP answer's body as JSON, or null when it is not JSON. */
export async function jsonOf(res: Response): Promise<{ text: string; json: any }> {
  const text = await res.text();
  try {
    return { text, json: text ? JSON.parse(text) : null };
  } catch {
    return { text, json: null };
  }
}

/** Base64 text → bytes. */
export function base64Bytes(s: string): Uint8Array {
  const bin = atob(s);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/** Builds a schema document from (schema, table, column, type) rows. */
export function schemaFromRows(
  rows: unknown[][],
  dataType: (t: string) => import('@cairn/core').DataType,
): { name: string; tables: import('./connector.ts').SchemaTable[] }[] {
  const schemas = new Map<string, Map<string, import('./connector.ts').SchemaTable>>();
  for (const [schema, tableName, column, type] of rows as string[][]) {
    let tables = schemas.get(schema!);
    if (!tables) schemas.set(schema!, (tables = new Map()));
    let t = tables.get(tableName!);
    if (!t) tables.set(tableName!, (t = { name: tableName!, columns: [] }));
    t.columns.push({ name: column!, db_type: type!, data_type: dataType(type!) });
  }
  return [...schemas.entries()].map(([name, tables]) => ({ name, tables: [...tables.values()] }));
}
