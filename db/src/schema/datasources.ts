import { bigint, boolean, index, integer, jsonb, pgTable, primaryKey, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt, orgId, ts, updatedAt } from './common.ts';
import { organizations } from './organizations.ts';

export const DATABASE_TYPES = [
  'postgres',
  'redshift',
  'mysql',
  'mariadb',
  'oracle',
  'mssql',
  'bigquery',
  'athena',
  'presto',
  'trino',
  'snowflake',
  'vertica',
  'mongodb',
  'mongodbatlas',
  'databricks',
  'clickhouse',
] as const;
export type DatabaseType = (typeof DATABASE_TYPES)[number];

export const datasources = pgTable(
  'datasources',
  {
    id: text().primaryKey(),
    organization_id: orgId().references(() => organizations.id, { onDelete: 'cascade' }),
    name: text().notNull(),
    database_type: text().$type<DatabaseType>().notNull(),
    connection_mode: text().$type<'direct' | 'ssh_tunnel' | 'agent'>().notNull(),
    /** The built-in "Sample data" datasource: not counted against the plan, read through a restricted role. */
    is_sample: boolean().notNull().default(false),
    host: text(),
    port: integer(),
    username: text(),
    /** AES-GCM sealed with the server's secret key (it has to be read back to connect). */
    password_encrypted: text(),
    database: text(),
    ssh_tunnel_host: text(),
    ssh_tunnel_port: integer(),
    ssh_tunnel_user: text(),
    data_time_zone: text().notNull().default('UTC'),
    require_ssl: boolean().notNull().default(false),
    verify_ssl: boolean().notNull().default(false),
    enabled: boolean().notNull().default(true),
    schema_updated_at: ts(),
    total_row_count: bigint({ mode: 'number' }),
    total_row_count_exact: boolean(),
    default_schema_name: text(),
    max_concurrent_executions: integer().notNull().default(20),
    server_version: text(),
    update_schema_nightly: boolean().notNull().default(true),
    update_schema_row_counts: boolean().notNull().default(true),
    included_databases: jsonb().$type<string[]>(),
    included_schemas: jsonb().$type<string[]>(),
    athena_s3_output_location: text(),
    athena_region: text().default('us-east-1'),
    athena_workgroup: text().default('primary'),
    databricks_http_path: text(),
    databricks_auth_mode: text().$type<'pat' | 'oauth_m2m'>(),
    databricks_auth_expires_at: ts(),
    snowflake_identifier: text(),
    snowflake_region: text(),
    snowflake_warehouse: text(),
    /** Sealed like the password. */
    bigquery_service_key_encrypted: text(),
    bigquery_public_project_ids: jsonb().$type<string[]>(),
    /** Cached schema (schemas → tables → columns), refreshed by the schema refresh. */
    schema_cache: jsonb(),
    created_at: createdAt(),
    updated_at: updatedAt(),
  },
  (t) => [index('datasources_org_idx').on(t.organization_id)],
);

export const datasourceAgents = pgTable(
  'datasource_agents',
  {
    id: text().primaryKey(),
    organization_id: orgId().references(() => organizations.id, { onDelete: 'cascade' }),
    /** The public agent id the agent process presents. */
    agent_id: text().notNull(),
    name: text().notNull(),
    version: text(),
    address: text(),
    connected: boolean().notNull().default(false),
    active_queries: integer().notNull().default(0),
    enabled: boolean().notNull().default(true),
    /** SHA-256 of the secret key, which is shown once, on creation. */
    secret_hash: text().notNull(),
    created_at: createdAt(),
    updated_at: updatedAt(),
  },
  (t) => [uniqueIndex('agents_agent_id_unique').on(t.agent_id), index('agents_org_idx').on(t.organization_id)],
);

export const datasourceAgentLinks = pgTable(
  'datasource_agent_links',
  {
    organization_id: orgId().references(() => organizations.id, { onDelete: 'cascade' }),
    datasource_id: text()
      .notNull()
      .references(() => datasources.id, { onDelete: 'cascade' }),
    agent_id: text()
      .notNull()
      .references(() => datasourceAgents.id, { onDelete: 'restrict' }),
  },
  (t) => [primaryKey({ columns: [t.datasource_id, t.agent_id] })],
);
