/**
 * "Save as default" on the dashboard page: the filter values now in effect as the dashboard's
 * default_parameters, and the address without the f.* / tz values once they are the defaults. Pure.
 */
import { FILTER_PREFIX, toParameters, TZ_PARAM, type FilterDef, type InputParameters, type ParameterContext } from './filters';

/**
 * The values in force (URL form, by variable) as default_parameters: the parameters the page sends
 * (`toParameters`, so ranges are resolved the way the API reads them: a relative range is saved as the
 * dates it covers now), without the filters that have no value (no default for them).
 */
export function defaultParametersFor(defs: FilterDef[], values: Record<string, string>, ctx: ParameterContext): InputParameters {
  const params = toParameters(defs, values, ctx);
  const filters = (params.filters ?? []).filter((f) => f.selected_values.length > 0);
  const { filters: _all, ...rest } = params;
  return filters.length ? { ...rest, filters } : rest;
}

/** The query string without filter values and time zone (`?…` or ''). */
export function withoutFilterValues(search: string): string {
  const kept = new URLSearchParams(search);
  for (const k of [...kept.keys()]) if (k.startsWith(FILTER_PREFIX) || k === TZ_PARAM) kept.delete(k);
  const qs = kept.toString();
  return qs ? `?${qs}` : '';
}
