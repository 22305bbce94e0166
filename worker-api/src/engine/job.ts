import type { SchemaOptions } from './connectors/connector.ts';

/** What an alert run needs once its query has finished (engine/alert-run.ts). */
interface AlertFollowUp {
  kind: 'sql_alert';
  alertId: string;
  /** The SQL as it was sent (snippets expanded, placeholders for bound values), for the alert result. */
  sqlText: string;
}

/** What the API hands to a datasource's gate to run: everything needed, already compiled. */
export interface ExecutionJob {
  executionId: string;
  organizationId: string;
  datasourceId: string;
  /**
   * `query` (default): run `text` with `values` and store its rows. `schema`: read the datasource's
   * schema through its connector, cache it on the datasource and store it for `GET /schema/{dataKey}`.
   */
  kind?: 'query' | 'schema';
  /** SQL text with placeholders and its bound values (never spliced). */
  text: string;
  values: unknown[];
  /** Key of the stored result's hash part (source and parameters). */
  paramsHash: string;
  /** The datasource's max_concurrent_executions at submission time. */
  maxConcurrent: number;
  /** The session time zone to run in (the datasource's data time zone). */
  sessionTimeZone: string;
  /** The zone the result's times are meant in (the dashboard's), stored with the result. */
  resultTimeZone: string;
  /** Statement timeout in ms (default: env STATEMENT_TIMEOUT_MS, else 120 s). */
  timeoutMs?: number;
  /** Overall guard in ms past which the run is abandoned as internal_timeout (default: env EXECUTION_GUARD_MS, else 10 min). */
  guardMs?: number;
  /** Schema jobs: which schemas and whether to count rows (from the datasource when absent). */
  schema?: SchemaOptions;
  /** Work that runs in the gate after the execution ends (alert evaluation and e-mail). */
  followUp?: AlertFollowUp;
}

export type FinalStatus = 'success' | 'query_error' | 'timed_out' | 'cancelled' | 'internal_error' | 'internal_timeout';

export interface ExecutionOutcome {
  executionId: string;
  status: FinalStatus;
  dataKey: string | null;
  rowCount: number;
  errorMessage: string | null;
  /** Milliseconds from the start of the run (after any wait) to its end. */
  durationMs?: number;
}
