import type { DataType } from '@cairn/core';
import type { ResultSummary, RowSink } from '../result.ts';

/** A compiled query: SQL with placeholders (`$n` for Postgres, `?` for MySQL) and its bound values. */
export interface Query {
  text: string;
  values: unknown[];
}

/**
 * Identifies a running statement so that another request (or another isolate) can cancel it with a
 * second connection. Plain JSON: it may be stored with the execution.
 */
export type CancelHandle =
  | { family: 'postgres'; pid: number; application_name: string }
  | { family: 'mysql'; thread_id: number };

export interface RunOptions {
  /** Statement timeout (default 120 s); exceeding it fails the run with a `timed_out` error. */
  timeoutMs?: number;
  /** Called once the statement's connection is known and before the statement is sent. */
  onCancelHandle?: (handle: CancelHandle) => void | Promise<void>;
  /** Aborting cancels the running statement from this process (a `cancelled` error). */
  signal?: AbortSignal;
  /**
   * The session time zone of the statement (IANA name, default UTC): the datasource's data time zone,
   * so that zone-less values are read as its wall clock. Instants are still written in UTC.
   */
  timeZone?: string;
}

export interface ConnectionTestResult {
  status: 'ok' | 'error';
  /** The database's own message (or the network's) when status is error. */
  error_message: string | null;
  server_version: string | null;
}

export interface SchemaOptions {
  /** Only this schema (Postgres) or database (MySQL). */
  name?: string | null;
  /** Postgres family: schemas to list (default: all but the system schemas). MySQL: databases too. */
  included_schemas?: string[] | null;
  /** MySQL family: databases to list (default: the datasource's database, else all but system ones). */
  included_databases?: string[] | null;
  /** Include a row count per table (estimates from the catalog where the database keeps them). */
  rowCounts?: boolean;
}

export interface SchemaColumn {
  name: string;
  db_type: string;
  data_type: DataType;
}

export interface SchemaTable {
  name: string;
  row_count?: number;
  columns: SchemaColumn[];
}

export interface SchemaData {
  schemas: { name: string; tables: SchemaTable[] }[];
  /** Sum of the tables' row counts, when row counts were asked for. */
  total_row_count?: number;
  /** Whether those counts are exact (false when they are the catalog's estimates). */
  total_row_count_exact?: boolean;
}

/** One database type family's driver. */
export interface Connector {
  /**
   * Runs one statement and streams its rows into `sink` in chunks; memory stays bounded whatever the
   * row count. Rejects with a `ConnectorError` (query_error, timed_out, cancelled, connection_error).
   */
  run(query: Query, sink: RowSink, opts?: RunOptions): Promise<ResultSummary>;
  /** Cancels the statement behind `handle` from a second connection; true when one was signalled. */
  cancel(handle: CancelHandle): Promise<boolean>;
  testConnection(): Promise<ConnectionTestResult>;
  schema(opts?: SchemaOptions): Promise<SchemaData>;
}

/** What a connector needs to reach a database; the password is already unsealed. */
export interface ConnectionSettings {
  host: string;
  port: number;
  user: string;
  password?: string;
  database?: string;
  requireSsl: boolean;
  verifySsl: boolean;
  /** Postgres: the search_path for queries. */
  defaultSchema?: string | null;
}

export const DEFAULT_TIMEOUT_MS = 120_000;
export const CONNECT_TIMEOUT_S = 10;
/** Rows fetched per round trip at first; later batches are sized to about one chunk. */
export const FIRST_BATCH_ROWS = 1_000;
