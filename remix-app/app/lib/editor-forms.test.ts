import { describe, expect, it } from 'vitest';
import {
  attributesFor,
  errorsByField,
  formFromAttributes,
  newReportForm,
  REPORT_FIELDS,
  REPORT_SWITCHES,
  reportBody,
  snippetBody,
  SNIPPET_FIELDS,
  toAttribute,
  unplacedErrors,
} from './editor-forms';

/** A report as the API answers it: every switch present. */
const stored = (attrs: Record<string, unknown>) => ({ ...Object.fromEntries(REPORT_SWITCHES.map((s) => [s.name, s.default])), ...attrs });
import { datasourceBody, datasourceFields, newDatasourceForm } from './editor-datasources';
import { filterBody, filterForm, newFilterForm, parseManualOptions, valueTypesFor } from './editor-filters';

describe('form values → attributes', () => {
  it('converts each kind of field', () => {
    expect(toAttribute({ name: 'd', kind: 'text', nullable: true }, '  ')).toBeNull();
    expect(toAttribute({ name: 'n', kind: 'text' }, '')).toBe('');
    expect(toAttribute({ name: 'r', kind: 'number', nullable: true }, '')).toBeNull();
    expect(toAttribute({ name: 'r', kind: 'number' }, ' 15 ')).toBe(15);
    expect(toAttribute({ name: 'r', kind: 'number' }, 'soon')).toBe('soon');
    expect(toAttribute({ name: 'b', kind: 'boolean' }, 'on')).toBe(true);
    expect(toAttribute({ name: 'b', kind: 'boolean' }, false)).toBe(false);
    expect(toAttribute({ name: 'l', kind: 'list', nullable: true }, 'a, b\nc\n')).toEqual(['a', 'b', 'c']);
    expect(toAttribute({ name: 'l', kind: 'list', nullable: true }, ' \n')).toBeNull();
    expect(toAttribute({ name: 'p', kind: 'secret' }, '')).toBeUndefined();
    expect(toAttribute({ name: 'p', kind: 'secret' }, 's3cret')).toBe('s3cret');
  });

  it('sends on update only what changed', () => {
    const original = stored({ name: 'Orders', description: null, sql_query: 'select 1', data_refresh_rate: null, refresh_enabled: true });
    const form = { ...formFromAttributes(REPORT_FIELDS, original), description: '', data_refresh_rate: '15', refresh_enabled: false };
    expect(attributesFor(REPORT_FIELDS, form, 'update', original)).toEqual({ data_refresh_rate: 15, refresh_enabled: false });
  });
});

describe('report bodies', () => {
  it('creates with the relationships, every switch and the chart configuration', () => {
    const form = { ...newReportForm(), name: 'Revenue', sql_query: 'select 1', chart_configuration: { type: 'bar', x: 'country' } };
    const body = reportBody(form, { mode: 'create', dashboardId: 'dsh_1', datasourceId: 'dsr_1' });
    expect(body.data.type).toBe('reports');
    expect(body.data.relationships).toEqual({
      dashboard: { data: { type: 'dashboards', id: 'dsh_1' } },
      datasource: { data: { type: 'datasources', id: 'dsr_1' } },
    });
    expect(body.data.attributes).toMatchObject({
      name: 'Revenue',
      sql_query: 'select 1',
      chart_configuration: { type: 'bar', x: 'country' },
      display_name_as_title: true,
      unlimited_csv_export_enabled: false,
      default_page_width: 800,
      default_page_height: 600,
    });
    // Empty optional texts are left to the API's defaults.
    expect(body.data.attributes).not.toHaveProperty('description');
    expect(body.data.attributes).not.toHaveProperty('data_refresh_rate');
  });

  it('updates only changed attributes and the datasource when another was picked', () => {
    const original = stored({ name: 'A', sql_query: 'select 1', chart_configuration: { type: 'table' }, no_data_message: null });
    const form = { ...formFromAttributes(REPORT_FIELDS, original), chart_configuration: { type: 'pie' }, no_data_message: 'Nothing' };
    const same = reportBody(form, { mode: 'update', id: 'rep_1', datasourceId: 'dsr_1', originalDatasourceId: 'dsr_1', original });
    expect(same.data).toEqual({ type: 'reports', id: 'rep_1', attributes: { chart_configuration: { type: 'pie' }, no_data_message: 'Nothing' } });
    const moved = reportBody(form, { mode: 'update', id: 'rep_1', datasourceId: 'dsr_2', originalDatasourceId: 'dsr_1', original });
    expect(moved.data.relationships).toEqual({ datasource: { data: { type: 'datasources', id: 'dsr_2' } } });
  });
});

