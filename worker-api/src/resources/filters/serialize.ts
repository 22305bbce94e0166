import type { filters } from '@cairn/db';
import { resource, toMany, toOne } from '../../lib/jsonapi.ts';

type FilterRow = typeof filters.$inferSelect;
const RANGE = new Set(['date_range', 'date_time_range', 'time_range']);
const MANUAL = new Set(['dropdown_manual', 'dropdown_multi_manual']);

/**
 * `values` and `value_names` are write-only in the public API; the web app, which has to draw the
 * dropdown, reads the options through the options call — until then, the manual options are
 * exposed to signed-in users only (the app's session principal), never to API keys.
 */
export function serializeFilter(baseUrl: string, f: FilterRow, snippetIds: string[], opts: { exposeManualValues: boolean; dashboardIds?: string[] }) {
  const attributes: Record<string, unknown> = {
    display_name: f.display_name,
    variable_name: f.variable_name,
    control_type: f.control_type,
    value_type: f.value_type,
    sql_query: f.sql_query,
    data_refresh_rate: f.data_refresh_rate,
    default_values: f.default_values,
    required: f.required,
    dropdown_validate: f.dropdown_validate,
    dropdown_default_to_first: f.dropdown_default_to_first,
    allowed_aggregations: f.allowed_aggregations,
    last_query_success: f.last_query_success?.toISOString() ?? null,
    last_query_error_message: f.last_query_error_message,
    created_at: f.created_at.toISOString(),
    updated_at: f.updated_at.toISOString(),
  };
  if (RANGE.has(f.control_type)) {
    Object.assign(attributes, {
      relative_range_enabled: f.relative_range_enabled,
      before_range_enabled: f.before_range_enabled,
      after_range_enabled: f.after_range_enabled,
      from_to_range_enabled: f.from_to_range_enabled,
    });
  }
  const meta = opts.exposeManualValues && MANUAL.has(f.control_type) ? { options: { values: f.values ?? [], value_names: f.value_names ?? [] } } : undefined;
  const obj = resource(baseUrl, 'filters', f.id, attributes, {
    datasource: toOne('datasources', f.datasource_id),
    sql_snippets: toMany('sql_snippets', snippetIds),
    parent_filter: toOne('filters', f.parent_filter_id),
    // Extra to the spec's list: the dashboards (visible to the caller) whose filter bar shows this filter.
    ...(opts.dashboardIds ? { dashboards: toMany('dashboards', opts.dashboardIds) } : {}),
  });
  return meta ? { ...obj, meta } : obj;
}
