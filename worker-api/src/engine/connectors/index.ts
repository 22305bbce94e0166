import { ApiError, RUNNABLE_DATABASE_TYPES, TUNNEL_DATABASE_TYPES, connectionModeRuns, decryptSecret } from '@cairn/core';
import { AGENT_DATABASE_TYPES } from '@cairn/core/agent-protocol';
import type { datasources } from '@cairn/db';
import type { ConnectionSettings, Connector } from './connector.ts';
import { ClickhouseConnector } from './clickhouse.ts';
import { MysqlConnector } from './mysql.ts';
import { PostgresConnector } from './postgres.ts';
import { TrinoConnector } from './trino.ts';
import { AgentConnector, type AgentHubNamespace, type AgentRef } from './agent.ts';
import { SnowflakeConnector } from './snowflake.ts';
import { BigqueryConnector } from './bigquery.ts';
import { DatabricksConnector } from './databricks.ts';
import { AthenaConnector } from './athena.ts';
import { checkTarget, dialAddress, type TargetPolicy } from './target-guard.ts';
import { openTunnel, type TunnelSettings, type TunnelStream } from './ssh-tunnel.ts';
import { ConnectorError } from './errors.ts';
import { remoteSource, sampleSource, type Closer, type PgFamily, type SampleDatabase } from './postgres-source.ts';

export * from './connector.ts';
export { ConnectorError, executionStatusOf } from './errors.ts';
export { PostgresConnector } from './postgres.ts';
export { MysqlConnector } from './mysql.ts';
export { ClickhouseConnector } from './clickhouse.ts';
export { TrinoConnector } from './trino.ts';
export type { AgentRef } from './agent.ts';
export { SnowflakeConnector } from './snowflake.ts';
export { BigqueryConnector } from './bigquery.ts';
export { DatabricksConnector } from './databricks.ts';
export { AthenaConnector } from './athena.ts';
export { closeInBackground, remoteSource } from './postgres-source.ts';

export type DatasourceRow = typeof datasources.$inferSelect;

/** The datasource fields a connector is built from. */
export type DatasourceConfig = Pick<
  DatasourceRow,
  | 'name'
  | 'database_type'
  | 'connection_mode'
  | 'is_sample'
  | 'enabled'
  | 'host'
  | 'port'
  | 'username'
  | 'password_encrypted'
  | 'database'
  | 'require_ssl'
  | 'verify_ssl'
  | 'default_schema_name'
> &
  Partial<
    Pick<
      DatasourceRow,
      | 'organization_id'
      | 'ssh_tunnel_host'
      | 'ssh_tunnel_port'
      | 'ssh_tunnel_user'
      | 'snowflake_identifier'
      | 'snowflake_region'
      | 'snowflake_warehouse'
      | 'bigquery_service_key_encrypted'
      | 'databricks_http_path'
      | 'databricks_auth_mode'
      | 'databricks_auth_expires_at'
      | 'athena_region'
      | 'athena_workgroup'
      | 'athena_s3_output_location'
    >
  >;

export interface ConnectorEnv {
  /** Unseals datasource passwords (env.SECRET_KEY). */
  secretKey: string;
  /** The sample database (env.SAMPLE_DB), for the sample datasource only: never Cairn's own database (D32). */
  sampleDb?: SampleDatabase;
  /** How connections are closed after an operation (a request: `(close) => ctx.waitUntil(close())`). */
  closer?: Closer;
  /** Where datasources may connect (never Cairn's own database; private networks per the operator): engine/target-policy.ts. */
  policy: TargetPolicy;
  /** The agents' Durable Objects (env.AGENT_HUB), for datasources with connection_mode agent. */
  agentHub?: AgentHubNamespace;
  /** The organization's SSH private key (OpenSSH block), for ssh_tunnel datasources: engine/ssh-key.ts. */
  sshKey?: (organizationId: string) => Promise<string>;
}

