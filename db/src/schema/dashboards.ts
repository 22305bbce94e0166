import { boolean, index, integer, jsonb, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import type { FiltersConfiguration, InputParameters, LayoutTile, TimeZoneConfig } from '@cairn/core';
import { createdAt, orgId, ts, updatedAt } from './common.ts';
import { organizations, userGroups, users } from './organizations.ts';
import { datasources } from './datasources.ts';

export type { LayoutTile, TimeZoneConfig, FiltersConfiguration, InputParameters };

export const dashboards = pgTable(
  'dashboards',
  {
    id: text().primaryKey(),
    organization_id: orgId().references(() => organizations.id, { onDelete: 'cascade' }),
    /** The creator; private dashboards (share_mode none) are reachable by the creator and admins. */
    user_id: text().references(() => users.id, { onDelete: 'set null' }),
    name: text().notNull(),
    description: text(),
    time_zone_config: jsonb().$type<TimeZoneConfig>().notNull().default({ type: 'organization' }),
    automatic_update_enabled: boolean().notNull().default(true),
    thumbnail_enabled: boolean().notNull().default(true),
    thumbnail_image_url: text(),
    thumbnail_created_at: ts(),
    prewarm: boolean().notNull().default(false),
    published: boolean().notNull().default(false),
    data_refresh_rate: integer().notNull().default(1440),
    data_refresh_anchor_time: text(),
    is_locked: boolean().notNull().default(false),
    default_parameters: jsonb().$type<InputParameters>().notNull().default({}),
    default_page_width: integer().notNull().default(1600),
    layout: jsonb().$type<LayoutTile[]>().notNull().default([]),
    floating_enabled: boolean().notNull().default(false),
    color_scheme: text().notNull().default('scheme_6'),
    /** Series value → ordinal of its colour, in order of first sight (migration 0011; POST /dashboards/{id}/series_colors). */
    series_colors: jsonb().$type<Record<string, number>>().notNull().default({}),
    filters_configuration: jsonb().$type<FiltersConfiguration>().notNull().default({}),
    share_mode: text().$type<'none' | 'all_users' | 'all_analysts' | 'custom'>().notNull().default('none'),
    last_accessed_at: ts(),
    /** When a thumbnail render was last handed to the job queue (migration 0012; at most once a day). */
    thumbnail_queued_at: ts(),
    created_at: createdAt(),
    updated_at: updatedAt(),
  },
  (t) => [index('dashboards_org_idx').on(t.organization_id)],
);

/** Custom sharing of a dashboard with user groups (share_mode custom). */
export const dashboardUserGroups = pgTable(
  'dashboard_user_groups',
  {
    organization_id: orgId().references(() => organizations.id, { onDelete: 'cascade' }),
    dashboard_id: text()
      .notNull()
      .references(() => dashboards.id, { onDelete: 'cascade' }),
    user_group_id: text()
      .notNull()
      .references(() => userGroups.id, { onDelete: 'cascade' }),
  },
  (t) => [primaryKey({ columns: [t.dashboard_id, t.user_group_id] })],
);

export const dashboardGroups = pgTable(
  'dashboard_groups',
  {
    id: text().primaryKey(),
    organization_id: orgId().references(() => organizations.id, { onDelete: 'cascade' }),
    name: text().notNull(),
    description: text(),
    position: integer().notNull().default(0),
    /** Set for a user's personal group; API keys never see these. */
    personal_user_id: text().references(() => users.id, { onDelete: 'cascade' }),
    created_at: createdAt(),
    updated_at: updatedAt(),
  },
  (t) => [index('dashboard_groups_org_idx').on(t.organization_id)],
);

export const dashboardGroupMembers = pgTable(
  'dashboard_group_members',
  {
    organization_id: orgId().references(() => organizations.id, { onDelete: 'cascade' }),
    dashboard_group_id: text()
      .notNull()
      .references(() => dashboardGroups.id, { onDelete: 'cascade' }),
    dashboard_id: text()
      .notNull()
      .references(() => dashboards.id, { onDelete: 'cascade' }),
    position: integer().notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.dashboard_group_id, t.dashboard_id] })],
);

