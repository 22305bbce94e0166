import { ApiError } from '@cairn/core';
import type { DatabaseType } from '@cairn/db';

/**
 * The per-type rules of a datasource, checked on the state it would have after the write (the stored
 * row merged with what the request sends), so an update can never leave a datasource that a create
 * would refuse.
 *
 * What a create must say is *where* to connect: the host of a server database; the account
 * identifier of Snowflake; the S3 output location of Athena; the HTTP path of Databricks; the service
 * key of BigQuery. Credentials are optional for server databases (some trust their network) but
 * required by the cloud services, which never accept anonymous connections.
 */

/** Default ports; types missing here take no port (cloud APIs, MongoDB Atlas SRV addresses). */
const DEFAULT_PORTS: Partial<Record<DatabaseType, number>> = {
  postgres: 5432,
  redshift: 5439,
  mysql: 3306,
  mariadb: 3306,
  oracle: 1521,
  mssql: 1433,
  presto: 8080,
  trino: 8080,
  vertica: 5433,
  mongodb: 27017,
  // ClickHouse is reached over its HTTP interface: 8123, or 8443 with TLS.
  clickhouse: 8123,
  databricks: 443,
};
const CLICKHOUSE_TLS_PORT = 8443;
export const DEFAULT_SSH_PORT = 22;

/** Reached through a cloud API: no host and no port. */
const NO_HOST = new Set<DatabaseType>(['bigquery', 'athena', 'snowflake']);
/** Managed services reached over the internet: an SSH tunnel does not apply. */
const NO_SSH_TUNNEL = new Set<DatabaseType>(['bigquery', 'athena', 'snowflake', 'databricks', 'mongodbatlas']);

/** Attributes that belong to one database type only. */
const TYPE_PREFIXES: [string, DatabaseType][] = [
  ['athena_', 'athena'],
  ['databricks_', 'databricks'],
  ['snowflake_', 'snowflake'],
  ['bigquery_', 'bigquery'],
];

export function defaultPort(type: DatabaseType, requireSsl: boolean): number | null {
  if (type === 'clickhouse' && requireSsl) return CLICKHOUSE_TLS_PORT;
  return DEFAULT_PORTS[type] ?? null;
}

/** The datasource as the rules see it. */
export interface DatasourceState {
  database_type: DatabaseType;
  connection_mode: 'direct' | 'ssh_tunnel' | 'agent';
  host: string | null;
  port: number | null;
  username: string | null;
  password_set: boolean;
  ssh_tunnel_host: string | null;
  ssh_tunnel_user: string | null;
  athena_s3_output_location: string | null;
  databricks_http_path: string | null;
  databricks_auth_mode: 'pat' | 'oauth_m2m' | null;
  databricks_auth_expires_at: string | Date | null;
  snowflake_identifier: string | null;
  bigquery_service_key_set: boolean;
  agent_count: number;
}

const attr = (name: string) => ({ pointer: `/data/attributes/${name}` });

/**
 * Problems of the merged state. `sent` names the attributes of this request: attributes that do not
 * apply to the type are refused only when sent (stored defaults such as athena_region stay quiet).
 */
