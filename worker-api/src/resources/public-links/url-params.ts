/**
 * Filter values in a sharing link's URL, in the format of the app's dashboard URLs
 * (docs: /embedding/parameters-in-urls): `f.<variable>=v1,v2` for values, `f.<variable>=start~end`
 * (unix seconds, either side optional) for range controls and the built-in `timerange`, and
 * `f.aggregation=<unit>`. Values for variables the dashboard does not have, malformed ranges and values
 * that do not fit their filter's value type are reported (each a problem naming its URL parameter)
 * and left out: on an unsigned URL that is a notice, on a signed one the link refuses to open
 * (access.ts). Values reach SQL only as bound parameters (the engine's compiler).
 */
import { AGGREGATIONS, ApiError, type InputParameters } from '@cairn/core';
import { coerce } from '@cairn/core/sql/values';

export const FILTER_PREFIX = 'f.';
const RANGE = /^(\d{1,12})?~(\d{1,12})?$/;
const BUILT_IN = new Set(['timerange', 'aggregation']);

export interface FilterDef {
  variable_name: string;
  control_type: string;
  value_type?: string;
}
/** One value the URL set that was left out: its URL parameter (`f.<variable>`) and why. */
export interface UrlProblem {
  parameter: string;
  detail: string;
}
type Selection = NonNullable<InputParameters['filters']>[number];

const isRange = (controlType: string) => controlType.endsWith('_range');

function rangeProblem(variable: string, value: string): string | null {
  if (!RANGE.test(value) || value === '~') return `The value of "${variable}" must look like <start>~<end> in unix seconds; it was ignored.`;
  const [start, end] = value.split('~').map((v) => (v ? Number(v) : undefined));
  if (start !== undefined && end !== undefined && start > end) return `The range of "${variable}" ends before it starts; it was ignored.`;
  return null;
}

/** Why a list value does not fit the filter's value type (aggregation controls: an aggregation name), or null. */
function valueProblem(def: FilterDef, variable: string, value: string): string | null {
  if (def.control_type === 'date_time_aggregation') {
    return (AGGREGATIONS as readonly string[]).includes(value) ? null : `"${value}" is not an aggregation (${AGGREGATIONS.join(', ')}); it was ignored.`;
  }
  const type = def.control_type.startsWith('checkbox') ? 'BOOLEAN' : (def.value_type ?? 'TEXT');
  try {
    // Only whether the value reads as its type; the run reads it again in the dashboard's zone.
    coerce(value, type, { filter: variable, pointer: '' }, { zone: 'UTC', dataZone: 'UTC' });
    return null;
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    return `The value "${value}" of "${variable}" is not a ${type} value; it was ignored.`;
  }
}

/** The parameters a URL sets, the variables it set, and what was ignored and why. */
export function parametersFromQuery(params: URLSearchParams, defs: FilterDef[]): { parameters: InputParameters; variables: string[]; problems: UrlProblem[] } {
  const byVariable = new Map(defs.map((d) => [d.variable_name, d]));
  const parameters: InputParameters = {};
  const filters: Selection[] = [];
  const variables: string[] = [];
  const problems: UrlProblem[] = [];
  for (const [key, raw] of params) {
    if (!key.startsWith(FILTER_PREFIX)) continue;
    const variable = key.slice(FILTER_PREFIX.length);
    const value = raw.trim();
    const def = byVariable.get(variable);
    const problem = (detail: string) => problems.push({ parameter: key, detail });
    if (!def && !BUILT_IN.has(variable)) {
      problem(`This dashboard has no filter named "${variable}"; its value was ignored.`);
      continue;
    }
    if (!value || variables.includes(variable)) continue;
    if (variable === 'timerange' || (def && isRange(def.control_type))) {
      const bad = rangeProblem(variable, value);
      if (bad) {
        problem(bad);
        continue;
      }
    }
    if (variable === 'aggregation' && !def && !(AGGREGATIONS as readonly string[]).includes(value)) {
      problem(`"${value}" is not an aggregation (${AGGREGATIONS.join(', ')}); it was ignored.`);
      continue;
    }
    const listed = def && !isRange(def.control_type);
    const selected = listed
      ? value
          .split(',')
          .map((v) => v.trim())
          .filter(Boolean)
      : [];
    const bad = listed ? selected.map((v) => valueProblem(def, variable, v)).filter((p): p is string => p !== null) : [];
    if (bad.length) {
      bad.forEach((b) => problem(b));
      continue;
    }
    variables.push(variable);
    if (variable === 'timerange' && !def) parameters.timerange = value;
    else if (variable === 'aggregation' && !def) parameters.aggregation = value;
    else if (!listed) filters.push({ variable_name: variable, selected_values: [value] });
    else if (selected.length) filters.push({ variable_name: variable, selected_values: selected });
  }
  if (filters.length) parameters.filters = filters;
  return { parameters, variables, problems };
}

/** `base` with every variable of `fixed` replaced by the fixed value (fixed wins). */
export function overlay(base: InputParameters, fixed: InputParameters): InputParameters {
  const out: InputParameters = { ...base };
  if (fixed.timerange !== undefined) out.timerange = fixed.timerange;
  if (fixed.aggregation !== undefined) out.aggregation = fixed.aggregation;
  if (fixed.tz !== undefined) out.tz = fixed.tz;
  const byName = new Map((base.filters ?? []).map((f) => [f.variable_name, f]));
  for (const f of fixed.filters ?? []) byName.set(f.variable_name, f);
  if (byName.size) out.filters = [...byName.values()];
  return out;
}
