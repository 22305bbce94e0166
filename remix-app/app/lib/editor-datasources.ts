/**
 * The datasource form: which fields each database type shows (following the API's per-type rules in
 * worker-api/src/resources/datasources/validate.ts; the API still checks them), their labels, and the
 * form ↔ JSON:API body mapping. Credentials are write-only: the password and the BigQuery key are
 * never shown back; an empty field keeps what is stored.
 */
import type { ApiSchema } from '@cairn/client';
import { attributesFor, toMany, type FieldSpec, type FormState, type ResourceBody } from './editor-forms.ts';

type DatasourceAttributes = ApiSchema<'Datasource'>['attributes'];
export type DatabaseType = DatasourceAttributes['database_type'];
export type ConnectionMode = DatasourceAttributes['connection_mode'];

/** Every database type of the API's vocabulary, labelled, in the order the form lists them. */
export const DATABASE_LABELS: Record<DatabaseType, string> = {
  postgres: 'PostgreSQL',
  redshift: 'Amazon Redshift',
  mysql: 'MySQL',
  mariadb: 'MariaDB',
  oracle: 'Oracle',
  mssql: 'Microsoft SQL Server',
  bigquery: 'Google BigQuery',
  athena: 'Amazon Athena',
  presto: 'Presto',
  trino: 'Trino',
  snowflake: 'Snowflake',
  vertica: 'Vertica',
  mongodb: 'MongoDB (SQL interface)',
  mongodbatlas: 'MongoDB Atlas (Atlas SQL)',
  databricks: 'Databricks SQL',
  clickhouse: 'ClickHouse',
};
export const DATABASE_TYPES = Object.keys(DATABASE_LABELS) as DatabaseType[];

/** The usual ports, shown as placeholders (the API fills them in when the port is left empty). */
export const DEFAULT_PORTS: Partial<Record<DatabaseType, number>> = {
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
  clickhouse: 8123,
  databricks: 443,
};

const NO_HOST = new Set<DatabaseType>(['bigquery', 'athena', 'snowflake']);
const NO_SSH_TUNNEL = new Set<DatabaseType>(['bigquery', 'athena', 'snowflake', 'databricks', 'mongodbatlas']);

export function connectionModes(type: DatabaseType): ConnectionMode[] {
  return NO_SSH_TUNNEL.has(type) ? ['direct', 'agent'] : ['direct', 'ssh_tunnel', 'agent'];
}

export interface DatasourceField extends FieldSpec {
  label: string;
  hint?: string;
  input: 'text' | 'number' | 'password' | 'checkbox' | 'textarea' | 'select' | 'datetime';
  options?: readonly string[];
  placeholder?: string;
  /** Shown in the "Advanced" group. */
  advanced?: boolean;
}

const f = (name: string, label: string, input: DatasourceField['input'], extra: Partial<DatasourceField> = {}): DatasourceField => ({
  name,
  label,
  input,
  kind: input === 'number' ? 'number' : input === 'checkbox' ? 'boolean' : input === 'password' ? 'secret' : 'text',
  nullable: input !== 'checkbox',
  ...extra,
});

const COMMON_ADVANCED: DatasourceField[] = [
  f('default_schema_name', 'Default schema', 'text', { advanced: true, hint: 'Used for table names written without a schema.' }),
  f('data_time_zone', 'Data time zone', 'text', {
    advanced: true,
    nullable: false,
    placeholder: 'UTC',
    hint: 'How timestamps without a zone are read (IANA name).',
  }),
  f('max_concurrent_executions', 'Concurrent queries', 'number', {
    advanced: true,
    nullable: false,
    placeholder: '20',
    hint: '1 to 100; more queries wait their turn.',
  }),
  f('included_databases', 'Included databases', 'textarea', {
    advanced: true,
    kind: 'list',
    nullable: true,
    hint: 'One per line; empty shows all in the schema browser.',
  }),
  f('included_schemas', 'Included schemas', 'textarea', { advanced: true, kind: 'list', nullable: true, hint: 'One per line; empty shows all.' }),
  f('update_schema_nightly', 'Reload the schema every night', 'checkbox', { advanced: true }),
  f('update_schema_row_counts', 'Count rows per table when loading the schema', 'checkbox', { advanced: true }),
  f('enabled', 'Enabled (a disabled datasource runs no queries)', 'checkbox', { advanced: true }),
];