export function datasourceProblems(s: DatasourceState, sent: Record<string, unknown>, agentsSent: boolean): ApiError[] {
  const out: ApiError[] = [];
  const t = s.database_type;
  const need = (name: string, present: boolean, why: string) => {
    if (!present) out.push(new ApiError('missing_attribute', `${name} is required ${why}.`, { source: attr(name) }));
  };
  const refuse = (name: string, why: string) => {
    if (sent[name] !== undefined && sent[name] !== null) out.push(new ApiError('invalid_attribute', `${name} ${why}.`, { source: attr(name) }));
  };

  for (const [prefix, owner] of TYPE_PREFIXES) {
    if (owner === t) continue;
    for (const name of Object.keys(sent)) if (name.startsWith(prefix)) refuse(name, `applies only to ${owner} datasources`);
  }

  if (NO_HOST.has(t)) {
    refuse('host', `does not apply to ${t} datasources`);
    refuse('port', `does not apply to ${t} datasources`);
  } else {
    need('host', !!s.host, `for ${t} datasources`);
    if (t === 'mongodbatlas') refuse('port', 'does not apply to mongodbatlas datasources (the cluster address is resolved through DNS)');
  }

  if (s.connection_mode === 'ssh_tunnel') {
    if (NO_SSH_TUNNEL.has(t)) {
      out.push(
        new ApiError('invalid_attribute', `${t} datasources cannot be reached through an SSH tunnel; use direct or agent.`, {
          source: attr('connection_mode'),
        }),
      );
    } else {
      need('ssh_tunnel_host', !!s.ssh_tunnel_host, 'with connection_mode ssh_tunnel');
      need('ssh_tunnel_user', !!s.ssh_tunnel_user, 'with connection_mode ssh_tunnel');
    }
  }
  if (s.connection_mode === 'agent' && s.agent_count === 0) {
    out.push(
      new ApiError('invalid_relationship', 'connection_mode agent needs the agents relationship with at least one agent.', {
        source: { pointer: '/data/relationships/agents' },
      }),
    );
  }
  if (s.connection_mode !== 'agent' && agentsSent && s.agent_count > 0) {
    out.push(new ApiError('invalid_relationship', 'Agents apply only with connection_mode agent.', { source: { pointer: '/data/relationships/agents' } }));
  }

  switch (t) {
    case 'athena':
      need('athena_s3_output_location', !!s.athena_s3_output_location, 'for athena datasources (query results are written there)');
      need('username', !!s.username, 'for athena datasources (the AWS access key ID)');
      need('password', s.password_set, 'for athena datasources (the AWS secret access key)');
      break;
    case 'databricks':
      need('databricks_http_path', !!s.databricks_http_path, 'for databricks datasources');
      need('password', s.password_set, 'for databricks datasources (the access token, or the OAuth secret with oauth_m2m)');
      if (s.databricks_auth_mode === 'oauth_m2m') {
        need('username', !!s.username, 'with databricks_auth_mode oauth_m2m (the OAuth client ID)');
        need('databricks_auth_expires_at', !!s.databricks_auth_expires_at, 'with databricks_auth_mode oauth_m2m');
      }
      break;
    case 'snowflake':
      need('snowflake_identifier', !!s.snowflake_identifier, 'for snowflake datasources');
      need('username', !!s.username, 'for snowflake datasources');
      need('password', s.password_set, 'for snowflake datasources');
      break;
    case 'bigquery':
      need('bigquery_service_key', s.bigquery_service_key_set, 'for bigquery datasources');
      break;
    default:
      break;
  }
  return out;
}

/** Throws the problems as one 422 (every problem listed). */
export function throwProblems(problems: ApiError[]): void {
  if (!problems.length) return;
  const [first, ...more] = problems;
  throw new ApiError(first!.code, first!.message, { source: first!.source, more });
}

/* Small value checks shared by the datasource, agent and alert schemas. */

const HOSTNAME = /^(?=.{1,253}$)[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,62})(?:\.[A-Za-z0-9_-]{1,63})*\.?$/;
const IPV6 = /^\[?[0-9A-Fa-f:.]+(?:%[A-Za-z0-9]+)?\]?$/;

/** A host name, IPv4 or IPv6 address — no scheme, port, path or credentials. */
export function isHost(value: string): boolean {
  if (HOSTNAME.test(value)) return true;
  return value.split(':').length > 2 && IPV6.test(value);
}

export interface ServiceKeyCheck {
  ok: boolean;
  /** The key as compact JSON text, when ok. */
  json?: string;
  problem?: string;
}

/**
 * A Google Cloud service account key: the JSON file Google hands out (as text or as an object), with
 * `type` service_account, `project_id`, `client_email` and `private_key`.
 */
export function checkServiceKey(value: unknown): ServiceKeyCheck {
  let parsed: unknown = value;
  if (typeof value === 'string') {
    try {
      parsed = JSON.parse(value);
    } catch {
      return { ok: false, problem: 'is not valid JSON; paste the whole key file of the service account.' };
    }
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
    return { ok: false, problem: 'must be the JSON object of a service account key file.' };
  }
  const key = parsed as Record<string, unknown>;
  if (key.type !== 'service_account') return { ok: false, problem: 'must be a service account key ("type": "service_account").' };
  for (const field of ['project_id', 'client_email', 'private_key'] as const) {
    if (typeof key[field] !== 'string' || !(key[field] as string).trim()) {
      return { ok: false, problem: `lacks "${field}"; paste the whole key file of the service account.` };
    }
  }
  if (!(key.private_key as string).includes('PRIVATE KEY')) return { ok: false, problem: 'has a private_key that is not a PEM private key.' };
  return { ok: true, json: JSON.stringify(key) };
}

const EMAIL = /^[^\s@,;<>"]+@[^\s@,;<>"]+\.[^\s@,;<>"]+$/;
export const MAX_EMAILS = 100;

/** Splits a comma-separated address list; returns the clean list or the first bad entry. */
export function parseEmailList(value: string): { emails: string[] } | { bad: string } {
  const parts = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const p of parts) if (!EMAIL.test(p) || p.length > 254) return { bad: p };
  return { emails: [...new Set(parts)] };
}
