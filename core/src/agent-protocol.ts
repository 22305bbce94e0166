/**
 * The messages between a datasource agent (agent/) and its Durable Object in the API worker
 * (worker-api/src/durable/agent-hub.ts). One WebSocket per agent; every message is one JSON text
 * frame. The agent also sends the text frame `ping` every AGENT_PING_MS, answered `pong` by the
 * runtime without waking the object (its timestamp tells the object the agent is alive).
 *
 * Results flow with an ack-based window: the agent sends at most AGENT_WINDOW `rows` frames that the
 * object has not acknowledged, and the object acknowledges a frame only when the run's reader has
 * taken it, so a slow reader slows the database read down.
 */

/** The path the agent connects to (a WebSocket upgrade with `Authorization: Agent <agent_id>:<secret_key>`). */
export const AGENT_CONNECT_PATH = '/agent/connect';
export const AGENT_PING_MS = 5_000;
/** With no ping for this long, the object counts the agent as gone. */
export const AGENT_STALE_MS = 20_000;
/** Unacknowledged `rows` frames an agent may have in flight per query. */
export const AGENT_WINDOW = 4;
/** Bytes of cells per `rows` frame, about (a WebSocket message of the Workers runtime is at most 1 MiB). */
export const AGENT_FRAME_BYTES = 256 * 1024;
/** Close codes: the agent must not retry after these (its secret is refused, it is disabled or deleted). */
export const AGENT_CLOSE_REFUSED = 4001;
/** A newer connection of the same agent replaced this one. */
export const AGENT_CLOSE_REPLACED = 4002;

/** What the agent needs to reach one database; sent with each request, the password already unsealed. */
export interface AgentDatasource {
  database_type: string;
  host: string;
  port: number | null;
  user: string;
  password?: string;
  database?: string;
  require_ssl: boolean;
  verify_ssl: boolean;
  default_schema?: string | null;
}

/**
 * How a result column is described. postgres: the type OID (the API maps it as the direct connector
 * does); mysql: mysql2's column definition; other: the agent's own mapping (mssql, oracle).
 */
export type AgentColumn =
  | { family: 'postgres'; name: string; oid: number }
  | { family: 'mysql'; name: string; field: { columnType: number; columnLength: number; characterSet: number; flags: number } }
  | { family: 'other'; name: string; db_type: string; data_type: string; kind: number };

/**
 * A cell: postgres sends the database's text form (string or null); the others send JSON values, with
 * bytes as `{ "b64": "…" }`.
 */
export type AgentCell = string | number | boolean | null | { b64: string };

export type FailureKind = 'query_error' | 'timed_out' | 'cancelled' | 'connection_error';

/** Object → agent. */
export type ToAgent =
  | { t: 'run'; id: string; ds: AgentDatasource; text: string; values: unknown[]; timeout_ms: number; time_zone: string }
  | { t: 'ack'; id: string; seq: number }
  | { t: 'cancel'; id: string }
  | { t: 'test'; id: string; ds: AgentDatasource }
  | { t: 'schema'; id: string; ds: AgentDatasource; opts: Record<string, unknown> };

/** Agent → object. */
export type FromAgent =
  | { t: 'hello'; version: string; address: string; drivers: string[] }
  | { t: 'status'; active_queries: number }
  | { t: 'columns'; id: string; columns: AgentColumn[] }
  | { t: 'rows'; id: string; seq: number; rows: AgentCell[][] }
  | { t: 'done'; id: string }
  | { t: 'error'; id: string; kind: FailureKind; message: string }
  /** The answer of test or schema, split in parts when long (`more` until the last). */
  | { t: 'reply'; id: string; part: string; more: boolean };

/** Which drivers run which database types through an agent. */
export const AGENT_DATABASE_TYPES = ['postgres', 'redshift', 'mysql', 'mariadb', 'mssql', 'oracle', 'vertica'] as const;
