/**
 * The filter form: every attribute of the Filter entity, which of them apply to the chosen control
 * (as the API's rules in resources/filters say; the API checks again), and the form ↔ JSON:API body
 * mapping. Manual dropdown options are written as one `value = label` per line.
 */
import {
  AGGREGATIONS,
  AGGREGATION_CONTROLS,
  COMPATIBLE_VALUE_TYPES,
  CONTROL_TYPES,
  DYNAMIC_CONTROLS,
  MANUAL_CONTROLS,
  QUERY_CONTROLS,
  RANGE_CONTROLS,
} from '@cairn/core/sql/params';
import { attributesFor, toMany, toOne, type FieldSpec, type FormState, type ResourceBody } from './editor-forms.ts';

export { CONTROL_TYPES };
export type { ControlType } from '@cairn/core/sql/params';
import type { ControlType } from '@cairn/core/sql/params';

export const CONTROL_LABELS: Record<ControlType, string> = {
  input: 'Text input',
  input_multi: 'Text input, several values',
  checkbox: 'Checkbox',
  checkbox_two_way: 'Yes / No / All',
  date_time: 'Date and time',
  date_time_range: 'Date and time range',
  date: 'Date',
  date_range: 'Date range',
  time: 'Time',
  time_range: 'Time range',
  date_time_aggregation: 'Aggregation',
  dropdown: 'Dropdown',
  dropdown_multi: 'Dropdown, several values',
  dropdown_dynamic: 'Dynamic dropdown',
  dropdown_multi_dynamic: 'Dynamic dropdown, several values',
  dropdown_manual: 'Dropdown with fixed values',
  dropdown_multi_manual: 'Dropdown with fixed values, several',
};

/** Value types each control takes (the API's COMPATIBLE_VALUE_TYPES). */
export function valueTypesFor(control: ControlType): readonly string[] {
  return COMPATIBLE_VALUE_TYPES[control];
}

const RANGE: readonly ControlType[] = RANGE_CONTROLS;
const MANUAL: readonly ControlType[] = MANUAL_CONTROLS;
const QUERY: readonly ControlType[] = QUERY_CONTROLS;
const DYNAMIC: readonly ControlType[] = DYNAMIC_CONTROLS;
const AGGREGATION: readonly ControlType[] = AGGREGATION_CONTROLS;
const DROPDOWN = (c: ControlType) => c.startsWith('dropdown');

/** Which groups of the form apply to a control. */
export function filterSections(control: ControlType) {
  return {
    manualValues: MANUAL.includes(control),
    query: QUERY.includes(control),
    queryRequired: DYNAMIC.includes(control),
    parent: DYNAMIC.includes(control),
    ranges: RANGE.includes(control),
    aggregations: AGGREGATION.includes(control),
    dropdownOptions: DROPDOWN(control),
  };
}

export const RANGE_SWITCHES = [
  { name: 'relative_range_enabled', label: 'Relative ranges (last 7 days …)' },
  { name: 'before_range_enabled', label: '“Before” ranges' },
  { name: 'after_range_enabled', label: '“After” ranges' },
  { name: 'from_to_range_enabled', label: 'From–to ranges' },
] as const;

function filterFieldSpecs(control: ControlType): FieldSpec[] {
  const s = filterSections(control);
  const specs: FieldSpec[] = [
    { name: 'display_name', kind: 'text', nullable: true },
    { name: 'variable_name', kind: 'text' },
    { name: 'control_type', kind: 'text' },
    { name: 'value_type', kind: 'text' },
    { name: 'required', kind: 'boolean' },
    { name: 'default_values', kind: 'json' },
  ];
  if (s.dropdownOptions) specs.push({ name: 'dropdown_validate', kind: 'boolean' }, { name: 'dropdown_default_to_first', kind: 'boolean' });
  if (s.query) specs.push({ name: 'sql_query', kind: 'text', nullable: true }, { name: 'data_refresh_rate', kind: 'number', nullable: true });
  if (s.ranges) for (const r of RANGE_SWITCHES) specs.push({ name: r.name, kind: 'boolean' });
  if (s.aggregations) specs.push({ name: 'allowed_aggregations', kind: 'json' });
  return specs;
}

/** `value = label` lines → values and value_names; a line without `=` is its own label. */
export function parseManualOptions(text: string): { values: string[]; value_names: string[] } {
  const values: string[] = [];
  const value_names: string[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    const eq = line.indexOf('=');
    const value = (eq >= 0 ? line.slice(0, eq) : line).trim();
    const label = (eq >= 0 ? line.slice(eq + 1) : line).trim();
    values.push(value);
    value_names.push(label || value);
  }
  return { values, value_names };
}

export function formatManualOptions(values: readonly unknown[] | null | undefined, names: readonly unknown[] | null | undefined): string {
  return (values ?? [])
    .map((v, i) => {
      const label = typeof names?.[i] === 'string' ? (names[i] as string) : '';
      return label && label !== String(v) ? `${String(v)} = ${label}` : String(v);
    })
    .join('\n');
}

