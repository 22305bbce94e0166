/** The API resources as the app reads them (only the attributes the app uses). */
import type { LayoutTile, ResourceObject } from '@cairn/core';

export type { LayoutTile };

export interface DashboardAttributes {
  name: string;
  description?: string | null;
  layout?: LayoutTile[];
  color_scheme?: string;
  series_colors?: Record<string, number>;
  default_page_width?: number;
  data_refresh_rate?: number;
  share_mode?: string;
  is_locked?: boolean;
  updated_at?: string;
  time_zone_config?: { type?: string; fixed_time_zone?: string | null; allowed_time_zones?: string[] | null } | null;
  filters_configuration?: {
    apply_immediately?: boolean;
    aggregation_options?: string[];
    filter_sorting?: string[];
    hidden_parameters?: string[];
  } | null;
  default_parameters?: {
    timerange?: string;
    aggregation?: string;
    tz?: string;
    filters?: { variable_name: string; selected_values: unknown[] }[];
  } | null;
  automatic_update_enabled?: boolean;
}

export interface ReportAttributes {
  name: string;
  description?: string | null;
  chart_configuration?: Record<string, unknown> | null;
  no_data_message?: string | null;
  sql_query?: string | null;
  query_error?: string | null;
  refresh_enabled?: boolean;
  download_actions_enabled?: boolean;
  data_download_enabled?: boolean;
  unlimited_csv_export_enabled?: boolean;
  maximize_action_enabled?: boolean;
  display_name_as_title?: boolean;
  attribution?: string | null;
  unused_filters_warning_enabled?: boolean;
  row?: number;
  column?: number;
  width?: number;
  height?: number;
}

export interface FilterAttributes {
  display_name?: string | null;
  variable_name: string;
  control_type: string;
  value_type: string;
  values?: unknown[] | null;
  value_names?: string[] | null;
  default_values?: unknown[] | null;
  required?: boolean;
  dropdown_validate?: boolean;
  dropdown_default_to_first?: boolean;
  relative_range_enabled?: boolean;
  before_range_enabled?: boolean;
  after_range_enabled?: boolean;
  from_to_range_enabled?: boolean;
  allowed_aggregations?: string[] | null;
  sql_query?: string | null;
}

export interface ListDocument<A> {
  data: ResourceObject<A>[];
  meta?: Record<string, unknown>;
}
export interface SingleDocument<A> {
  data: ResourceObject<A>;
  included?: ResourceObject[];
}

export interface SessionInfo {
  user: { id: string; email: string; firstname?: string | null; lastname?: string | null; role: string };
  organization: { id: string; name: string; region: string; time_zone?: string };
  permissions?: string[];
  /** The organization requires two-factor authentication and this session has none yet. */
  two_factor_enrolment_required?: boolean;
}

export interface DataField {
  idx: number;
  name: string;
  data_type: string;
  human_name?: string | null;
}

export type Cell = string | number | boolean | null;

/** One report's result as the dashboard page receives it. */
export type ReportData =
  | { status: 'ok'; fields: DataField[]; rows: Cell[][]; rowCount: number; dataTimestamp?: string | null }
  | { status: 'empty'; message: string }
  | { status: 'error'; message: string };
