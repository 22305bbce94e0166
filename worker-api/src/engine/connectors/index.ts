import { ApiError, RUNNABLE_DATABASE_TYPES, connectionModeRuns, decryptSecret } from '@cairn/core';
import type { datasources } from '@cairn/db';
import type { ResultChunk, ResultSummary } from '../result.ts';
import type { ConnectionSettings, Connector, RunOptions } from './connector.ts';
import { MysqlConnector } from './mysql.ts';
import { PostgresConnector } from './postgres.ts';
import { checkTarget, literalRefusal, refusedNetwork, type TargetPolicy } from './target-guard.ts';
import { remoteSource, sampleSource, type Closer, type PgFamily, type SampleDatabase } from './postgres-source.ts';

export * from './connector.ts';
export { ConnectorError, executionStatusOf, type FailureKind } from './errors.ts';
export { PostgresConnector } from './postgres.ts';
export { MysqlConnector } from './mysql.ts';
export { closeInBackground, remoteSource, sampleSource, type PgSource, type Closer, type SampleDatabase } from './postgres-source.ts';

export type DatasourceRow = typeof datasources.$inferSelect;

/** The datasource fields a connector is built from. */
export type DatasourceConfig = Pick<
  DatasourceRow,
  | 'name' | 'database_type' | 'connection_mode' | 'is_sample' | 'enabled' | 'host' | 'port' | 'username'
  | 'password_encrypted' | 'database' | 'require_ssl' | 'verify_ssl' | 'default_schema_name'
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
}

const POSTGRES_FAMILY: Record<string, PgFamily> = { postgres: 'postgres', redshift: 'redshift', cratedb: 'cratedb' };
const MYSQL_FAMILY = new Set(['mysql', 'mariadb']);
const DEFAULT_PORTS: Record<string, number> = { postgres: 5432, redshift: 5439, cratedb: 5432, mysql: 3306, mariadb: 3306 };

/** The database types that run directly today (the list lives in @cairn/core, which the app's form reads too). */
export const DIRECT_TYPES = RUNNABLE_DATABASE_TYPES;

/**
 * The connector for a datasource. A disabled datasource, a connection mode other than direct, or a
 * database type without a driver is an `invalid_state` (422) naming what is missing.
 */
export async function connectorFor(ds: DatasourceConfig, env: ConnectorEnv): Promise<Connector> {
  if (!ds.enabled) throw new ApiError('invalid_state', `Datasource "${ds.name}" is disabled.`);
  if (ds.is_sample) {
    if (!env.sampleDb) {
      throw new ApiError('invalid_state', 'The sample database is not configured on this server (the SAMPLE_DB binding is missing).');
    }
    return new PostgresConnector(sampleSource(env.sampleDb, env.closer));
  }
  const family = POSTGRES_FAMILY[ds.database_type];
  const isMysql = MYSQL_FAMILY.has(ds.database_type);
  if (!family && !isMysql) {
    throw new ApiError(
      'invalid_state',
      `Datasources of type "${ds.database_type}" cannot run queries yet: there is no driver for it. ` +
        `Types that run directly: ${DIRECT_TYPES.join(', ')}.`,
      { source: { pointer: '/data/attributes/database_type' } },
    );
  }
  if (!connectionModeRuns(ds.connection_mode)) {
    throw new ApiError(
      'invalid_state',
      `Datasource "${ds.name}" connects through ${ds.connection_mode === 'ssh_tunnel' ? 'an SSH tunnel' : 'an agent'}, ` +
        'which cannot run queries yet; only direct connections do.',
      { source: { pointer: '/data/attributes/connection_mode' } },
    );
  }
  if (!ds.host) throw new ApiError('invalid_state', `Datasource "${ds.name}" has no host.`, { source: { pointer: '/data/attributes/host' } });
  const refused = env.policy.blockPrivate ? literalRefusal(ds.host) : null;
  if (refused) throw refusedNetwork(refused);
  const settings: ConnectionSettings = {
    host: ds.host,
    port: ds.port ?? DEFAULT_PORTS[ds.database_type]!,
    user: ds.username ?? '',
    password: ds.password_encrypted ? await decryptSecret(ds.password_encrypted, env.secretKey) : undefined,
    database: ds.database ?? undefined,
    requireSsl: ds.require_ssl,
    verifySsl: ds.verify_ssl,
    defaultSchema: ds.default_schema_name,
  };
  // Before each operation: the network rule after resolving the name, and (Postgres family) not Cairn's own database.
  const host = ds.host;
  return family
    ? new PostgresConnector(remoteSource(family, settings, env.closer, (sql) => checkTarget(env.policy, host, (text) => sql.unsafe(text))))
    : new MysqlConnector(settings, env.closer, () => checkTarget(env.policy, host));
}

/** A whole result held in memory: the shape `engine/execute.ts` stores today. */
export interface CollectedResult extends ResultSummary {
  chunks: { rows: number; data: string }[];
  fields: ResultSummary['fields'];
}

/** Runs a query and keeps its chunks (for callers that store the result after the run). */
export async function collect(connector: Connector, text: string, values: unknown[], opts: RunOptions = {}): Promise<CollectedResult> {
  const chunks: ResultChunk[] = [];
  const summary = await connector.run({ text, values }, { chunk: (c) => void chunks.push(c) }, opts);
  const decoder = new TextDecoder();
  return { ...summary, chunks: chunks.map((c) => ({ rows: c.rows, data: decoder.decode(c.data) })) };
}