describe('snippet bodies', () => {
  it('creates with params and an optional datasource; updates name changes only', () => {
    const created = snippetBody({ name: 'large_order', description: '', text: 'o.total >= {{min}}', params: 'min', datasource: 'dsr_1' }, { mode: 'create' });
    expect(created.data).toEqual({
      type: 'sql_snippets',
      attributes: { name: 'large_order', text: 'o.total >= {{min}}', params: ['min'] },
      relationships: { datasource: { data: { type: 'datasources', id: 'dsr_1' } } },
    });
    const original = { name: 'large_order', description: null, text: 'x', params: ['min'] };
    const form = { ...formFromAttributes(SNIPPET_FIELDS, original), name: 'big_order', datasource: '' };
    expect(snippetBody(form, { mode: 'update', id: 'snp_1', original, originalDatasourceId: null }).data).toEqual({
      type: 'sql_snippets',
      id: 'snp_1',
      attributes: { name: 'big_order' },
    });
    // Clearing the datasource is sent as null.
    expect(snippetBody(form, { mode: 'update', id: 'snp_1', original, originalDatasourceId: 'dsr_1' }).data.relationships).toEqual({
      datasource: { data: null },
    });
  });
});

describe('datasource forms', () => {
  it('shows only the fields of the chosen type and mode', () => {
    const names = (t: Parameters<typeof datasourceFields>[0], m: Parameters<typeof datasourceFields>[1] = 'direct') =>
      datasourceFields(t, m).map((f) => f.name);
    expect(names('postgres')).toEqual(expect.arrayContaining(['host', 'port', 'database', 'username', 'password', 'require_ssl', 'verify_ssl']));
    expect(names('postgres')).not.toContain('ssh_tunnel_host');
    expect(names('postgres', 'ssh_tunnel')).toEqual(expect.arrayContaining(['ssh_tunnel_host', 'ssh_tunnel_port', 'ssh_tunnel_user']));
    expect(names('bigquery')).not.toContain('host');
    expect(names('bigquery')).toEqual(expect.arrayContaining(['bigquery_service_key', 'bigquery_public_project_ids']));
    expect(names('athena')).toEqual(expect.arrayContaining(['athena_s3_output_location', 'athena_region', 'athena_workgroup']));
    expect(names('athena')).not.toContain('port');
    expect(names('mongodbatlas')).toContain('host');
    expect(names('mongodbatlas')).not.toContain('port');
    expect(names('snowflake')).toEqual(expect.arrayContaining(['snowflake_identifier', 'snowflake_warehouse']));
    expect(datasourceFields('databricks', 'direct', 'oauth_m2m').map((f) => f.name)).toEqual(
      expect.arrayContaining(['databricks_auth_expires_at', 'username']),
    );
    expect(datasourceFields('databricks', 'direct', 'pat').map((f) => f.name)).not.toContain('username');
  });

  it('creates a Postgres datasource without empty fields and without other types’ attributes', () => {
    const form = {
      ...newDatasourceForm('postgres'),
      name: 'Local',
      host: '127.0.0.1',
      port: '5432',
      database: 'shop',
      username: 'postgres',
      password: 'pw',
      athena_region: 'us-east-1',
    };
    const body = datasourceBody(form, { mode: 'create' });
    expect(body.data.attributes).toMatchObject({
      name: 'Local',
      database_type: 'postgres',
      connection_mode: 'direct',
      host: '127.0.0.1',
      port: 5432,
      password: 'pw',
      require_ssl: false,
      max_concurrent_executions: 20,
    });
    expect(body.data.attributes).not.toHaveProperty('athena_region');
    expect(body.data.attributes).not.toHaveProperty('ssh_tunnel_host');
    expect(body.data.relationships).toBeUndefined();
  });

  it('keeps the stored password unless a new one is typed or removal is asked for', () => {
    const original = {
      name: 'Local',
      connection_mode: 'direct',
      host: 'h',
      port: 5432,
      database: 'd',
      username: 'u',
      password_set: true,
      data_time_zone: 'UTC',
      max_concurrent_executions: 20,
      require_ssl: false,
      verify_ssl: false,
      enabled: true,
      update_schema_nightly: true,
      update_schema_row_counts: true,
      included_databases: null,
      included_schemas: null,
      default_schema_name: null,
    };
    const form = { ...newDatasourceForm('postgres'), ...original, port: '5433', max_concurrent_executions: '20', password: '' };
    const body = datasourceBody(form, { mode: 'update', id: 'dsr_1', original, originalAgents: [] });
    expect(body.data.attributes).toEqual({ port: 5433 });
    const removed = datasourceBody({ ...form, remove_password: true }, { mode: 'update', id: 'dsr_1', original, originalAgents: [] });
    expect(removed.data.attributes.password).toBeNull();
  });

  it('sends agents for agent mode and a UTC expiry for Databricks OAuth', () => {
    const form = {
      ...newDatasourceForm('databricks'),
      name: 'DBX',
      connection_mode: 'agent',
      agents: ['agt_1'],
      databricks_auth_mode: 'oauth_m2m',
      databricks_auth_expires_at: '2027-01-31T12:00',
      host: 'h',
      databricks_http_path: '/sql/1.0/x',
      password: 's',
      username: 'c',
    };
    const body = datasourceBody(form, { mode: 'create' });
    expect(body.data.relationships).toEqual({ agents: { data: [{ type: 'datasource_agents', id: 'agt_1' }] } });
    expect(body.data.attributes.databricks_auth_expires_at).toBe('2027-01-31T12:00:00Z');
  });
});

