import { z } from '@hono/zod-openapi';
import { ApiError, CONTROL_TYPES, VALUE_TYPES } from '@cairn/core';
import { ANCHOR_TIME, dashboardAttributes, layoutTile } from './schema.ts';

/**
 * The dashboard backup, version 1: everything needed to recreate a dashboard — its attributes and
 * layout, its reports, the filters it and its reports use (with parent filters), the SQL snippets any
 * of them use (with nested snippets), and the datasources they run on (named by id; credentials are
 * never part of a backup). Ids inside a backup only tie its parts together: a restore gives every
 * created resource a new id.
 */
export const BACKUP_FORMAT = 'cairn.dashboard-backup';
export const BACKUP_VERSION = 1;

const id = z.string().min(1).max(64);
const ids = z.array(id).max(1_000);
const sqlText = z.string().max(1_000_000);

const backupSnippet = z
  .object({
    id,
    datasource_id: id.nullable(),
    name: z.string().min(1).max(200),
    description: z.string().max(10_000).nullable(),
    text: sqlText,
    params: z.array(z.string().max(128)).max(100),
    sql_snippet_ids: ids,
  })
  .strict();

const backupFilter = z
  .object({
    id,
    datasource_id: id.nullable(),
    parent_filter_id: id.nullable(),
    display_name: z.string().max(200).nullable(),
    variable_name: z
      .string()
      .min(1)
      .max(128)
      .regex(/^[A-Za-z0-9_-]+$/, 'must hold only letters, digits, underscore and hyphen.'),
    control_type: z.enum(CONTROL_TYPES),
    value_type: z.enum(VALUE_TYPES),
    values: z.array(z.unknown()).max(100_000).nullable(),
    value_names: z.array(z.string()).max(100_000).nullable(),
    sql_query: sqlText.nullable(),
    data_refresh_rate: z.number().int().min(1).nullable(),
    default_values: z.array(z.unknown()).max(10_000).nullable(),
    required: z.boolean(),
    dropdown_validate: z.boolean(),
    dropdown_default_to_first: z.boolean(),
    relative_range_enabled: z.boolean(),
    before_range_enabled: z.boolean(),
    after_range_enabled: z.boolean(),
    from_to_range_enabled: z.boolean(),
    allowed_aggregations: z.array(z.string().max(32)).max(20).nullable(),
    sql_snippet_ids: ids,
  })
  .strict();

const backupReport = z
  .object({
    id,
    datasource_id: id,
    name: z.string().min(1).max(200),
    description: z.string().max(10_000).nullable(),
    sql_query: sqlText.min(1),
    r_query: sqlText.nullable(),
    r_query_enabled: z.boolean(),
    data_refresh_rate: z.number().int().min(1).nullable(),
    data_refresh_anchor_time: z.string().regex(ANCHOR_TIME).nullable(),
    chart_configuration: z.record(z.string(), z.unknown()),
    download_actions_enabled: z.boolean(),
    data_download_enabled: z.boolean(),
    maximize_action_enabled: z.boolean(),
    refresh_enabled: z.boolean(),
    unused_filters_warning_enabled: z.boolean(),
    unlimited_csv_export_enabled: z.boolean(),
    display_name_as_title: z.boolean(),
    default_page_width: z.number().int().min(1).max(100_000),
    default_page_height: z.number().int().min(1).max(100_000),
    attribution: z.string().max(10_000).nullable(),
    no_data_message: z.string().max(10_000).nullable(),
    filter_ids: ids,
    sql_snippet_ids: ids,
  })
  .strict();

