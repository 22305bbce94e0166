/**
 * The public link's answer (POST /public/links/{token}) as the dashboard components read a dashboard:
 * a JSON:API-shaped document for `buildTiles` and `buildFilterDefs`, so a sharing link draws its
 * tiles and filter bar with the same code as the app. Pure; used on the server and in the browser.
 */
import type { ApiSchema } from '@cairn/client';
import type { ResourceObject } from '@cairn/core';
import { buildTiles, type TileView } from '../../lib/dashboard-view';
import { buildFilterDefs } from '../../lib/filters-defs';
import type { FilterDef } from '../../lib/filters';
import type { DashboardAttributes, SingleDocument } from '../../lib/types';

/** The answer of POST /public/links/{token}, as the API document types it (the print view's is the same with its render settings). */
export type PublicLinkView = ApiSchema<'PublicLink'>;

/** The answer as a dashboard document (`sql_query` only marks which built-in variables are used). */
export function asDashboardDocument(v: PublicLinkView): SingleDocument<DashboardAttributes> {
  const builtInSql = [v.built_ins.timerange ? '{timerange.start}' : '', v.built_ins.aggregation ? '{aggregation}' : ''].join(' ');
  const reports: ResourceObject[] = v.reports.map((r, i) => ({
    type: 'reports',
    id: r.id,
    attributes: {
      name: r.name,
      description: r.description,
      chart_configuration: r.chart_configuration,
      no_data_message: r.no_data_message,
      display_name_as_title: r.display_name_as_title,
      attribution: r.attribution,
      // The link's own switch is already in download_enabled; a link refreshes as a whole (its toolbar).
      download_actions_enabled: r.download_enabled,
      data_download_enabled: r.download_enabled,
      maximize_action_enabled: r.maximize_enabled !== false,
      refresh_enabled: false,
      sql_query: i === 0 ? builtInSql : '',
    },
  }));
  const filters: ResourceObject[] = v.filters.map((f) => ({
    type: 'filters',
    id: f.id,
    attributes: {
      variable_name: f.variable_name,
      display_name: f.display_name,
      control_type: f.control_type,
      value_type: f.value_type,
      default_values: f.default_values,
      required: f.required,
      dropdown_validate: f.dropdown_validate,
      dropdown_default_to_first: f.dropdown_default_to_first,
      allowed_aggregations: f.allowed_aggregations,
      relative_range_enabled: f.relative_range_enabled,
      before_range_enabled: f.before_range_enabled,
      after_range_enabled: f.after_range_enabled,
      from_to_range_enabled: f.from_to_range_enabled,
      sql_query: f.query_options ? 'query' : null,
    },
    relationships: { parent_filter: { data: f.parent_filter_id ? { type: 'filters', id: f.parent_filter_id } : null } },
    ...(f.options ? { meta: { options: f.options } } : {}),
  }));
  return {
    data: {
      type: 'dashboards',
      id: v.dashboard.id,
      attributes: {
        name: v.dashboard.name,
        description: v.dashboard.description,
        layout: v.dashboard.layout,
        default_page_width: v.dashboard.default_page_width,
        color_scheme: v.dashboard.color_scheme,
        filters_configuration: v.dashboard.filters_configuration,
        time_zone_config: v.dashboard.time_zone_config,
      } as DashboardAttributes,
      relationships: {
        reports: { data: v.reports.map((r) => ({ type: 'reports', id: r.id })) },
        filters: { data: v.filters.map((f) => ({ type: 'filters', id: f.id })) },
      },
    },
    included: [...reports, ...filters],
  };
}

/**
 * Tiles and filter definitions of the link; a variable the signed address set (fixed_variables, the
 * built-in timerange and aggregation included) is marked fixed: the filter bar shows its value with a
 * lock instead of a control, and nothing on the page can change it.
 */
export function publicDashboard(v: PublicLinkView): { tiles: TileView[]; defs: FilterDef[] } {
  const doc = asDashboardDocument(v);
  const fixed = new Set(v.fixed_variables);
  const defs = buildFilterDefs(doc).map((d) => (fixed.has(d.variable) ? { ...d, fixed: true } : d));
  return { tiles: buildTiles(doc), defs };
}
