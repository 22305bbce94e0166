import { z } from '@hono/zod-openapi';
import { DATABASE_TYPES } from '@cairn/db';
import type { ResourceBodySpec } from '../../lib/resource-body.ts';
import { resourceObjectSchema } from '../../lib/openapi.ts';
import { isTimeZone } from '@cairn/core';
import { checkServiceKey, isHost } from './validate.ts';

const CONNECTION_MODES = ['direct', 'ssh_tunnel', 'agent'] as const;
const DATABRICKS_AUTH_MODES = ['pat', 'oauth_m2m'] as const;

const text = (max: number) => z.string().trim().min(1).max(max);
const host = z.string().trim().max(253).refine(isHost, 'must be a host name or an IP address, without scheme, port, path or credentials.');
const port = z.number().int().min(1).max(65535);
const nameList = z.array(text(255)).max(1000).nullable().openapi({ description: 'Names to show in the schema browser; null shows all.' });

const attributes = z.object({
  name: text(200),
  database_type: z.enum(DATABASE_TYPES),
  connection_mode: z.enum(CONNECTION_MODES),
  host: host.nullable().openapi({ description: 'Database server (for agents: as the agent sees it). Not used by bigquery, athena and snowflake.' }),
  port: port.nullable().openapi({ description: 'Defaults per database type (postgres 5432, mysql/mariadb 3306, …); null restores the default.' }),
  username: text(255).nullable().openapi({ description: 'Credential: shown only with Manage Datasources.' }),
  password: z.string().min(1).max(4096).nullable().openapi({
    description: 'Write-only; stored encrypted. null removes it. Databricks: the personal access token or OAuth secret; Athena: the AWS secret access key.',
  }),
  database: text(255).nullable(),
  ssh_tunnel_host: host.nullable(),
  ssh_tunnel_port: port.nullable().openapi({ description: 'Default 22 when connection_mode is ssh_tunnel.' }),
  ssh_tunnel_user: text(255).nullable().openapi({ description: 'Credential: shown only with Manage Datasources.' }),
  data_time_zone: z
    .string()
    .refine(isTimeZone, 'must be an IANA time zone name such as UTC or Europe/Berlin.')
    .openapi({ example: 'Europe/Berlin', description: 'Time zone of timestamps without zone in this database. Default UTC.' }),
  require_ssl: z.boolean(),
  verify_ssl: z.boolean(),
  enabled: z.boolean(),
  default_schema_name: text(255).nullable(),
  max_concurrent_executions: z.number().int().min(1).max(100),
  update_schema_nightly: z.boolean(),
  update_schema_row_counts: z.boolean(),
  included_databases: nameList,
  included_schemas: nameList,
  athena_s3_output_location: z
    .string()
    .trim()
    .max(1024)
    .refine((s) => /^s3:\/\/[^/\s]+/.test(s), 'must start with s3:// followed by a bucket name.')
    .nullable(),
  athena_region: z.string().regex(/^[a-z]{2}(?:-[a-z]+)+-\d{1,2}$/, 'must be an AWS region such as us-east-1.'),
  athena_workgroup: text(128),
  databricks_http_path: z
    .string()
    .trim()
    .max(1024)
    .regex(/^\/\S+$/, 'must be the HTTP path of a SQL warehouse or cluster, starting with /.')
    .nullable(),
  databricks_auth_mode: z.enum(DATABRICKS_AUTH_MODES),
  databricks_auth_expires_at: z.iso
    .datetime({ offset: true })
    .nullable()
    .openapi({ description: 'Expiry of the OAuth secret; required with databricks_auth_mode oauth_m2m.' }),
  snowflake_identifier: z
    .string()
    .trim()
    .max(255)
    .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'must be a Snowflake account identifier such as myorg-myaccount.')
    .nullable(),
  snowflake_region: text(64).nullable(),
  snowflake_warehouse: text(255).nullable(),
  bigquery_service_key: z
    .union([z.string().max(20_000), z.record(z.string(), z.unknown())])
    .superRefine((v, ctx) => {
      const check = checkServiceKey(v);
      if (!check.ok) ctx.addIssue({ code: 'custom', message: check.problem! });
    })
    .nullable()
    .openapi({ description: 'Write-only: the service account key file (JSON text or object); stored encrypted.' }),
  bigquery_public_project_ids: z
    .array(
      z
        .string()
        .trim()
        .regex(/^[a-z][a-z0-9-]{4,61}[a-z0-9]$/, 'must be a Google Cloud project id.'),
    )
    .max(100)
    .nullable(),
});

/** System-set attributes: shown, never written. */
const READ_ONLY = [
  'is_sample',
  'schema_updated_at',
  'total_row_count',
  'total_row_count_exact',
  'server_version',
  'password_set',
  'bigquery_service_key_set',
  'created_at',
  'updated_at',
] as const;

export const datasourceBody = {
  type: 'datasources',
  attributes,
  required: ['name', 'database_type', 'connection_mode'],
  readOnly: READ_ONLY,
  createOnly: ['database_type'],
  relationships: { agents: { type: 'datasource_agents', many: true } },
} satisfies ResourceBodySpec<typeof attributes.shape>;

const ts = z.string().openapi({ format: 'date-time' });

export const Datasource = resourceObjectSchema(
  'Datasource',
  'datasources',
  z.object({
    name: z.string(),
    database_type: z.enum(DATABASE_TYPES),
    connection_mode: z.enum(CONNECTION_MODES),
    is_sample: z.boolean().openapi({ description: 'The built-in Sample data datasource: not counted by the plan, not editable.' }),
    host: z.string().nullable(),
    port: z.number().int().nullable(),
    username: z.string().nullable().optional().openapi({ description: 'Only with Manage Datasources.' }),
    password_set: z.boolean().optional().openapi({ description: 'Only with Manage Datasources: whether a password is stored (it is never shown).' }),
    database: z.string().nullable(),
    ssh_tunnel_host: z.string().nullable(),
    ssh_tunnel_port: z.number().int().nullable(),
    ssh_tunnel_user: z.string().nullable().optional().openapi({ description: 'Only with Manage Datasources.' }),
    data_time_zone: z.string(),
    require_ssl: z.boolean(),
    verify_ssl: z.boolean(),
    enabled: z.boolean(),
    schema_updated_at: ts.nullable(),
    total_row_count: z.number().int().nullable(),
    total_row_count_exact: z.boolean().nullable(),
    default_schema_name: z.string().nullable(),
    max_concurrent_executions: z.number().int(),
    server_version: z.string().nullable(),
    update_schema_nightly: z.boolean(),
    update_schema_row_counts: z.boolean(),
    included_databases: z.array(z.string()).nullable(),
    included_schemas: z.array(z.string()).nullable(),
    athena_s3_output_location: z.string().nullable(),
    athena_region: z.string().nullable(),
    athena_workgroup: z.string().nullable(),
    databricks_http_path: z.string().nullable(),
    databricks_auth_mode: z.enum(DATABRICKS_AUTH_MODES).nullable(),
    databricks_auth_expires_at: ts.nullable(),
    snowflake_identifier: z.string().nullable(),
    snowflake_region: z.string().nullable(),
    snowflake_warehouse: z.string().nullable(),
    bigquery_service_key_set: z
      .boolean()
      .optional()
      .openapi({ description: 'Only with Manage Datasources: whether a service key is stored (it is never shown).' }),
    bigquery_public_project_ids: z.array(z.string()).nullable(),
    created_at: ts,
    updated_at: ts,
  }),
  ['agents'],
);

export const DATASOURCE_INCLUDES = ['agents'] as const;
