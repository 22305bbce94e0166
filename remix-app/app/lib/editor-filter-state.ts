/**
 * The dashboard's filter values in force for the report editor, read from the URL exactly as the
 * dashboard reads them (lib/filters.ts): what the filter bar needs, the input parameters a query runs
 * with, and the filter part of the URL to carry back to the dashboard.
 */
import { dashboardZone } from './dashboard-view.ts';
import { buildFilterDefs } from './filters-defs.ts';
import {
  chosenTz,
  dashboardDefaultValues,
  effectiveValues,
  FILTER_PREFIX,
  offeredTimeZones,
  readUrlState,
  toParameters,
  TZ_PARAM,
  type FilterDef,
  type InputParameters,
} from './filters.ts';
import type { DashboardAttributes, SingleDocument } from './types.ts';

export interface EditorFilterState {
  defs: FilterDef[];
  /** The values in force, by variable ('' = unset). */
  values: Record<string, string>;
  /** Each filter's default in URL form (the filter bar leaves defaults out of the URL). */
  defaults: Record<string, string>;
  zone: string;
  timeZones: string[] | null;
  tz: string | null;
  applyImmediately: boolean;
  problems: string[];
  parameters: InputParameters;
  /** `?f.x=…&tz=…` (or ''): the filter part of the URL. */
  search: string;
}

export function editorFilterState(
  doc: SingleDocument<DashboardAttributes>,
  search: URLSearchParams,
  organizationZone: string,
  now = Date.now(),
): EditorFilterState {
  const a = doc.data.attributes;
  const defs = buildFilterDefs(doc);
  const tzConfig = a.time_zone_config ?? { type: 'organization' };
  const timeZones = offeredTimeZones(tzConfig);
  const read = readUrlState(search, defs, timeZones);
  const url = { ...read, tz: chosenTz(read, a.default_parameters, timeZones) };
  const dashboardDefaults = dashboardDefaultValues(defs, a.default_parameters);
  const effective = effectiveValues(defs, url.values, dashboardDefaults, {});
  const zone = dashboardZone(tzConfig, organizationZone, url.tz);
  const kept = new URLSearchParams();
  for (const [k, v] of search) if (k.startsWith(FILTER_PREFIX) || k === TZ_PARAM) kept.append(k, v);
  const qs = kept.toString();
  return {
    defs,
    values: effective.values,
    defaults: Object.fromEntries(defs.map((d) => [d.variable, dashboardDefaults[d.variable] ?? d.defaultValue])),
    zone,
    timeZones,
    tz: url.tz,
    applyImmediately: a.filters_configuration?.apply_immediately !== false,
    problems: [...url.problems, ...effective.notes],
    parameters: toParameters(defs, effective.values, { now, zone, tz: url.tz }),
    search: qs ? `?${qs}` : '',
  };
}
