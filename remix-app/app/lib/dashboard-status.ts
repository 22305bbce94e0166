/**
 * The status poll as the dashboard page reads it (pure): per report, what to show and which result
 * to fetch; per dynamic filter, where its options are.
 */
import type { ApiSchema } from '@cairn/client';
import type { Cell, DataField } from './types.ts';

/** The status poll's answer (POST /dashboards/{id}/status, and a sharing link's status), as the API document types it. */
export type DashboardStatus = ApiSchema<'DashboardStatus'>;
/** What the status says about one report or filter's data (the fields a report and a filter entry share). */
export type StatusEntry = Omit<DashboardStatus['reports'][number], 'report_id'>;
export interface StatusError {
  error: { status: number; code: string; message: string };
}

export interface ResultData {
  fields: DataField[];
  rows: Cell[][];
  data_timestamp?: string | null;
  time_zone?: string | null;
  /** A page of the result (GET /data/{key}?offset=&limit=): where `rows` start and the whole result's row count. */
  offset?: number;
  limit?: number;
  row_count?: number;
}

type TilePhase = 'loading' | 'ready' | 'empty' | 'error' | 'waiting';

export interface TileState {
  phase: TilePhase;
  result: ResultData | null;
  /** The data key of `result`. */
  dataKey: string | null;
  /** The latest data access token for `dataKey` (a table tile fetches its other pages with it). */
  dataToken?: string | null;
  dataTimestamp: string | null;
  current: boolean;
  running: boolean;
  message: string | null;
  /**
   * Set while the status call itself fails on the way (no answer, 5xx, 429) and is being retried: the
   * tile keeps what it shows and says it is retrying. Never the report's error (`phase` 'error'), so an
   * embedded page posts no `cairn:report-error` for it. Cleared by the next answer about the report.
   */
  retrying?: string | null;
}

export const INITIAL_TILE: TileState = { phase: 'loading', result: null, dataKey: null, dataTimestamp: null, current: true, running: true, message: null };

/** What one status entry means for a tile, and whether its result must be fetched. */
export function nextTile(prev: TileState, e: StatusEntry, noDataMessage: string): { tile: TileState; fetch: { key: string; token: string } | null } {
  const meta = { dataTimestamp: e.data_timestamp, current: e.data_current, running: e.running || e.result_status === 'running', retrying: null };
  if (e.result_status === 'error') {
    return { tile: { ...prev, ...meta, running: false, phase: 'error', message: e.error?.message || 'The query failed.' }, fetch: null };
  }
  if (e.result_status === 'no_data') {
    return { tile: { ...prev, ...meta, phase: 'empty', result: null, dataKey: null, message: noDataMessage }, fetch: null };
  }
  if (e.result_status === 'success' && e.data_key && e.data_access_token) {
    if (prev.dataKey === e.data_key && prev.result)
      return { tile: { ...prev, ...meta, phase: 'ready', message: null, dataToken: e.data_access_token }, fetch: null };
    return { tile: { ...prev, ...meta }, fetch: { key: e.data_key, token: e.data_access_token } };
  }
  // Running without a result yet: keep what is shown (older data stays visible while a new run goes on).
  return {
    tile: { ...prev, ...meta, phase: prev.result ? prev.phase : prev.phase === 'error' ? 'loading' : prev.phase === 'empty' ? 'empty' : 'loading' },
    fetch: null,
  };
}

/** What a tile says while the status call is retried after a failure on the way. */
export const STATUS_RETRYING = 'The dashboard status could not be loaded; retrying.';

/**
 * A failure of the status call that goes away by itself: no answer at all (status 0: network, aborted
 * connection), a server error (5xx), too many requests (429), a timeout (408), or an answer that is not
 * the API's (a proxy's HTML page). Any other 4xx is a refusal that asking again will not change.
 */
export function isTransientStatusError(e: StatusError['error']): boolean {
  return e.status === 0 || e.status === 408 || e.status === 429 || e.status >= 500 || e.code === 'bad_response';
}

/** Seconds before the next status call after `failures` transient failures in a row: 2, 4, 8, 16, then 30 (429: 10 at least). */
export function statusRetryDelay(failures: number, status: number): number {
  const backoff = Math.min(30, 2 ** Math.max(1, Math.min(failures, 5)));
  return status === 429 ? Math.max(10, backoff) : backoff;
}

/**
 * A tile after a failed status call. A transient failure (`isTransientStatusError`) is the request's,
 * not the report's: the tile keeps its data, its loading state or its own report error, and notes that
 * the page is retrying. A refusal (a link that is gone, parameters the API refuses) becomes the error
 * of every tile without data, as the tiles cannot be shown with these parameters.
 */
export function tileAfterStatusFailure(prev: TileState, error: StatusError['error']): TileState {
  if (isTransientStatusError(error)) return { ...prev, retrying: STATUS_RETRYING };
  return { ...prev, phase: prev.result ? prev.phase : 'error', running: false, message: prev.result ? prev.message : error.message, retrying: null };
}

/** The options of a query-driven dropdown from its result: first column values, second column labels. */
export function optionsFrom(result: ResultData): { value: string; label: string }[] {
  const seen = new Set<string>();
  const out: { value: string; label: string }[] = [];
  for (const row of result.rows) {
    const v = row[0];
    if (v === null || v === undefined) continue;
    const value = String(v);
    if (seen.has(value)) continue;
    seen.add(value);
    const label = row.length > 1 && row[1] !== null && row[1] !== undefined ? String(row[1]) : value;
    out.push({ value, label });
  }
  return out;
}

/** "just now", "5 min ago", "3 h ago", "2 days ago". */
export function dataAge(iso: string | null, now: number): string | null {
  if (!iso) return null;
  const t = Date.parse(iso);
  if (!Number.isFinite(t)) return null;
  const s = Math.max(0, Math.round((now - t) / 1000));
  if (s < 45) return 'just now';
  const m = Math.round(s / 60);
  if (m < 60) return `${m} min ago`;
  const h = Math.round(m / 60);
  if (h < 36) return `${h} h ago`;
  const d = Math.round(h / 24);
  return `${d} day${d === 1 ? '' : 's'} ago`;
}
