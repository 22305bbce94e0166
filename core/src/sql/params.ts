/**
 * Input parameters of dashboards and reports (spec 01 §3) and the filter definitions the compiler
 * reads. `timerange` is `start~end` in unix seconds, either side optional.
 */
export const AGGREGATIONS = [
  'second', 'minute', 'hour', 'day', 'week', 'week_sunday', 'month', 'quarter', 'year', 'all_time',
] as const;
export type Aggregation = (typeof AGGREGATIONS)[number];

export interface FilterSelection {
  variable_name: string;
  selected_values: unknown[];
}
export interface InputParameters {
  timerange?: string;
  aggregation?: string;
  tz?: string;
  filters?: FilterSelection[];
}

export const VALUE_TYPES = ['TEXT', 'NUMBER', 'BOOLEAN', 'DATE', 'TIME', 'DATE_TIME'] as const;
export type ValueType = (typeof VALUE_TYPES)[number];

export const CONTROL_TYPES = [
  'input', 'input_multi', 'checkbox', 'checkbox_two_way', 'date_time', 'date_time_range', 'date', 'date_range',
  'time', 'time_range', 'date_time_aggregation', 'dropdown', 'dropdown_multi', 'dropdown_dynamic',
  'dropdown_multi_dynamic', 'dropdown_manual', 'dropdown_multi_manual',
] as const;

export const RANGE_CONTROLS = ['date_range', 'date_time_range', 'time_range'] as const;

/** Controls that hold at most one value; the others (input_multi, dropdown_multi…) hold lists. */
export const SINGLE_VALUE_CONTROLS = [
  'input', 'checkbox', 'checkbox_two_way', 'date', 'date_time', 'time', 'dropdown', 'dropdown_dynamic', 'dropdown_manual',
] as const;

/** Variables that work without a filter definition. */
export const BUILT_IN_VARIABLES = ['timerange', 'aggregation'] as const;

export interface FilterDefinition {
  variable_name: string;
  control_type: string;
  value_type: ValueType | string;
  /** date_time_aggregation only: which aggregations the filter offers (all_time only when listed). */
  allowed_aggregations?: readonly string[] | null;
  /** Used for an unset date_time_aggregation filter (its first value). */
  default_values?: readonly unknown[] | null;
}