/** The fields of a database type and connection mode, in form order (name and type come first, separately). */
export function datasourceFields(type: DatabaseType, mode: ConnectionMode, databricksAuth: 'pat' | 'oauth_m2m' = 'pat'): DatasourceField[] {
  const out: DatasourceField[] = [];
  if (!NO_HOST.has(type)) {
    out.push(
      f('host', type === 'databricks' ? 'Server hostname' : mode === 'agent' ? 'Host (as the agent sees it)' : 'Host', 'text', {
        placeholder: 'db.example.com',
      }),
    );
    if (type !== 'mongodbatlas') out.push(f('port', 'Port', 'number', { placeholder: String(DEFAULT_PORTS[type] ?? '') }));
  }
  switch (type) {
    case 'athena':
      out.push(
        f('athena_s3_output_location', 'S3 output location', 'text', {
          placeholder: 's3://my-athena-results/cairn/',
          hint: 'Where Athena writes query results; starts with s3://.',
        }),
        f('athena_region', 'AWS region', 'text', { nullable: false, placeholder: 'us-east-1' }),
        f('athena_workgroup', 'Workgroup', 'text', { nullable: false, placeholder: 'primary' }),
        f('username', 'AWS access key ID', 'text'),
        f('password', 'AWS secret access key', 'password'),
        f('database', 'Glue database', 'text'),
      );
      break;
    case 'databricks':
      out.push(
        f('databricks_http_path', 'HTTP path', 'text', { placeholder: '/sql/1.0/warehouses/…' }),
        f('databricks_auth_mode', 'Authentication', 'select', { options: ['pat', 'oauth_m2m'], nullable: false }),
        ...(databricksAuth === 'oauth_m2m'
          ? [
              f('username', 'OAuth client ID', 'text'),
              f('password', 'OAuth secret', 'password'),
              f('databricks_auth_expires_at', 'Secret expires at', 'datetime'),
            ]
          : [f('password', 'Personal access token', 'password')]),
        f('database', 'Catalog', 'text'),
      );
      break;
    case 'snowflake':
      out.push(
        f('snowflake_identifier', 'Account identifier', 'text', { placeholder: 'orgname-accountname' }),
        f('snowflake_region', 'Region (legacy account locators only)', 'text'),
        f('snowflake_warehouse', 'Warehouse', 'text'),
        f('username', 'User name', 'text'),
        f('password', 'Private key or access token', 'password', {
          hint: "The user's unencrypted private key (PKCS#8 PEM, key-pair authentication) or a programmatic access token.",
        }),
        f('database', 'Database', 'text'),
      );
      break;
    case 'bigquery':
      out.push(
        f('bigquery_service_key', 'Service account key (JSON)', 'textarea', {
          kind: 'secret',
          hint: 'Paste the whole key file; it is stored encrypted and never shown again.',
        }),
        f('database', 'Billing project', 'text'),
        f('bigquery_public_project_ids', 'Further projects', 'textarea', {
          kind: 'list',
          nullable: true,
          hint: 'One project id per line, e.g. bigquery-public-data.',
        }),
      );
      break;
    default:
      out.push(f('database', 'Database', 'text'), f('username', 'User name', 'text'), f('password', 'Password', 'password'));
  }
  if (!NO_HOST.has(type) && type !== 'databricks') {
    out.push(f('require_ssl', 'Require TLS', 'checkbox'), f('verify_ssl', 'Verify the server certificate', 'checkbox'));
  }
  if (mode === 'ssh_tunnel') {
    out.push(
      f('ssh_tunnel_host', 'SSH host', 'text'),
      f('ssh_tunnel_port', 'SSH port', 'number', { placeholder: '22' }),
      f('ssh_tunnel_user', 'SSH user', 'text'),
    );
  }
  return [...out, ...COMMON_ADVANCED];
}

/** Every attribute any type may have (so a type change clears fields the new type does not have). */
const BASE: FieldSpec[] = [
  { name: 'name', kind: 'text' },
  { name: 'connection_mode', kind: 'text' },
];

export function newDatasourceForm(type: DatabaseType = 'postgres'): FormState {
  return {
    name: '',
    database_type: type,
    connection_mode: 'direct',
    require_ssl: false,
    verify_ssl: false,
    enabled: true,
    update_schema_nightly: true,
    update_schema_row_counts: true,
    databricks_auth_mode: 'pat',
    data_time_zone: 'UTC',
    max_concurrent_executions: '20',
    athena_region: 'us-east-1',
    athena_workgroup: 'primary',
    agents: [],
  };
}

export function datasourceBody(
  form: FormState,
  target: { mode: 'create' } | { mode: 'update'; id: string; original: Record<string, unknown>; originalAgents: string[] },
): ResourceBody {
  const type = String(form.database_type ?? 'postgres') as DatabaseType;
  const mode = String(form.connection_mode ?? 'direct') as ConnectionMode;
  const auth = form.databricks_auth_mode === 'oauth_m2m' ? 'oauth_m2m' : 'pat';
  const specs = [...BASE, ...datasourceFields(type, mode, auth)];
  const agents = Array.isArray(form.agents) ? (form.agents as string[]) : [];
  if (target.mode === 'create') {
    const attributes = { ...attributesFor(specs, form, 'create'), database_type: type };
    normalizeDatetime(attributes);
    return {
      data: { type: 'datasources', attributes, ...(mode === 'agent' ? { relationships: { agents: toMany('datasource_agents', agents) } } : {}) },
    };
  }
  const attributes = attributesFor(specs, form, 'update', target.original);
  normalizeDatetime(attributes);
  if (form.remove_password === true) attributes.password = null;
  const agentsChanged = mode === 'agent' && JSON.stringify([...agents].sort()) !== JSON.stringify([...target.originalAgents].sort());
  return {
    data: { type: 'datasources', id: target.id, attributes, ...(agentsChanged ? { relationships: { agents: toMany('datasource_agents', agents) } } : {}) },
  };
}

/** `<input type="datetime-local">` gives no zone: the expiry is read as UTC. */
function normalizeDatetime(attributes: Record<string, unknown>) {
  const v = attributes.databricks_auth_expires_at;
  if (typeof v === 'string' && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/.test(v)) {
    attributes.databricks_auth_expires_at = `${v.length === 16 ? `${v}:00` : v}Z`;
  }
}