const POSTGRES_FAMILY: Record<string, PgFamily> = { postgres: 'postgres', redshift: 'redshift', cratedb: 'cratedb' };
const MYSQL_FAMILY = new Set(['mysql', 'mariadb']);
/** Drivers over HTTP (fetch): ClickHouse's HTTP interface, the Trino/Presto client protocol, Databricks' statement API. */
const HTTP_TYPES = new Set(['clickhouse', 'trino', 'presto', 'databricks']);
/** Cloud APIs with a fixed address per account (no host of the datasource): Snowflake, BigQuery, Athena. */
const CLOUD_TYPES = new Set(['snowflake', 'bigquery', 'athena']);
/** MongoDB speaks neither SQL nor HTTP: the way round, named in the 422 (D52). */
const MONGODB_WAY_ROUND =
  'MongoDB has no SQL interface that Cairn can reach (Atlas SQL speaks the MongoDB wire protocol through JDBC/ODBC drivers, not SQL over HTTP): ' +
  'put an SQL layer in front of it and add that as the datasource instead — the MongoDB BI Connector (BI Connector for Atlas, or mongosqld ' +
  'for a self-managed server) speaks the MySQL protocol: add a "mysql" datasource with its host and port; or query it through Trino\'s ' +
  'MongoDB connector as a "trino" datasource.';
const DEFAULT_PORTS: Record<string, number> = {
  postgres: 5432,
  redshift: 5439,
  cratedb: 5432,
  mysql: 3306,
  mariadb: 3306,
  trino: 8080,
  presto: 8080,
  databricks: 443,
};

/** The port when the datasource names none (ClickHouse: 8443 over HTTPS, else 8123). */
function defaultPort(ds: DatasourceConfig): number {
  if (ds.database_type === 'clickhouse') return ds.require_ssl ? 8443 : 8123;
  return DEFAULT_PORTS[ds.database_type]!;
}

/** The database types that run directly today (the list lives in @cairn/core, which the app's form reads too). */
const DIRECT_TYPES = RUNNABLE_DATABASE_TYPES;

/**
 * The connector for a datasource: direct, through an SSH tunnel (D51) or through an agent (D50). A
 * disabled datasource, a mode the type cannot use, or a type without a driver is an `invalid_state`
 * (422) naming what is missing.
 */