export const reports = pgTable(
  'reports',
  {
    id: text().primaryKey(),
    organization_id: orgId().references(() => organizations.id, { onDelete: 'cascade' }),
    dashboard_id: text()
      .notNull()
      .references(() => dashboards.id, { onDelete: 'cascade' }),
    datasource_id: text()
      .notNull()
      .references(() => datasources.id, { onDelete: 'restrict' }),
    name: text().notNull(),
    description: text(),
    sql_query: text().notNull(),
    r_query: text(),
    r_query_enabled: boolean().notNull().default(false),
    data_refresh_rate: integer(),
    data_refresh_anchor_time: text(),
    /** Chart type and its options; opaque to the API (read-only there), owned by the app's editor. */
    chart_configuration: jsonb().$type<Record<string, unknown>>().notNull().default({ type: 'table' }),
    download_actions_enabled: boolean().notNull().default(true),
    data_download_enabled: boolean().notNull().default(true),
    maximize_action_enabled: boolean().notNull().default(true),
    refresh_enabled: boolean().notNull().default(true),
    unused_filters_warning_enabled: boolean().notNull().default(false),
    unlimited_csv_export_enabled: boolean().notNull().default(false),
    display_name_as_title: boolean().notNull().default(true),
    default_page_width: integer().notNull().default(800),
    default_page_height: integer().notNull().default(600),
    attribution: text(),
    no_data_message: text(),
    query_error: text(),
    created_at: createdAt(),
    updated_at: updatedAt(),
  },
  (t) => [index('reports_org_idx').on(t.organization_id), index('reports_dashboard_idx').on(t.dashboard_id)],
);

export const filters = pgTable(
  'filters',
  {
    id: text().primaryKey(),
    organization_id: orgId().references(() => organizations.id, { onDelete: 'cascade' }),
    datasource_id: text().references(() => datasources.id, { onDelete: 'restrict' }),
    parent_filter_id: text(),
    display_name: text(),
    variable_name: text().notNull(),
    control_type: text().notNull(),
    value_type: text().notNull(),
    /** Manual dropdown options (write-only through the API). */
    values: jsonb().$type<unknown[]>(),
    value_names: jsonb().$type<string[]>(),
    sql_query: text(),
    data_refresh_rate: integer(),
    default_values: jsonb().$type<unknown[]>(),
    required: boolean().notNull().default(false),
    dropdown_validate: boolean().notNull().default(false),
    dropdown_default_to_first: boolean().notNull().default(false),
    relative_range_enabled: boolean().notNull().default(true),
    before_range_enabled: boolean().notNull().default(true),
    after_range_enabled: boolean().notNull().default(true),
    from_to_range_enabled: boolean().notNull().default(true),
    allowed_aggregations: jsonb().$type<string[]>(),
    /** Options produced by the filter's query, with the time of that run. */
    options_cache: jsonb().$type<{ values: unknown[]; value_names: string[]; parent_values: unknown[] }[]>(),
    options_refreshed_at: ts(),
    last_query_success: ts(),
    last_query_error_message: text(),
    created_at: createdAt(),
    updated_at: updatedAt(),
  },
  (t) => [index('filters_org_idx').on(t.organization_id)],
);

/** Which filters a dashboard shows, in order. */
export const dashboardFilters = pgTable(
  'dashboard_filters',
  {
    organization_id: orgId().references(() => organizations.id, { onDelete: 'cascade' }),
    dashboard_id: text()
      .notNull()
      .references(() => dashboards.id, { onDelete: 'cascade' }),
    filter_id: text()
      .notNull()
      .references(() => filters.id, { onDelete: 'cascade' }),
    position: integer().notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.dashboard_id, t.filter_id] })],
);

/** Which filters a report's SQL uses (derived from its variables when it is saved). */
export const reportFilters = pgTable(
  'report_filters',
  {
    organization_id: orgId().references(() => organizations.id, { onDelete: 'cascade' }),
    report_id: text()
      .notNull()
      .references(() => reports.id, { onDelete: 'cascade' }),
    filter_id: text()
      .notNull()
      .references(() => filters.id, { onDelete: 'cascade' }),
  },
  (t) => [primaryKey({ columns: [t.report_id, t.filter_id] })],
);

export const sqlSnippets = pgTable(
  'sql_snippets',
  {
    id: text().primaryKey(),
    organization_id: orgId().references(() => organizations.id, { onDelete: 'cascade' }),
    datasource_id: text().references(() => datasources.id, { onDelete: 'set null' }),
    name: text().notNull(),
    description: text(),
    text: text().notNull(),
    params: jsonb().$type<string[]>().notNull().default([]),
    created_at: createdAt(),
    updated_at: updatedAt(),
  },
  (t) => [index('sql_snippets_org_idx').on(t.organization_id)],
);

/** Which snippets a report, filter, dashboard, alert or other snippet uses. */
export const sqlSnippetUses = pgTable(
  'sql_snippet_uses',
  {
    organization_id: orgId().references(() => organizations.id, { onDelete: 'cascade' }),
    owner_type: text().$type<'report' | 'filter' | 'dashboard' | 'sql_alert' | 'sql_snippet'>().notNull(),
    owner_id: text().notNull(),
    sql_snippet_id: text()
      .notNull()
      .references(() => sqlSnippets.id, { onDelete: 'cascade' }),
  },
  (t) => [primaryKey({ columns: [t.owner_type, t.owner_id, t.sql_snippet_id] }), index('snippet_uses_snippet_idx').on(t.sql_snippet_id)],
);
