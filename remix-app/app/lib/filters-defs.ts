/**
 * The filter bar's definitions from the API's dashboard document: the dashboard's filters (in
 * filter_sorting order, hidden ones marked) plus the built-in `timerange` and `aggregation` when a
 * report uses them without a definition of that name.
 */
import type { ResourceObject } from '@cairn/core';
import { sqlReferences } from '@cairn/core/sql/references';
import { encodeSelected, type ControlType, type FilterDef, type FilterOption } from './filters.ts';
import type { DashboardAttributes, FilterAttributes, ReportAttributes, SingleDocument } from './types.ts';

function relatedIds(resource: ResourceObject<unknown>, name: string): string[] {
  const data = resource.relationships?.[name]?.data;
  return Array.isArray(data) ? data.map((d) => d.id) : [];
}

function parentId(resource: ResourceObject<unknown>): string | null {
  const data = resource.relationships?.parent_filter?.data;
  return data && !Array.isArray(data) ? data.id : null;
}

/** The built-in variables the dashboard's reports use (when no filter of that name is defined). */
function builtInsUsed(sqls: string[], defined: Set<string>): { timerange: boolean; aggregation: boolean } {
  const used = new Set<string>();
  for (const sql of sqls) {
    try {
      for (const v of sqlReferences(sql).variables) used.add(v);
    } catch {
      // A report whose SQL cannot be read simply contributes nothing here; its tile shows the error.
    }
  }
  return { timerange: used.has('timerange') && !defined.has('timerange'), aggregation: used.has('aggregation') && !defined.has('aggregation') };
}

const allRanges = { relative: true, before: true, after: true, fromTo: true };

function builtIn(variable: 'timerange' | 'aggregation', aggregationOptions: string[] | null): FilterDef {
  return {
    id: `builtin:${variable}`,
    variable,
    label: variable === 'timerange' ? 'Time range' : 'Aggregation',
    controlType: variable === 'timerange' ? 'date_time_range' : 'date_time_aggregation',
    valueType: variable === 'timerange' ? 'DATE_TIME' : 'TEXT',
    builtin: true,
    required: false,
    defaultValue: '',
    validate: false,
    defaultToFirst: false,
    ranges: allRanges,
    allowedAggregations: variable === 'aggregation' ? aggregationOptions : null,
    parent: null,
    manualOptions: null,
    queryOptions: false,
    hidden: false,
  };
}

function manualOptions(resource: ResourceObject<FilterAttributes>): FilterOption[] | null {
  // values/value_names are write-only in the public API; signed-in users receive them in meta.options.
  const meta = (resource.meta?.options ?? null) as { values?: unknown[]; value_names?: unknown[] } | null;
  if (!meta || !Array.isArray(meta.values)) return null;
  const names = Array.isArray(meta.value_names) ? meta.value_names : [];
  return meta.values.map((v, i) => ({ value: String(v), label: typeof names[i] === 'string' && names[i] ? (names[i] as string) : String(v) }));
}

export function buildFilterDefs(doc: SingleDocument<Pick<DashboardAttributes, 'filters_configuration'>>): FilterDef[] {
  const included = doc.included ?? [];
  const byId = new Map(included.filter((r) => r.type === 'filters').map((r) => [r.id, r as unknown as ResourceObject<FilterAttributes>]));
  const order = relatedIds(doc.data, 'filters');
  const ids = order.length ? order.filter((id) => byId.has(id)) : [...byId.keys()];
  const config = doc.data.attributes.filters_configuration ?? {};
  const hidden = new Set(Array.isArray(config.hidden_parameters) ? config.hidden_parameters : []);
  const variableOf = new Map(ids.map((id) => [id, byId.get(id)!.attributes.variable_name]));

  const defs: FilterDef[] = ids.map((id) => {
    const resource = byId.get(id)!;
    const a = resource.attributes;
    const control = a.control_type as ControlType;
    const parent = parentId(resource);
    const def: FilterDef = {
      id,
      variable: a.variable_name,
      label: a.display_name?.trim() || a.variable_name,
      controlType: control,
      valueType: a.value_type,
      builtin: false,
      required: Boolean(a.required),
      defaultValue: '',
      validate: Boolean(a.dropdown_validate),
      defaultToFirst: Boolean(a.dropdown_default_to_first),
      ranges: {
        relative: a.relative_range_enabled !== false,
        before: a.before_range_enabled !== false,
        after: a.after_range_enabled !== false,
        fromTo: a.from_to_range_enabled !== false,
      },
      allowedAggregations: Array.isArray(a.allowed_aggregations) ? a.allowed_aggregations : null,
      parent: parent ? (variableOf.get(parent) ?? null) : null,
      manualOptions: control === 'dropdown_manual' || control === 'dropdown_multi_manual' ? (manualOptions(resource) ?? []) : null,
      queryOptions: ['dropdown', 'dropdown_multi', 'dropdown_dynamic', 'dropdown_multi_dynamic'].includes(control) && Boolean(a.sql_query),
      hidden: hidden.has(a.variable_name),
    };
    def.defaultValue = encodeSelected(def, a.default_values ?? null);
    return def;
  });

  const reports = included.filter((r) => r.type === 'reports') as unknown as ResourceObject<ReportAttributes>[];
  const used = builtInsUsed(
    reports.map((r) => r.attributes.sql_query ?? ''),
    new Set(defs.map((d) => d.variable)),
  );
  const aggregationOptions = Array.isArray(config.aggregation_options) ? config.aggregation_options : null;
  const builtins: FilterDef[] = [];
  if (used.timerange) builtins.push(builtIn('timerange', null));
  if (used.aggregation) builtins.push(builtIn('aggregation', aggregationOptions));
  const all = [...builtins, ...defs];

  // filter_sorting lists variable names in the wanted order; the others keep theirs after them.
  const sorting = Array.isArray(config.filter_sorting) ? config.filter_sorting : [];
  if (sorting.length) {
    const rank = (d: FilterDef) => {
      const i = sorting.indexOf(d.variable);
      return i === -1 ? sorting.length : i;
    };
    all.sort((a, b) => rank(a) - rank(b));
  }
  return all;
}
