import type { DataType } from '@cairn/core';
import type { ResultSummary, RowSink } from '../result.ts';
import type { TunnelStream } from './ssh-tunnel.ts';

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
  | { family: 'mysql'; thread_id: number }
  /** ClickHouse: the query_id the run was sent with (KILL QUERY names it). */
  | { family: 'clickhouse'; query_id: string }
  /** Trino and Presto: the query's id and the nextUri whose DELETE cancels it (client REST protocol). */
  | { family: 'trino'; query_id: string; next_uri: string }
  /** Through a datasource agent: the agent's row id and the query's id in its Durable Object. */
  | { family: 'agent'; agent: string; query_id: string }
  /** Snowflake SQL API: the statement handle (POST …/statements/{handle}/cancel). */
  | { family: 'snowflake'; statement_handle: string }
  /** BigQuery: the job (jobs.cancel names project, job id and location). */
  | { family: 'bigquery'; project_id: string; job_id: string; location: string | null }
  /** Databricks SQL statement execution: the statement id (POST …/statements/{id}/cancel). */
  | { family: 'databricks'; statement_id: string }
  /** Athena: the query execution id (StopQueryExecution). */
  | { family: 'athena'; query_execution_id: string };

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
  /** Only this schema (Postgres, Trino/Presto) or database (MySQL, ClickHouse). */
  name?: string | null;
  /** Postgres family and Trino/Presto (schemas of the catalog): schemas to list (default: all but the system schemas). MySQL: databases too. */
  included_schemas?: string[] | null;
  /** MySQL family: databases to list (default: the datasource's database, else all but system ones). ClickHouse: databases (default: all but system). */
  included_databases?: string[] | null;
  /** Include a row count per table (estimates from the catalog where the database keeps them). */
  rowCounts?: boolean;
}

interface SchemaColumn {
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
  /** The name the datasource gives: messages and TLS (certificate name, SNI) use it. */
  host: string;
  /** Where to connect when it is not `host`: the address checked under BLOCK_PRIVATE_NETWORKS (target-guard.ts `dialAddress`). */
  address?: string;
  port: number;
  user: string;
  password?: string;
  database?: string;
  requireSsl: boolean;
  verifySsl: boolean;
  /** Postgres: the search_path for queries. */
  defaultSchema?: string | null;
  /**
   * An SSH tunnel (connection_mode ssh_tunnel): opens each connection as a channel through the SSH
   * server to host:port as that server sees them (ssh-tunnel.ts); the socket drivers use it instead of dialling.
   */
  tunnel?: () => Promise<TunnelStream>;
  /** With a tunnel, what it goes through (`the SSH server host:port`), for messages. */
  via?: string;
  /** Cloud warehouses: the datasource's settings of its type (spec 02), secrets unsealed. */
  cloud?: CloudSettings;
}

interface CloudSettings {
  snowflakeIdentifier?: string | null;
  snowflakeRegion?: string | null;
  snowflakeWarehouse?: string | null;
  /** The service account key file (JSON text). */
  bigqueryServiceKey?: string | null;
  databricksHttpPath?: string | null;
  databricksAuthMode?: 'pat' | 'oauth_m2m' | null;
  databricksAuthExpiresAt?: Date | null;
  athenaRegion?: string | null;
  athenaWorkgroup?: string | null;
  athenaOutputLocation?: string | null;
}

export const DEFAULT_TIMEOUT_MS = 120_000;
export const CONNECT_TIMEOUT_S = 10;
/** Rows fetched per round trip at first; later batches are sized to about one chunk. */
export const FIRST_BATCH_ROWS = 1_000;
