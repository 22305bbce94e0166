import type { Relationship } from '@cairn/core';
import type { LayoutTile, reports } from '@cairn/db';
import { resource, toMany, toOne } from '../../lib/jsonapi.ts';

type ReportRow = typeof reports.$inferSelect;

/** A report's own settings: what the API shows and what a dashboard backup carries. */
export function reportSettings(r: ReportRow) {
  return {
    name: r.name,
    description: r.description,
    sql_query: r.sql_query,
    r_query: r.r_query,
    r_query_enabled: r.r_query_enabled,
    data_refresh_rate: r.data_refresh_rate,
    data_refresh_anchor_time: r.data_refresh_anchor_time,
    chart_configuration: r.chart_configuration,
    download_actions_enabled: r.download_actions_enabled,
    data_download_enabled: r.data_download_enabled,
    maximize_action_enabled: r.maximize_action_enabled,
    refresh_enabled: r.refresh_enabled,
    unused_filters_warning_enabled: r.unused_filters_warning_enabled,
    unlimited_csv_export_enabled: r.unlimited_csv_export_enabled,
    display_name_as_title: r.display_name_as_title,
    default_page_width: r.default_page_width,
    default_page_height: r.default_page_height,
    attribution: r.attribution,
    no_data_message: r.no_data_message,
  };
}

function reportAttributes(r: ReportRow, tile: LayoutTile | undefined) {
  return {
    ...reportSettings(r),
    query_error: r.query_error,
    // Layout position lives in the dashboard's layout; shown here read-only.
    row: tile?.row ?? null,
    column: tile?.column ?? null,
    width: tile?.width ?? null,
    height: tile?.height ?? null,
    created_at: r.created_at.toISOString(),
    updated_at: r.updated_at.toISOString(),
  };
}

export function serializeReport(baseUrl: string, r: ReportRow, tile: LayoutTile | undefined, links: { filters: string[]; sql_snippets: string[] }) {
  const relationships: Record<string, Relationship> = {
    dashboard: toOne('dashboards', r.dashboard_id),
    datasource: toOne('datasources', r.datasource_id),
    filters: toMany('filters', links.filters),
    sql_snippets: toMany('sql_snippets', links.sql_snippets),
  };
  return resource(baseUrl, 'reports', r.id, reportAttributes(r, tile), relationships);
}