export async function connectorFor(ds: DatasourceConfig & { agents?: AgentRef[] }, env: ConnectorEnv): Promise<Connector> {
  if (!ds.enabled) throw new ApiError('invalid_state', `Datasource "${ds.name}" is disabled.`);
  if (ds.connection_mode === 'agent' && !ds.is_sample) return agentConnector(ds, env);
  if (ds.is_sample) {
    if (!env.sampleDb) {
      throw new ApiError('invalid_state', 'The sample database is not configured on this server (the SAMPLE_DB binding is missing).');
    }
    return new PostgresConnector(sampleSource(env.sampleDb, env.closer));
  }
  const family = POSTGRES_FAMILY[ds.database_type];
  const isMysql = MYSQL_FAMILY.has(ds.database_type);
  const isHttp = HTTP_TYPES.has(ds.database_type);
  const isCloud = CLOUD_TYPES.has(ds.database_type);
  if (ds.database_type === 'mongodb' || ds.database_type === 'mongodbatlas') {
    throw new ApiError('invalid_state', `Datasources of type "${ds.database_type}" cannot run queries: ${MONGODB_WAY_ROUND}`, {
      source: { pointer: '/data/attributes/database_type' },
      meta: { way_round: 'mongodb_bi_connector' },
    });
  }
  if (!family && !isMysql && !isHttp && !isCloud) {
    throw new ApiError(
      'invalid_state',
      `Datasources of type "${ds.database_type}" cannot run queries yet: there is no driver for it. ` + `Types that run directly: ${DIRECT_TYPES.join(', ')}.`,
      { source: { pointer: '/data/attributes/database_type' } },
    );
  }
  if (!connectionModeRuns(ds.connection_mode, ds.database_type)) {
    throw new ApiError(
      'invalid_state',
      ds.connection_mode === 'ssh_tunnel'
        ? `Datasource "${ds.name}" is a ${ds.database_type} datasource behind an SSH tunnel, which cannot run queries yet: ` +
            `SSH tunnels run ${TUNNEL_DATABASE_TYPES.join(', ')} datasources only.`
        : `Datasource "${ds.name}" has connection mode "${ds.connection_mode}", which cannot run queries.`,
      { source: { pointer: '/data/attributes/connection_mode' } },
    );
  }
  const cloud = {
    snowflakeIdentifier: ds.snowflake_identifier ?? null,
    snowflakeRegion: ds.snowflake_region ?? null,
    snowflakeWarehouse: ds.snowflake_warehouse ?? null,
    bigqueryServiceKey: ds.bigquery_service_key_encrypted ? await decryptSecret(ds.bigquery_service_key_encrypted, env.secretKey) : null,
    databricksHttpPath: ds.databricks_http_path ?? null,
    databricksAuthMode: ds.databricks_auth_mode ?? null,
    databricksAuthExpiresAt: ds.databricks_auth_expires_at ?? null,
    athenaRegion: ds.athena_region ?? null,
    athenaWorkgroup: ds.athena_workgroup ?? null,
    athenaOutputLocation: ds.athena_s3_output_location ?? null,
  };
  if (isCloud) {
    // The address is the vendor's (the account's name under snowflakecomputing.com, Google's and AWS's
    // endpoints): public by construction, so the private-network rule has nothing to check.
    const settings: ConnectionSettings = {
      host: '',
      port: 443,
      user: ds.username ?? '',
      requireSsl: true,
      verifySsl: true,
      database: ds.database ?? undefined,
      password: ds.password_encrypted ? await decryptSecret(ds.password_encrypted, env.secretKey) : undefined,
      defaultSchema: ds.default_schema_name,
      cloud,
    };
    if (ds.database_type === 'snowflake') return new SnowflakeConnector(settings);
    if (ds.database_type === 'bigquery') return new BigqueryConnector(settings);
    return new AthenaConnector(settings);
  }
  if (!ds.host) throw new ApiError('invalid_state', `Datasource "${ds.name}" has no host.`, { source: { pointer: '/data/attributes/host' } });
  const tunnel = ds.connection_mode === 'ssh_tunnel' ? await tunnelFor(ds, env) : undefined;
  // Under BLOCK_PRIVATE_NETWORKS the connection goes to the address that was checked (not the name
  // again). Through a tunnel the host is in the SSH server's network: the SSH server was checked instead.
  const address = tunnel ? ds.host : await dialAddress(env.policy, ds.host);
  const settings: ConnectionSettings = {
    host: ds.host,
    ...(address !== ds.host ? { address } : {}),
    ...(tunnel ? { tunnel, via: `the SSH server ${ds.ssh_tunnel_host}:${ds.ssh_tunnel_port ?? 22}` } : {}),
    port: ds.port ?? defaultPort(ds),
    user: ds.username ?? '',
    password: ds.password_encrypted ? await decryptSecret(ds.password_encrypted, env.secretKey) : undefined,
    database: ds.database ?? undefined,
    requireSsl: ds.require_ssl,
    verifySsl: ds.verify_ssl,
    defaultSchema: ds.default_schema_name,
    cloud,
  };
  // HTTP connectors (fetch) connect by name: the network rule is applied to the name's addresses before
  // each operation (a name server that changes its answer between this check and fetch's own lookup is
  // not covered for them; the socket connectors dial the checked address).
  const host = ds.host;
  const checkName = async () => {
    await dialAddress(env.policy, host);
  };
  if (ds.database_type === 'clickhouse') return new ClickhouseConnector(settings, checkName);
  if (ds.database_type === 'databricks') return new DatabricksConnector(settings, checkName);
  if (ds.database_type === 'trino' || ds.database_type === 'presto') {
    return new TrinoConnector(ds.database_type, settings, checkName);
  }
  // Before each operation (Postgres family): not Cairn's own database, whatever the address says.
  return family
    ? new PostgresConnector(remoteSource(family, settings, env.closer, (sql) => checkTarget(env.policy, (text) => sql.unsafe(text))))
    : new MysqlConnector(settings, env.closer);
}

