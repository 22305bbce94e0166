/**
 * A scheduled e-mail's filter values as the dashboard's filter bar holds them, and back. A schedule keeps
 * only the values it sets itself (the rest follow the dashboard's defaults at send time), and a relative
 * range stays a token (`last_7_days`): the send resolves it in the schedule's time zone (deliver.ts
 * `sendParameters`), so it never turns into the dates it covers the day the form was saved. Pure.
 */
import { checkValue, encodeSelected, isRangeControl, toParameters, type FilterDef } from './filters.ts';
import { isRelativeToken } from './filters-range.ts';

type Entry = { variable_name: string; selected_values: unknown[] };

export interface ScheduleFilterValues {
  /** The schedule's own values in URL form, by variable ('' = unset although the dashboard has a default). */
  values: Record<string, string>;
  /** The stored parameters no control of the dashboard shows (kept as they are when saving). */
  rest: Record<string, unknown>;
}

/** Reads a schedule's `parameters` into the filter bar's values. */
export function scheduleFilterValues(defs: FilterDef[], parameters: Record<string, unknown> | null | undefined): ScheduleFilterValues {
  const values: Record<string, string> = {};
  const rest: Record<string, unknown> = {};
  const byVariable = new Map(defs.map((d) => [d.variable, d]));
  const keep = (def: FilterDef | undefined, selected: unknown[]): boolean => {
    if (!def) return false;
    const checked = checkValue(def, encodeSelected(def, selected));
    if (!('value' in checked)) return false;
    values[def.variable] = checked.value;
    return true;
  };
  for (const [key, v] of Object.entries(parameters ?? {})) {
    if (key === 'filters' && Array.isArray(v)) {
      const other = (v as Entry[]).filter((f) => {
        const def = f && typeof f.variable_name === 'string' ? byVariable.get(f.variable_name) : undefined;
        return !(def && !def.builtin && Array.isArray(f.selected_values) && keep(def, f.selected_values));
      });
      if (other.length) rest.filters = other;
    } else if ((key === 'timerange' || key === 'aggregation') && typeof v === 'string') {
      const def = byVariable.get(key);
      if (!(def?.builtin && keep(def, [v]))) rest[key] = v;
    } else {
      rest[key] = v;
    }
  }
  return { values, rest };
}

/**
 * The schedule's `parameters` from its own values (and the stored parts no control shows), in the API's
 * shape; relative ranges are written as their tokens. Null when there is nothing: the dashboard's defaults.
 */
export function scheduleParameters(defs: FilterDef[], values: Record<string, string>, rest: Record<string, unknown> = {}): Record<string, unknown> | null {
  const own = defs.filter((d) => d.variable in values);
  // The zone and "now" only matter to relative ranges, which are put back as tokens below.
  const built = toParameters(own, values, { now: 0, zone: 'UTC', tz: null }) as Record<string, unknown> & { filters?: Entry[] };
  const relative = (def: FilterDef) => isRangeControl(def.controlType) && isRelativeToken(values[def.variable] ?? '');
  for (const def of own.filter(relative)) {
    if (def.builtin) built.timerange = values[def.variable];
    else for (const f of built.filters ?? []) if (f.variable_name === def.variable) f.selected_values = [values[def.variable]];
  }
  const filters = [...((rest.filters as Entry[] | undefined) ?? []), ...(built.filters ?? [])];
  const out: Record<string, unknown> = { ...rest, ...built };
  if (filters.length) out.filters = filters;
  else delete out.filters;
  return Object.keys(out).length ? out : null;
}
