/** What the API hands to a datasource's gate to run: everything needed, already compiled. */
export interface ExecutionJob {
  executionId: string;
  organizationId: string;
  datasourceId: string;
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
}

export type FinalStatus = 'success' | 'query_error' | 'timed_out' | 'cancelled' | 'internal_error' | 'internal_timeout';

export interface ExecutionOutcome {
  executionId: string;
  status: FinalStatus;
  dataKey: string | null;
  rowCount: number;
  errorMessage: string | null;
}