/**
 * A datasource behind an agent: the agent connects from inside the customer's network, so the host is
 * as the agent sees it (private addresses are expected; the network rule applies to direct connections).
 */
async function agentConnector(ds: DatasourceConfig & { agents?: AgentRef[] }, env: ConnectorEnv): Promise<Connector> {
  if (!(AGENT_DATABASE_TYPES as readonly string[]).includes(ds.database_type)) {
    throw new ApiError(
      'invalid_state',
      `Datasources of type "${ds.database_type}" cannot run through an agent: the agent has no driver for it. Types an agent runs: ${AGENT_DATABASE_TYPES.join(', ')}.`,
      { source: { pointer: '/data/attributes/database_type' } },
    );
  }
  if (!ds.host) throw new ApiError('invalid_state', `Datasource "${ds.name}" has no host.`, { source: { pointer: '/data/attributes/host' } });
  return new AgentConnector(env.agentHub, ds.agents ?? [], {
    database_type: ds.database_type,
    host: ds.host,
    port: ds.port ?? null,
    user: ds.username ?? '',
    ...(ds.password_encrypted ? { password: await decryptSecret(ds.password_encrypted, env.secretKey) } : {}),
    ...(ds.database ? { database: ds.database } : {}),
    require_ssl: ds.require_ssl,
    verify_ssl: ds.verify_ssl,
    default_schema: ds.default_schema_name,
  });
}

/**
 * How an ssh_tunnel datasource's connections are opened: through ssh_tunnel_host:port (checked like a
 * direct host) as ssh_tunnel_user with the organization's key, to host:port. The key is read (and made,
 * the first time) only when a connection is opened.
 */
async function tunnelFor(ds: DatasourceConfig, env: ConnectorEnv): Promise<() => Promise<TunnelStream>> {
  const pointer = (name: string) => ({ source: { pointer: `/data/attributes/${name}` } });
  if (!ds.ssh_tunnel_host) throw new ApiError('invalid_state', `Datasource "${ds.name}" has no ssh_tunnel_host.`, pointer('ssh_tunnel_host'));
  if (!ds.ssh_tunnel_user) throw new ApiError('invalid_state', `Datasource "${ds.name}" has no ssh_tunnel_user.`, pointer('ssh_tunnel_user'));
  const sshAddress = await dialAddress(env.policy, ds.ssh_tunnel_host);
  const settings: TunnelSettings = {
    host: ds.ssh_tunnel_host,
    ...(sshAddress !== ds.ssh_tunnel_host ? { address: sshAddress } : {}),
    port: ds.ssh_tunnel_port ?? 22,
    user: ds.ssh_tunnel_user,
    privateKey: async () => {
      if (!env.sshKey)
        throw new ConnectorError('connection_error', "SSH tunnels cannot be opened from this part of Cairn (no access to the organization's SSH key).");
      if (!ds.organization_id) throw new ConnectorError('connection_error', "SSH tunnels need the datasource's organization (its SSH key).");
      return env.sshKey(ds.organization_id);
    },
  };
  const dest = { host: ds.host!, port: ds.port ?? defaultPort(ds) };
  return async () => {
    // TLS is not negotiated inside the channel (postgres.js's TLS needs a real socket): D51.
    if (ds.require_ssl) {
      throw new ConnectorError(
        'connection_error',
        `Datasource "${ds.name}" requires SSL, which is not available through an SSH tunnel ` +
          '(the tunnel encrypts the connection up to the SSH server): turn require_ssl off, or connect directly.',
      );
    }
    return openTunnel(settings, dest);
  };
}
