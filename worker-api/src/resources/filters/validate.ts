import {
  AGGREGATIONS,
  AGGREGATION_CONTROLS,
  ApiError,
  COMPATIBLE_VALUE_TYPES,
  DYNAMIC_CONTROLS,
  MANUAL_CONTROLS,
  QUERY_CONTROLS,
  RANGE_CONTROLS,
  controlIn,
  type ControlType,
  type ValueType,
} from '@cairn/core';
import type { filters } from '@cairn/db';
import { RANGE_OPTIONS, SINGLE_VALUE_CONTROL_TYPES, type FilterAttributes } from './schema.ts';
import { checkRange, checkValue } from './values.ts';

type FilterRow = typeof filters.$inferSelect;
type Sent = Partial<FilterAttributes>;
type Rels = Record<string, string | string[] | null>;

const attr = (name: string) => `/data/attributes/${name}`;
const rel = (name: string) => `/data/relationships/${name}`;
const invalid = (pointer: string, detail: string, code: 'invalid_attribute' | 'invalid_relationship' | 'missing_attribute' = 'invalid_attribute') =>
  new ApiError(code, detail, { source: { pointer } });

/**
 * Checks a create or update against the filter rules, on the state the write would leave (stored
 * row + what was sent), and returns the columns to write. Attributes that no longer apply after a
 * control type change and were not sent are cleared (values/value_names off manual dropdowns,
 * sql_query off query dropdowns, allowed_aggregations, parent_filter, default_values that no longer
 * fit); sending one that does not apply is a 422 pointing at it.
 */
export function planFilterWrite(current: FilterRow | null, sent: Sent, rels: Rels) {
  const problems: ApiError[] = [];
  const set: Record<string, unknown> = { ...sent };
  const control = (sent.control_type ?? current?.control_type) as ControlType;
  const valueType = (sent.value_type ?? current?.value_type) as ValueType;
  const has = (k: keyof Sent) => sent[k] !== undefined;

  if (!COMPATIBLE_VALUE_TYPES[control].includes(valueType)) {
    problems.push(
      invalid(
        attr(has('value_type') || !has('control_type') ? 'value_type' : 'control_type'),
        `A ${control} filter takes value_type ${COMPATIBLE_VALUE_TYPES[control].join(', ')}, not ${valueType}.`,
      ),
    );
  }

  // Manual options.
  const manual = controlIn(MANUAL_CONTROLS, control);
  for (const k of ['values', 'value_names'] as const) {
    if (has(k) && sent[k] !== null && !manual)
      problems.push(invalid(attr(k), `${k} applies to manual dropdowns (dropdown_manual, dropdown_multi_manual) only.`));
    else if (!has(k) && !manual && current?.[k] != null) set[k] = null;
  }
  if (manual && problems.length === 0) {
    const values = has('values') ? sent.values : current?.values;
    const names = has('value_names') ? sent.value_names : current?.value_names;
    if (values && (has('values') || has('value_type'))) {
      const coerced: unknown[] = [];
      values.forEach((v, i) => {
        try {
          if (v === null) throw invalid(attr(`values/${i}`), 'An option value cannot be null.');
          coerced.push(checkValue(v, valueType, attr(`values/${i}`)));
        } catch (e) {
          problems.push(e as ApiError);
        }
      });
      set.values = coerced;
    }
    if (names && names.length !== (values?.length ?? 0)) {
      problems.push(invalid(attr('value_names'), `value_names has ${names.length} entries but values has ${values?.length ?? 0}; give one name per value.`));
    }
  }

  // Options query.
  const query = controlIn(QUERY_CONTROLS, control);
  if (has('sql_query') && sent.sql_query !== null && !query) {
    problems.push(invalid(attr('sql_query'), `sql_query applies to query-driven dropdowns only (${QUERY_CONTROLS.join(', ')}).`));
  } else if (!has('sql_query') && !query && current?.sql_query != null) set.sql_query = null;
  const sqlQuery = (set.sql_query !== undefined ? set.sql_query : current?.sql_query) as string | null | undefined;
  if (controlIn(DYNAMIC_CONTROLS, control) && !sqlQuery?.trim()) {
    problems.push(invalid(attr('sql_query'), `A ${control} filter needs a sql_query that lists its options.`, 'missing_attribute'));
  }
  const datasource = rels.datasource !== undefined ? rels.datasource : current?.datasource_id;
  if (sqlQuery?.trim() && !datasource) {
    problems.push(invalid(rel('datasource'), 'A filter with a sql_query needs the datasource relationship (where the query runs).', 'invalid_relationship'));
  }

  // Range options.
  const range = controlIn(RANGE_CONTROLS, control);
  for (const k of RANGE_OPTIONS) {
    if (has(k) && !range) problems.push(invalid(attr(k), `${k} applies to range controls only (${RANGE_CONTROLS.join(', ')}).`));
  }

  // Aggregations.
  const aggregations = controlIn(AGGREGATION_CONTROLS, control);
  if (has('allowed_aggregations') && sent.allowed_aggregations !== null) {
    if (!aggregations) problems.push(invalid(attr('allowed_aggregations'), `allowed_aggregations applies to ${AGGREGATION_CONTROLS.join(', ')} only.`));
    const list = sent.allowed_aggregations!;
    const twice = list.findIndex((a, i) => list.indexOf(a) !== i);
    if (twice >= 0) problems.push(invalid(attr(`allowed_aggregations/${twice}`), `${list[twice]} is listed twice.`));
  } else if (!has('allowed_aggregations') && !aggregations && current?.allowed_aggregations != null) set.allowed_aggregations = null;
  const allowed = (set.allowed_aggregations !== undefined ? set.allowed_aggregations : current?.allowed_aggregations) as string[] | null | undefined;

  // Parent filter.
  if (rels.parent_filter && !controlIn(DYNAMIC_CONTROLS, control)) {
    problems.push(
      invalid(rel('parent_filter'), `A parent filter narrows the options of dynamic dropdowns (${DYNAMIC_CONTROLS.join(', ')}) only.`, 'invalid_relationship'),
    );
  } else if (rels.parent_filter === undefined && !controlIn(DYNAMIC_CONTROLS, control) && current?.parent_filter_id) set.parent_filter_id = null;

  // Default values.
  if (problems.length === 0) {
    const defaults = has('default_values') ? sent.default_values : current?.default_values;
    const options = (set.values !== undefined ? set.values : current?.values) as unknown[] | null | undefined;
    const dropdownValidate = sent.dropdown_validate ?? current?.dropdown_validate ?? false;
    if (defaults) {
      const found = checkDefaults(defaults, { control, valueType, allowed, options: manual && dropdownValidate ? (options ?? []) : null });
      if (has('default_values')) {
        problems.push(...found.problems);
        set.default_values = found.values;
      } else if (found.problems.length) set.default_values = null;
      else if (has('value_type') || has('control_type')) set.default_values = found.values;
    }
  }
  return { set, problems };
}