/** Default values as typed: a range `start~end` is one value; other controls take one value per line. */
function parseDefaults(text: string, control: ControlType): unknown[] | null {
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  if (lines.length === 0) return null;
  if (control === 'checkbox' || control === 'checkbox_two_way') return lines.slice(0, 1).map((l) => l === 'true');
  return lines;
}

function formatDefaults(values: readonly unknown[] | null | undefined): string {
  return (values ?? []).map((v) => String(v)).join('\n');
}

export function newFilterForm(): FormState {
  return {
    display_name: '',
    variable_name: '',
    control_type: 'dropdown_multi',
    value_type: 'TEXT',
    required: false,
    dropdown_validate: false,
    dropdown_default_to_first: false,
    sql_query: '',
    data_refresh_rate: '',
    relative_range_enabled: true,
    before_range_enabled: true,
    after_range_enabled: true,
    from_to_range_enabled: true,
    allowed_aggregations: null,
    default_values_text: '',
    options_text: '',
    datasource: '',
    parent_filter: '',
  };
}

/** The stored filter as the form shows it (manual options come from meta.options for signed-in users). */
export function filterForm(
  attributes: Record<string, unknown>,
  rels: { datasource: string | null; parent: string | null },
  options: { values?: unknown[]; value_names?: unknown[] } | null,
): FormState {
  return {
    ...newFilterForm(),
    display_name: (attributes.display_name as string | null) ?? '',
    variable_name: String(attributes.variable_name ?? ''),
    control_type: String(attributes.control_type ?? 'dropdown_multi'),
    value_type: String(attributes.value_type ?? 'TEXT'),
    required: attributes.required === true,
    dropdown_validate: attributes.dropdown_validate === true,
    dropdown_default_to_first: attributes.dropdown_default_to_first === true,
    sql_query: (attributes.sql_query as string | null) ?? '',
    data_refresh_rate: typeof attributes.data_refresh_rate === 'number' ? String(attributes.data_refresh_rate) : '',
    ...Object.fromEntries(RANGE_SWITCHES.map((r) => [r.name, attributes[r.name] !== false])),
    allowed_aggregations: Array.isArray(attributes.allowed_aggregations) ? (attributes.allowed_aggregations as string[]) : null,
    default_values_text: formatDefaults(attributes.default_values as unknown[] | null),
    options_text: formatManualOptions(options?.values, options?.value_names),
    datasource: rels.datasource ?? '',
    parent_filter: rels.parent ?? '',
  };
}

export function filterBody(
  form: FormState,
  target:
    | { mode: 'create'; dashboardId: string }
    | {
        mode: 'update';
        id: string;
        original: Record<string, unknown>;
        originalDatasource: string | null;
        originalParent: string | null;
        originalOptions: string;
      },
): ResourceBody {
  const control = String(form.control_type) as ControlType;
  const s = filterSections(control);
  const prepared: FormState = {
    ...form,
    default_values: parseDefaults(String(form.default_values_text ?? ''), control),
    allowed_aggregations: Array.isArray(form.allowed_aggregations) && form.allowed_aggregations.length ? form.allowed_aggregations : null,
  };
  const specs = filterFieldSpecs(control);
  const original = target.mode === 'update' ? target.original : {};
  const attributes = attributesFor(specs, prepared, target.mode, original);
  if (target.mode === 'create' && prepared.default_values === null) delete attributes.default_values;
  if (s.manualValues) {
    const text = String(form.options_text ?? '');
    if (target.mode === 'create' ? text.trim() !== '' : text !== target.originalOptions) Object.assign(attributes, parseManualOptions(text));
  }
  const relationships: NonNullable<ResourceBody['data']['relationships']> = {};
  const datasource = s.query && typeof form.datasource === 'string' && form.datasource ? form.datasource : null;
  const parent = s.parent && typeof form.parent_filter === 'string' && form.parent_filter ? form.parent_filter : null;
  if (target.mode === 'create') {
    if (datasource) relationships.datasource = toOne('datasources', datasource);
    if (parent) relationships.parent_filter = toOne('filters', parent);
    relationships.dashboards = toMany('dashboards', [target.dashboardId]);
  } else {
    if (datasource !== target.originalDatasource && (s.query || target.originalDatasource)) relationships.datasource = toOne('datasources', datasource);
    if (parent !== target.originalParent && (s.parent || target.originalParent)) relationships.parent_filter = toOne('filters', parent);
  }
  return {
    data: {
      type: 'filters',
      ...(target.mode === 'update' ? { id: target.id } : {}),
      attributes,
      ...(Object.keys(relationships).length ? { relationships } : {}),
    },
  };
}

export const AGGREGATION_OPTIONS: readonly string[] = AGGREGATIONS;
