import { AGENT_DATABASE_TYPES } from './agent-protocol.ts';

/**
 * Which datasources can run queries today: the one list that the API's connectors
 * (worker-api/src/engine/connectors) and the app's datasource form both read, so the form never offers
 * a type or a connection mode that the engine cannot run. A type or mode missing here is accepted by
 * the API as stored settings (the spec's data model) but every run, test and schema read of it is a
 * 422 invalid_state; the form shows it as "not available yet".
 */

/**
 * Database types with a driver (connection mode direct). cratedb rides on the Postgres wire protocol;
 * clickhouse (HTTP interface), trino and presto (client REST protocol), snowflake (SQL API v2), bigquery
 * (jobs API), databricks (statement execution API) and athena (query execution API) are spoken over HTTP.
 * mongodb and mongodbatlas never run: the 422 names the way round (an SQL layer such as the BI Connector, D52).
 */
export const RUNNABLE_DATABASE_TYPES = [
  'postgres',
  'redshift',
  'mysql',
  'mariadb',
  'clickhouse',
  'trino',
  'presto',
  'snowflake',
  'bigquery',
  'databricks',
  'athena',
] as const;

/** Connection modes that run queries (agent: through a datasource agent, D50; ssh_tunnel only for TUNNEL_DATABASE_TYPES, D51). */
export const RUNNABLE_CONNECTION_MODES = ['direct', 'agent', 'ssh_tunnel'] as const;

/**
 * Database types that run through an SSH tunnel (ARCHITECTURE D51, D59): the socket drivers, which take
 * the tunnel's channel as their connection — the Postgres wire-protocol family (postgres.js `socket`)
 * and MySQL/MariaDB (mysql2 `stream`). The HTTP drivers cannot (fetch does not take a channel).
 */
export const TUNNEL_DATABASE_TYPES = ['postgres', 'redshift', 'cratedb', 'mysql', 'mariadb'] as const;

/**
 * Types whose driver is wired (in the agent, D50/D60) but has never run against a real server of that
 * database: none can be installed where Cairn is tested. The app's form and the docs say so.
 */
export const UNPROVEN_DATABASE_TYPES = ['mssql', 'oracle', 'vertica'] as const;

/** Whether a database type runs queries today. */
export function databaseTypeRuns(type: string): boolean {
  return (RUNNABLE_DATABASE_TYPES as readonly string[]).includes(type);
}

/** Whether a connection mode runs queries today (for that database type, when one is given). */
export function connectionModeRuns(mode: string, type?: string): boolean {
  if (!(RUNNABLE_CONNECTION_MODES as readonly string[]).includes(mode)) return false;
  return mode !== 'ssh_tunnel' || type === undefined || (TUNNEL_DATABASE_TYPES as readonly string[]).includes(type);
}

/** Whether a database type runs in a connection mode (an agent has Node drivers of its own: agent-protocol.ts). */
export function databaseTypeRunsWith(type: string, mode: string): boolean {
  if (mode === 'agent') return (AGENT_DATABASE_TYPES as readonly string[]).includes(type);
  return databaseTypeRuns(type) && connectionModeRuns(mode, type);
}
