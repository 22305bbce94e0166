/**
 * Input parameters of dashboards and reports (spec 01 §3) and the filter definitions the compiler
 * reads. `timerange` is `start~end` in unix seconds, either side optional.
 */
export const AGGREGATIONS = ['second', 'minute', 'hour', 'day', 'week', 'week_sunday', 'month', 'quarter', 'year', 'all_time'] as const;
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
  'input',
  'input_multi',
  'checkbox',
  'checkbox_two_way',
  'date_time',
  'date_time_range',
  'date',
  'date_range',
  'time',
  'time_range',
  'date_time_aggregation',
  'dropdown',
  'dropdown_multi',
  'dropdown_dynamic',
  'dropdown_multi_dynamic',
  'dropdown_manual',
  'dropdown_multi_manual',
] as const;

export type ControlType = (typeof CONTROL_TYPES)[number];

export const RANGE_CONTROLS = ['date_range', 'date_time_range', 'time_range'] as const;
/** Dropdowns whose options are the filter's own `values`. */
export const MANUAL_CONTROLS = ['dropdown_manual', 'dropdown_multi_manual'] as const;
/** Dropdowns whose options may come from sql_query (optional for the plain ones, required for the dynamic ones). */
export const QUERY_CONTROLS = ['dropdown', 'dropdown_multi', 'dropdown_dynamic', 'dropdown_multi_dynamic'] as const;
/** Dropdowns that need sql_query and may have a parent filter. */
export const DYNAMIC_CONTROLS = ['dropdown_dynamic', 'dropdown_multi_dynamic'] as const;
/** Controls that may restrict the aggregations offered (allowed_aggregations). */
export const AGGREGATION_CONTROLS = ['date_time_aggregation', 'date_range', 'date_time_range'] as const;

const ANY_VALUE_TYPE: readonly ValueType[] = VALUE_TYPES;
/**
 * Which value types each control accepts. Typed inputs take what can be typed (no BOOLEAN: that is
 * what checkboxes are for); date and time pickers take exactly their type; the aggregation control
 * selects an aggregation name (TEXT); dropdowns may carry any value type.
 */
export const COMPATIBLE_VALUE_TYPES: Record<ControlType, readonly ValueType[]> = {
  input: ['TEXT', 'NUMBER', 'DATE', 'TIME', 'DATE_TIME'],
  input_multi: ['TEXT', 'NUMBER', 'DATE', 'TIME', 'DATE_TIME'],
  checkbox: ['BOOLEAN'],
  checkbox_two_way: ['BOOLEAN'],
  date_time: ['DATE_TIME'],
  date_time_range: ['DATE_TIME'],
  date: ['DATE'],
  date_range: ['DATE'],
  time: ['TIME'],
  time_range: ['TIME'],
  date_time_aggregation: ['TEXT'],
  dropdown: ANY_VALUE_TYPE,
  dropdown_multi: ANY_VALUE_TYPE,
  dropdown_dynamic: ANY_VALUE_TYPE,
  dropdown_multi_dynamic: ANY_VALUE_TYPE,
  dropdown_manual: ANY_VALUE_TYPE,
  dropdown_multi_manual: ANY_VALUE_TYPE,
};

/** Whether `control` is one of `list` (the lists above are typed narrowly). */
export const controlIn = (list: readonly ControlType[], control: string): boolean => (list as readonly string[]).includes(control);

/** Controls that hold at most one value; the others (input_multi, dropdown_multi…) hold lists. */
export const SINGLE_VALUE_CONTROLS = [
  'input',
  'checkbox',
  'checkbox_two_way',
  'date',
  'date_time',
  'time',
  'dropdown',
  'dropdown_dynamic',
  'dropdown_manual',
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