export const dashboardBackup = z
  .object({
    format: z.literal(BACKUP_FORMAT),
    version: z.literal(BACKUP_VERSION),
    created_at: z.string().max(64),
    source: z.object({ dashboard_id: id, api_version: z.string().max(32) }).strict(),
    dashboard: z
      .object({
        ...dashboardAttributes,
        layout: z.array(layoutTile).max(1_000),
        floating_enabled: z.boolean(),
        filter_ids: ids,
        sql_snippet_ids: ids,
      })
      .strict(),
    reports: z.array(backupReport).max(500),
    filters: z.array(backupFilter).max(1_000),
    sql_snippets: z.array(backupSnippet).max(1_000),
    datasources: z.array(z.object({ id, name: z.string().max(200), database_type: z.string().max(32) }).strict()).max(200),
  })
  .strict()
  .openapi('DashboardBackup', {
    description: `A dashboard backup (format "${BACKUP_FORMAT}", version ${BACKUP_VERSION}). Ids tie the parts together; a restore assigns new ones.`,
  });

export type DashboardBackup = z.infer<typeof dashboardBackup>;
export type BackupFilter = z.infer<typeof backupFilter>;
export type BackupSnippet = z.infer<typeof backupSnippet>;

/**
 * Checks that the parts of a backup refer to each other: every id a layout tile, report, filter or
 * snippet names is part of the backup, and ids are unique per kind. All problems are reported together.
 */
export function checkBackupIntegrity(b: DashboardBackup) {
  const problems: ApiError[] = [];
  const bad = (pointer: string, detail: string) => problems.push(new ApiError('invalid_attribute', detail, { source: { pointer } }));
  const index = (list: { id: string }[], name: string) => {
    const s = new Set<string>();
    list.forEach((x, i) => {
      if (s.has(x.id)) bad(`/${name}/${i}/id`, `${name} lists "${x.id}" twice.`);
      s.add(x.id);
    });
    return s;
  };
  const reports = index(b.reports, 'reports');
  const filters = index(b.filters, 'filters');
  const snippets = index(b.sql_snippets, 'sql_snippets');
  const datasources = index(b.datasources, 'datasources');
  const refs = (list: string[], known: Set<string>, pointer: string, what: string) =>
    list.forEach((x, i) => {
      if (!known.has(x)) bad(`${pointer}/${i}`, `${what} "${x}" is not part of the backup.`);
    });
  b.dashboard.layout.forEach((t, i) => {
    if (!reports.has(t.id)) bad(`/dashboard/layout/${i}/id`, `Report "${t.id}" of the layout is not part of the backup.`);
  });
  refs(b.dashboard.filter_ids, filters, '/dashboard/filter_ids', 'Filter');
  refs(b.dashboard.sql_snippet_ids, snippets, '/dashboard/sql_snippet_ids', 'SQL snippet');
  b.reports.forEach((r, i) => {
    if (!datasources.has(r.datasource_id)) bad(`/reports/${i}/datasource_id`, `Datasource "${r.datasource_id}" is not listed in datasources.`);
    refs(r.filter_ids, filters, `/reports/${i}/filter_ids`, 'Filter');
    refs(r.sql_snippet_ids, snippets, `/reports/${i}/sql_snippet_ids`, 'SQL snippet');
  });
  b.filters.forEach((f, i) => {
    if (f.datasource_id && !datasources.has(f.datasource_id))
      bad(`/filters/${i}/datasource_id`, `Datasource "${f.datasource_id}" is not listed in datasources.`);
    if (f.parent_filter_id && !filters.has(f.parent_filter_id))
      bad(`/filters/${i}/parent_filter_id`, `Filter "${f.parent_filter_id}" is not part of the backup.`);
    refs(f.sql_snippet_ids, snippets, `/filters/${i}/sql_snippet_ids`, 'SQL snippet');
  });
  b.sql_snippets.forEach((s, i) => {
    if (s.datasource_id && !datasources.has(s.datasource_id))
      bad(`/sql_snippets/${i}/datasource_id`, `Datasource "${s.datasource_id}" is not listed in datasources.`);
    refs(s.sql_snippet_ids, snippets, `/sql_snippets/${i}/sql_snippet_ids`, 'SQL snippet');
  });
  if (problems.length) {
    const [first, ...more] = problems;
    throw new ApiError(first!.code, first!.message, { source: first!.source, more });
  }
}