describe('filter forms', () => {
  it('offers the value types each control takes', () => {
    expect(valueTypesFor('checkbox')).toEqual(['BOOLEAN']);
    expect(valueTypesFor('date_range')).toEqual(['DATE']);
    expect(valueTypesFor('input')).not.toContain('BOOLEAN');
    expect(valueTypesFor('dropdown_manual')).toContain('BOOLEAN');
  });

  it('creates a manual dropdown on the dashboard with its options and defaults', () => {
    const form = {
      ...newFilterForm(),
      variable_name: 'country',
      display_name: 'Country',
      control_type: 'dropdown_multi_manual',
      options_text: 'DE = Germany\nFR = France\nIT',
      default_values_text: 'DE',
    };
    const body = filterBody(form, { mode: 'create', dashboardId: 'dsh_1' });
    expect(body.data.attributes).toMatchObject({
      variable_name: 'country',
      display_name: 'Country',
      control_type: 'dropdown_multi_manual',
      value_type: 'TEXT',
      values: ['DE', 'FR', 'IT'],
      value_names: ['Germany', 'France', 'IT'],
      default_values: ['DE'],
      dropdown_validate: false,
    });
    // Attributes of other controls are not sent.
    expect(body.data.attributes).not.toHaveProperty('relative_range_enabled');
    expect(body.data.attributes).not.toHaveProperty('sql_query');
    expect(body.data.relationships).toEqual({ dashboards: { data: [{ type: 'dashboards', id: 'dsh_1' }] } });
  });

  it('creates a dynamic dropdown with its query, datasource and parent', () => {
    const form = {
      ...newFilterForm(),
      variable_name: 'city',
      control_type: 'dropdown_dynamic',
      sql_query: 'select city from c where {country=country}',
      datasource: 'dsr_1',
      parent_filter: 'flt_9',
    };
    const body = filterBody(form, { mode: 'create', dashboardId: 'dsh_1' });
    expect(body.data.attributes.sql_query).toBe('select city from c where {country=country}');
    expect(body.data.relationships).toMatchObject({
      datasource: { data: { type: 'datasources', id: 'dsr_1' } },
      parent_filter: { data: { type: 'filters', id: 'flt_9' } },
    });
  });

  it('updates a range filter: only changed switches and aggregations', () => {
    const attributes = {
      variable_name: 'order_date',
      control_type: 'date_range',
      value_type: 'DATE',
      required: false,
      relative_range_enabled: true,
      before_range_enabled: true,
      after_range_enabled: true,
      from_to_range_enabled: true,
      allowed_aggregations: null,
      default_values: null,
      display_name: null,
    };
    const form = { ...filterForm(attributes, { datasource: null, parent: null }, null), before_range_enabled: false, allowed_aggregations: ['day', 'month'] };
    const body = filterBody(form, { mode: 'update', id: 'flt_1', original: attributes, originalDatasource: null, originalParent: null, originalOptions: '' });
    expect(body.data).toEqual({ type: 'filters', id: 'flt_1', attributes: { before_range_enabled: false, allowed_aggregations: ['day', 'month'] } });
  });

  it('reads option lines with and without labels', () => {
    expect(parseManualOptions('1 = One\n\n2\n 3= Three ')).toEqual({ values: ['1', '2', '3'], value_names: ['One', '2', 'Three'] });
  });
});

describe('API errors → fields', () => {
  it('places pointers on fields and keeps the rest for the form', () => {
    const byField = errorsByField([
      { code: 'missing_attribute', detail: 'name is required.', source: { pointer: '/data/attributes/name' } },
      { code: 'invalid_attribute', detail: 'Bad value.', source: { pointer: '/data/attributes/values/2' } },
      { code: 'invalid_relationship', detail: 'No such datasource.', source: { pointer: '/data/relationships/datasource/data' } },
      { code: 'invalid_attribute', detail: 'Tile 3 overlaps.', source: { pointer: '/layout/3' } },
      { code: 'invalid_state', detail: 'Dashboard is locked.' },
      { code: 'unknown_attribute', title: 'Unknown', source: { pointer: '/data/attributes/color' } },
    ]);
    expect(byField).toEqual({
      name: ['name is required.'],
      values: ['Bad value.'],
      datasource: ['No such datasource.'],
      layout: ['Tile 3 overlaps.'],
      _form: ['Dashboard is locked.'],
      color: ['Unknown'],
    });
    expect(unplacedErrors(byField, ['name', 'values', 'datasource', 'layout'])).toEqual(['Dashboard is locked.', 'color: Unknown']);
  });
});