/** Default values checked against the control and value type; returns the values to store. */
function checkDefaults(
  defaults: unknown[],
  f: { control: ControlType; valueType: ValueType; allowed: string[] | null | undefined; options: unknown[] | null },
): { values: unknown[]; problems: ApiError[] } {
  const problems: ApiError[] = [];
  const values: unknown[] = [];
  const p = (i: number) => attr(`default_values/${i}`);
  if ((SINGLE_VALUE_CONTROL_TYPES.includes(f.control) || controlIn(RANGE_CONTROLS, f.control)) && defaults.length > 1) {
    return { values, problems: [invalid(attr('default_values'), `A ${f.control} filter has at most one default value.`)] };
  }
  defaults.forEach((v, i) => {
    try {
      values.push(defaultValue(v, f, p(i)));
    } catch (e) {
      problems.push(e instanceof ApiError ? e : invalid(p(i), String(e)));
    }
  });
  return { values, problems };
}

function defaultValue(
  v: unknown,
  f: { control: ControlType; valueType: ValueType; allowed: string[] | null | undefined; options: unknown[] | null },
  pointer: string,
): unknown {
  if (f.control === 'date_time_aggregation') {
    if (typeof v !== 'string' || !(AGGREGATIONS as readonly string[]).includes(v)) {
      throw invalid(pointer, `"${String(v)}" is not an aggregation; use one of ${AGGREGATIONS.join(', ')}.`);
    }
    if (f.allowed ? !f.allowed.includes(v) : v === 'all_time') {
      throw invalid(pointer, `"${v}" is not among the filter's allowed_aggregations${v === 'all_time' ? ' (all_time must be listed there)' : ''}.`);
    }
    return v;
  }
  if (controlIn(RANGE_CONTROLS, f.control)) return checkRange(v, f.control, pointer);
  if (f.control === 'checkbox' && v !== true && v !== 'true') throw invalid(pointer, 'A checkbox default can only be true (ticked).');
  if (v === null) throw invalid(pointer, 'A default value cannot be null.');
  const value = checkValue(v, f.valueType, pointer);
  if (f.options && !f.options.some((o) => JSON.stringify(o) === JSON.stringify(value))) {
    throw invalid(pointer, `"${String(v)}" is not one of the filter's values (dropdown_validate is on).`);
  }
  return value;
}
