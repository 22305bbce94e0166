/**
 * Dashboard filter values in the URL: `?f.<variable>=v1,v2` for value lists and
 * `?f.<variable>=<startUnix>~<endUnix>` for date ranges. A missing parameter leaves the filter unset.
 * Shared by the server (turning the URL into API input parameters) and the filter bar (writing the URL).
 */
export const FILTER_PREFIX = 'f.';

export interface FilterDef {
  variable_name: string;
  control_type: string;
}

export interface InputParameters {
  timerange?: string;
  aggregation?: string;
  filters?: { variable_name: string; selected_values: string[] }[];
}

const RANGE = /^(\d{1,12})?~(\d{1,12})?$/;

export function isRangeControl(controlType: string): boolean {
  return controlType.endsWith('_range');
}

/** Reads the filter values of the URL; values for filters the dashboard does not have are reported, not used. */
export function readFilterValues(
  search: URLSearchParams,
  defs: FilterDef[],
): { values: Record<string, string>; problems: string[] } {
  const byVariable = new Map(defs.map((d) => [d.variable_name, d]));
  const values: Record<string, string> = {};
  const problems: string[] = [];
  for (const [key, raw] of search) {
    if (!key.startsWith(FILTER_PREFIX)) continue;
    const variable = key.slice(FILTER_PREFIX.length);
    const def = byVariable.get(variable);
    const value = raw.trim();
    if (!def) {
      problems.push(`This dashboard has no filter named "${variable}"; its value was ignored.`);
      continue;
    }
    if (!value) continue;
    if (isRangeControl(def.control_type) && (!RANGE.test(value) || value === '~')) {
      problems.push(`The value of "${variable}" must look like <start>~<end> in unix seconds; it was ignored.`);
      continue;
    }
    if (isRangeControl(def.control_type)) {
      const [start, end] = value.split('~').map((v) => (v ? Number(v) : undefined));
      if (start !== undefined && end !== undefined && start > end) {
        problems.push(`The range of "${variable}" ends before it starts; it was ignored.`);
        continue;
      }
    }
    values[variable] = value;
  }
  return { values, problems };
}

/** Turns URL filter values into the API's input parameters. */
export function toParameters(values: Record<string, string>, defs: FilterDef[]): InputParameters {
  const params: InputParameters = {};
  const filters: { variable_name: string; selected_values: string[] }[] = [];
  for (const def of defs) {
    const value = values[def.variable_name];
    if (value === undefined) continue;
    if (def.variable_name === 'timerange') params.timerange = value;
    else if (def.variable_name === 'aggregation') params.aggregation = value;
    else if (isRangeControl(def.control_type)) filters.push({ variable_name: def.variable_name, selected_values: [value] });
    else {
      const selected = value.split(',').map((v) => v.trim()).filter(Boolean);
      if (selected.length) filters.push({ variable_name: def.variable_name, selected_values: selected });
    }
  }
  if (filters.length) params.filters = filters;
  return params;
}

/** `YYYY-MM-DD` (UTC midnight) ⇄ unix seconds, for `<input type="date">`. */
export function dateToUnix(date: string): number | null {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) return null;
  const ms = Date.parse(`${date}T00:00:00Z`);
  return Number.isFinite(ms) ? Math.floor(ms / 1000) : null;
}

export function unixToDate(unix: string | undefined): string {
  if (!unix || !/^\d+$/.test(unix)) return '';
  const d = new Date(Number(unix) * 1000);
  return Number.isNaN(d.getTime()) ? '' : d.toISOString().slice(0, 10);
}
