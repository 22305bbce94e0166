import type { datasources } from '@cairn/db';
import { resource, toMany } from '../../lib/jsonapi.ts';

export type DatasourceRow = typeof datasources.$inferSelect;

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/**
 * A datasource resource. The password and the BigQuery key are never serialized; with
 * `credentials` (Manage Datasources) the username, the SSH user and whether a password or key is
 * stored are shown, otherwise those attributes are left out.
 */
export function serializeDatasource(baseUrl: string, d: DatasourceRow, agentIds: string[], credentials: boolean) {
  return resource(
    baseUrl,
    'datasources',
    d.id,
    {
      name: d.name,
      database_type: d.database_type,
      connection_mode: d.connection_mode,
      is_sample: d.is_sample,
      host: d.host,
      port: d.port,
      ...(credentials ? { username: d.username, password_set: d.password_encrypted !== null } : {}),
      database: d.database,
      ssh_tunnel_host: d.ssh_tunnel_host,
      ssh_tunnel_port: d.ssh_tunnel_port,
      ...(credentials ? { ssh_tunnel_user: d.ssh_tunnel_user } : {}),
      data_time_zone: d.data_time_zone,
      require_ssl: d.require_ssl,
      verify_ssl: d.verify_ssl,
      enabled: d.enabled,
      schema_updated_at: iso(d.schema_updated_at),
      total_row_count: d.total_row_count,
      total_row_count_exact: d.total_row_count_exact,
      default_schema_name: d.default_schema_name,
      max_concurrent_executions: d.max_concurrent_executions,
      server_version: d.server_version,
      update_schema_nightly: d.update_schema_nightly,
      update_schema_row_counts: d.update_schema_row_counts,
      included_databases: d.included_databases,
      included_schemas: d.included_schemas,
      athena_s3_output_location: d.athena_s3_output_location,
      athena_region: d.athena_region,
      athena_workgroup: d.athena_workgroup,
      databricks_http_path: d.databricks_http_path,
      databricks_auth_mode: d.databricks_auth_mode,
      databricks_auth_expires_at: iso(d.databricks_auth_expires_at),
      snowflake_identifier: d.snowflake_identifier,
      snowflake_region: d.snowflake_region,
      snowflake_warehouse: d.snowflake_warehouse,
      ...(credentials ? { bigquery_service_key_set: d.bigquery_service_key_encrypted !== null } : {}),
      bigquery_public_project_ids: d.bigquery_public_project_ids,
      created_at: d.created_at.toISOString(),
      updated_at: d.updated_at.toISOString(),
    },
    { agents: toMany('datasource_agents', agentIds) },
  );
}
