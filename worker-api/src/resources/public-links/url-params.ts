/**
 * Filter values in a sharing link's URL, in the format of the app's dashboard URLs
 * (docs: /embedding/parameters-in-urls): `f.<variable>=v1,v2` for values, `f.<variable>=start~end`
 * (unix seconds, either side optional) for range controls and the built-in `timerange`, and
 * `f.aggregation=<unit>`. Values for variables the dashboard does not have, and malformed ranges, are
 * reported and left out. Values reach SQL only as bound parameters (the engine's compiler).
 */
import { AGGREGATIONS, type InputParameters } from '@cairn/core';

export const FILTER_PREFIX = 'f.';
const RANGE = /^(\d{1,12})?~(\d{1,12})?$/;
const BUILT_IN = new Set(['timerange', 'aggregation']);

export interface FilterDef { variable_name: string; control_type: string }
type Selection = NonNullable<InputParameters['filters']>[number];

const isRange = (controlType: string) => controlType.endsWith('_range');

function rangeProblem(variable: string, value: string): string | null {
  if (!RANGE.test(value) || value === '~') return `The value of "${variable}" must look like <start>~<end> in unix seconds; it was ignored.`;
  const [start, end] = value.split('~').map((v) => (v ? Number(v) : undefined));
  if (start !== undefined && end !== undefined && start > end) return `The range of "${variable}" ends before it starts; it was ignored.`;
  return null;
}

/** The parameters a URL sets, the variables it set, and what was ignored and why. */
export function parametersFromQuery(params: URLSearchParams, defs: FilterDef[]): { parameters: InputParameters; variables: string[]; problems: string[] } {
  const byVariable = new Map(defs.map((d) => [d.variable_name, d]));
  const parameters: InputParameters = {};
  const filters: Selection[] = [];
  const variables: string[] = [];
  const problems: string[] = [];
  for (const [key, raw] of params) {
    if (!key.startsWith(FILTER_PREFIX)) continue;
    const variable = key.slice(FILTER_PREFIX.length);
    const value = raw.trim();
    const def = byVariable.get(variable);
    if (!def && !BUILT_IN.has(variable)) {
      problems.push(`This dashboard has no filter named "${variable}"; its value was ignored.`);
      continue;
    }
    if (!value || variables.includes(variable)) continue;
    if (variable === 'timerange' || (def && isRange(def.control_type))) {
      const problem = rangeProblem(variable, value);
      if (problem) {
        problems.push(problem);
        continue;
      }
    }
    if (variable === 'aggregation' && !def && !(AGGREGATIONS as readonly string[]).includes(value)) {
      problems.push(`"${value}" is not an aggregation (${AGGREGATIONS.join(', ')}); it was ignored.`);
      continue;
    }
    variables.push(variable);
    if (variable === 'timerange' && !def) parameters.timerange = value;
    else if (variable === 'aggregation' && !def) parameters.aggregation = value;
    else if (def && isRange(def.control_type)) filters.push({ variable_name: variable, selected_values: [value] });
    else {
      const selected = value.split(',').map((v) => v.trim()).filter(Boolean);
      if (selected.length) filters.push({ variable_name: variable, selected_values: selected });
    }
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
