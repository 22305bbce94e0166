/**
 * What a variable stands for in one compilation: a list of values, a range, or an aggregation —
 * from its filter definition (or the built-ins `timerange` / `aggregation`) and the input parameters.
 */
import {
  AGGREGATIONS,
  RANGE_CONTROLS,
  SINGLE_VALUE_CONTROLS,
  type Aggregation,
  type FilterDefinition,
  type FilterSelection,
  type InputParameters,
} from './params.ts';
import { parseRange, type Range, type RangeType } from './ranges.ts';
import { coerce, invalid, show, type Origin, type TimeContext, type Typed } from './values.ts';

export type Selection =
  | { kind: 'list'; name: string; single: boolean; checkbox: boolean; values: Typed[]; origin: Origin }
  /** range null: unset. */
  | { kind: 'range'; name: string; type: RangeType; range: Range | null; origin: Origin }
  | { kind: 'aggregation'; name: string; value: Aggregation };

export interface ResolveContext {
  filters: readonly FilterDefinition[];
  parameters: InputParameters;
  /** The dashboard's aggregation options (filters_configuration.aggregation_options) for `aggregation`. */
  aggregationOptions: readonly string[] | null;
  time: TimeContext;
}

const RANGE_TYPES: Record<string, RangeType> = { date_range: 'date', date_time_range: 'instant', time_range: 'time' };

function findSelection(parameters: InputParameters, name: string): { selection: FilterSelection; index: number } | null {
  const list = Array.isArray(parameters.filters) ? parameters.filters : [];
  const index = list.findIndex((f) => f && f.variable_name === name);
  return index === -1 ? null : { selection: list[index]!, index };
}

function selectedValues(found: { selection: FilterSelection; index: number } | null, name: string): { values: unknown[]; pointer: string } {
  if (!found) return { values: [], pointer: '/parameters/filters' };
  const pointer = `/parameters/filters/${found.index}/selected_values`;
  const values = found.selection.selected_values;
  if (values === undefined || values === null) return { values: [], pointer };
  if (!Array.isArray(values)) throw invalid({ filter: name, pointer }, 'selected_values must be a list.');
  return { values, pointer };
}

export function resolveVariable(name: string, ctx: ResolveContext): Selection {
  const def = ctx.filters.find((f) => f.variable_name === name);
  const p = ctx.parameters;
  if (!def && name === 'timerange') {
    const origin = { filter: name, pointer: '/parameters/timerange' };
    const raw = p.timerange ?? selectedValues(findSelection(p, name), name).values;
    const empty = raw === undefined || raw === null || raw === '' || (Array.isArray(raw) && raw.length === 0);
    return { kind: 'range', name, type: 'instant', range: empty ? null : parseRange(raw, 'instant', origin, ctx.time), origin };
  }
  if (!def && name === 'aggregation') {
    const origin = { filter: name, pointer: '/parameters/aggregation' };
    const raw = p.aggregation ?? selectedValues(findSelection(p, name), name).values[0];
    return { kind: 'aggregation', name, value: pickAggregation(raw, ctx.aggregationOptions, null, origin) };
  }
  const found = findSelection(p, name);
  const { values, pointer } = selectedValues(found, name);
  const origin = { filter: name, pointer };
  if (!def) {
    // An ad hoc filter (no definition yet): a multi-select text filter; its selected values apply as text.
    const typed = values.map((v, i) => coerce(v, 'TEXT', { filter: name, pointer: `${pointer}/${i}` }, ctx.time));
    return { kind: 'list', name, single: false, checkbox: false, values: typed, origin };
  }
  const control = def.control_type;
  if ((RANGE_CONTROLS as readonly string[]).includes(control)) {
    const type = RANGE_TYPES[control]!;
    return { kind: 'range', name, type, range: values.length ? parseRange(values, type, origin, ctx.time) : null, origin };
  }
  if (control === 'date_time_aggregation') {
    return { kind: 'aggregation', name, value: pickAggregation(values[0], def.allowed_aggregations ?? null, def.default_values ?? null, origin) };
  }
  const single = (SINGLE_VALUE_CONTROLS as readonly string[]).includes(control);
  if (single && values.length > 1) throw invalid(origin, `this ${control} filter takes one value; ${values.length} were given.`);
  const checkbox = control === 'checkbox' || control === 'checkbox_two_way';
  const valueType = checkbox ? 'BOOLEAN' : String(def.value_type);
  const typed = values.map((v, i) => coerce(v, valueType, { filter: name, pointer: `${pointer}/${i}` }, ctx.time));
  return { kind: 'list', name, single, checkbox, values: typed, origin };
}

/**
 * The aggregation in force: the selected one (checked against the allowed list, where all_time must be
 * listed explicitly), else the filter's default, else day, else the first allowed one.
 */
function pickAggregation(raw: unknown, allowedList: readonly string[] | null, defaults: readonly unknown[] | null, origin: Origin): Aggregation {
  const allowed = allowedList && allowedList.length ? allowedList : null;
  const permits = (a: string) => (allowed ? allowed.includes(a) : a !== 'all_time');
  const known = (a: unknown): a is Aggregation => typeof a === 'string' && (AGGREGATIONS as readonly string[]).includes(a);
  if (raw !== undefined && raw !== null && raw !== '') {
    if (!known(raw)) throw invalid(origin, `${show(raw)} is not an aggregation; use one of ${AGGREGATIONS.join(', ')}.`);
    if (!permits(raw)) {
      throw invalid(
        origin,
        raw === 'all_time'
          ? 'the all_time aggregation is not enabled for this filter.'
          : `the aggregation "${raw}" is not offered here; use one of ${(allowed ?? []).join(', ')}.`,
      );
    }
    return raw;
  }
  for (const candidate of [defaults?.[0], 'day', ...(allowed ?? [])]) {
    if (known(candidate) && permits(candidate)) return candidate;
  }
  return 'day';
}
