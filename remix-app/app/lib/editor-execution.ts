/**
 * A query run from the editor, as pure state: the execution statuses of the engine (GET /executions/{id}),
 * what the progress line says, and how long to wait before the next poll.
 */
import type { Cell, DataField } from './types.ts';

/** What the app's execution-data route answers: the first rows of the result. */
export type RowsAnswer =
  | {
      status: 'ok';
      fields: DataField[];
      rows: Cell[][];
      rowCount: number;
      truncated: boolean;
      dataTimestamp: string | null /** Index of the first row of `rows` (pages of PREVIEW_ROWS). */;
      offset?: number;
    }
  | { status: 'empty' }
  | { status: 'error'; message: string };

const FINAL_STATUSES = ['success', 'query_error', 'timed_out', 'cancelled', 'internal_error', 'internal_timeout'] as const;
const ERROR_STATUSES = ['query_error', 'timed_out', 'internal_error', 'internal_timeout'] as const;

export interface Execution {
  execution_id: string;
  execution_status: string;
  result_columns?: number | null;
  result_rows?: number | null;
  result_size?: number | null;
  error_message?: string | null;
  created_at?: string;
  started_at?: string | null;
  completed_at?: string | null;
}

export const isFinal = (status: string) => (FINAL_STATUSES as readonly string[]).includes(status);
export const isError = (status: string) => (ERROR_STATUSES as readonly string[]).includes(status);

const LABELS: Record<string, string> = {
  starting: 'Starting',
  waiting: 'Waiting for a free connection',
  scheduled: 'Scheduled',
  running: 'Running',
  success: 'Done',
  query_error: 'The database refused the query',
  timed_out: 'The query took too long and was stopped',
  cancelled: 'Cancelled',
  internal_error: 'Cairn could not run the query',
  internal_timeout: 'Cairn could not finish the query in time',
};

export function statusLabel(status: string): string {
  return LABELS[status] ?? status;
}

/** Poll delays: 0.5 s, then 1 s, then every 2 s (the API asks clients to back off). */
export function pollDelay(attempt: number): number {
  if (attempt <= 0) return 500;
  if (attempt === 1) return 1000;
  return 2000;
}

/** 0.4 s, 12.3 s, 2 min 05 s. */
export function formatElapsed(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '0.0 s';
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.floor(ms / 1000);
  return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
}

/** How long the database worked on it, from the execution's own timestamps. */
export function duration(e: Pick<Execution, 'started_at' | 'completed_at' | 'created_at'>): number | null {
  const start = Date.parse(e.started_at ?? e.created_at ?? '');
  const end = Date.parse(e.completed_at ?? '');
  return Number.isFinite(start) && Number.isFinite(end) && end >= start ? end - start : null;
}

/**
 * The message for a finished execution that did not succeed: the database's own words when it gave
 * any, else the status explained.
 */
export function failureMessage(e: Pick<Execution, 'execution_status' | 'error_message'>): string {
  const msg = e.error_message?.trim();
  if (msg) return msg;
  return statusLabel(e.execution_status);
}

/** "line 3, position 12" when a database message carries a position into the SQL text. */
export function errorPosition(message: string, sql: string): { line: number; column: number } | null {
  const m = /\b(?:position|pos)\D{0,3}(\d+)/i.exec(message) ?? /\bat character (\d+)/i.exec(message);
  if (m) {
    const offset = Math.max(0, Math.min(sql.length, Number(m[1]) - 1));
    const before = sql.slice(0, offset).split('\n');
    return { line: before.length, column: before[before.length - 1]!.length + 1 };
  }
  const line = /\bline (\d+)/i.exec(message);
  return line ? { line: Number(line[1]), column: 1 } : null;
}

/** The SQL to run: the selection when there is one (not only whitespace), else the whole text. */
export function sqlToRun(text: string, selection: { from: number; to: number } | null): string {
  if (selection && selection.to > selection.from) {
    const part = text.slice(selection.from, selection.to);
    if (part.trim()) return part;
  }
  return text;
}
