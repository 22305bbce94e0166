/**
 * Dashboard filter state: the URL (`?f.<variable>=…`), defaults, validation and the API's input
 * parameters. Pure and shared by the server (first render, first status call) and the filter bar.
 *
 * A filter's value is kept in its URL form, a string:
 * - lists (input_multi, the multi dropdowns): `v1,v2`;
 * - checkbox `true`; Yes/No/All `true` / `false`;
 * - date `YYYY-MM-DD`, time `HH:MM[:SS]`, date & time `YYYY-MM-DDTHH:MM` (dashboard zone) or unix seconds;
 * - ranges `start~end`, either side optional, both ends included: date ranges as days (unix seconds of the
 *   day's UTC midnight, as the bar writes them, or `YYYY-MM-DD`); date-time ranges and the built-in
 *   `timerange` as unix seconds (or dates); time ranges as times; or a relative token (`last_30_days`);
 * - aggregations by name.
 * A missing parameter means "the default"; an empty one (`f.country=`) means "unset" even when there is a default.
 */
import { AGGREGATIONS, type ControlType } from '@cairn/core/sql/params';
import { dayEndUnix, dayStartUnix, dayString, isRelativeToken, localDay, parseDayString, resolveRelative, wallToUnix } from './filters-range.ts';

export const FILTER_PREFIX = 'f.';
export const TZ_PARAM = 'tz';

/** The API's control types (core's vocabulary). */
export type { ControlType };

export interface FilterOption {
  value: string;
  label: string;
  /** The parent filter's value this option belongs to (dynamic dropdowns with a parent column). */
  parent?: string;
}

export interface FilterDef {
  /** The filter's id, or `builtin:timerange` / `builtin:aggregation`. */
  id: string;
  variable: string;
  label: string;
  controlType: ControlType;
  valueType: string;
  /** The built-in `timerange` / `aggregation` (top-level parameters, not filter entries). */
  builtin: boolean;
  required: boolean;
  /** default_values in URL form ('' = none). */
  defaultValue: string;
  validate: boolean;
  defaultToFirst: boolean;
  ranges: { relative: boolean; before: boolean; after: boolean; fromTo: boolean };
  allowedAggregations: string[] | null;
  /** Variable of the parent filter (dynamic dropdowns). */
  parent: string | null;
  /** Options of manual dropdowns; null for query-driven ones (they come with the status call). */
  manualOptions: FilterOption[] | null;
  /** Options come from the filter's query (status `filters` entries). */
  queryOptions: boolean;
  /** Applied with its default but not shown (filters_configuration.hidden_parameters). */
  hidden: boolean;
  /** Set by a signed sharing-link address: shown with its value, never changeable (unset: false). */
  fixed?: boolean;
}

export interface InputParameters {
  timerange?: string;
  aggregation?: string;
  tz?: string;
  filters?: { variable_name: string; selected_values: (string | boolean)[] }[];
}

const RANGE_CONTROLS = new Set<ControlType>(['date_range', 'date_time_range', 'time_range']);
const LIST_CONTROLS = new Set<ControlType>(['input_multi', 'dropdown_multi', 'dropdown_multi_dynamic', 'dropdown_multi_manual']);
const DROPDOWNS = new Set<ControlType>([
  'dropdown',
  'dropdown_multi',
  'dropdown_dynamic',
  'dropdown_multi_dynamic',
  'dropdown_manual',
  'dropdown_multi_manual',
]);

export const isRangeControl = (c: ControlType) => RANGE_CONTROLS.has(c);
export const isListControl = (c: ControlType) => LIST_CONTROLS.has(c);
export const isDropdown = (c: ControlType) => DROPDOWNS.has(c);

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const TIME = /^([01]\d|2[0-3]):[0-5]\d(:[0-5]\d)?$/;
const UNIX = /^-?\d{1,12}$/;
const LOCAL_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/;
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/i;
const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/** Splits a list value; empty entries are dropped. */
export function splitList(value: string): string[] {
  return value
    .split(',')
    .map((v) => v.trim())
    .filter((v) => v !== '');
}

/** How messages name a filter: its label, and the URL variable when that differs. */
function describe(def: FilterDef) {
  return def.label === def.variable ? `"${def.label}"` : `"${def.label}" (f.${def.variable})`;
}

/** The side of a range as a comparable number (unix seconds, day number or seconds of the day), or null when malformed. */
function rangeSide(def: FilterDef, side: string): number | null {
  if (def.controlType === 'time_range') {
    if (!TIME.test(side)) return null;
    const [h, m, s] = side.split(':').map(Number);
    return h! * 3600 + m! * 60 + (s ?? 0);
  }
  if (UNIX.test(side)) return def.controlType === 'date_range' ? Math.floor(Number(side) / 86_400) : Number(side);
  if (DATE.test(side)) {
    const day = parseDayString(side);
    if (day === null) return null;
    return def.controlType === 'date_range' ? day : day * 86_400;
  }
  if (def.controlType !== 'date_range' && ISO_DATE_TIME.test(side)) {
    const ms = Date.parse(/[zZ]|[+-]\d{2}:?\d{2}$/.test(side) ? side : `${side.replace(' ', 'T')}Z`);
    return Number.isFinite(ms) ? Math.floor(ms / 1000) : null;
  }
  return null;
}

/** Checks one URL value; returns the value to keep ('' = unset) or the reason it was ignored. */
export function checkValue(def: FilterDef, raw: string): { value: string } | { problem: string } {
  const value = raw.trim();
  if (value === '') return { value: '' };
  const c = def.controlType;
  const name = describe(def);
  if (isRangeControl(c)) {
    if (isRelativeToken(value)) {
      if (c === 'time_range') return { problem: `${name} takes a window of the day, not "${value}"; it was ignored.` };
      if (!def.ranges.relative) return { problem: `${name} does not offer relative ranges such as "${value}"; it was ignored.` };
      if (c === 'date_range' && value.endsWith('_hours')) return { problem: `${name} is a range of days; "${value}" was ignored.` };
      return { value };
    }
    const parts = value.split('~');
    if (parts.length !== 2 || (parts[0] === '' && parts[1] === '')) {
      return { problem: `The value of ${name} must look like <start>~<end> or name a relative range (such as last_30_days); "${value}" was ignored.` };
    }
    const a = parts[0] === '' ? null : rangeSide(def, parts[0]!);
    const b = parts[1] === '' ? null : rangeSide(def, parts[1]!);
    if ((parts[0] !== '' && a === null) || (parts[1] !== '' && b === null)) {
      const what = c === 'time_range' ? 'times (HH:MM)' : c === 'date_range' ? 'days (YYYY-MM-DD or unix seconds)' : 'unix seconds or dates';
      return { problem: `The range of ${name} must be written with ${what}; "${value}" was ignored.` };
    }
    if (a !== null && b !== null && a > b) return { problem: `The range of ${name} ends before it starts; it was ignored.` };
    if (a !== null && b !== null && !def.ranges.fromTo) return { problem: `${name} does not offer from–to ranges; it was ignored.` };
    if (a === null && !def.ranges.before) return { problem: `${name} does not offer "before" ranges; it was ignored.` };
    if (b === null && !def.ranges.after) return { problem: `${name} does not offer "from … on" ranges; it was ignored.` };
    return { value };
  }
  switch (c) {
    case 'checkbox':
      if (value === 'true') return { value };
      if (value === 'false') return { value: '' };
      return { problem: `${name} is a checkbox: use true, or leave it out; "${value}" was ignored.` };
    case 'checkbox_two_way':
      if (value === 'true' || value === 'false') return { value };
      return { problem: `${name} takes true or false; "${value}" was ignored.` };
    case 'date':
      return DATE.test(value) && parseDayString(value) !== null ? { value } : { problem: `${name} takes a date (YYYY-MM-DD); "${value}" was ignored.` };
    case 'time':
      return TIME.test(value) ? { value } : { problem: `${name} takes a time (HH:MM); "${value}" was ignored.` };
    case 'date_time':
      return UNIX.test(value) || ISO_DATE_TIME.test(value)
        ? { value }
        : { problem: `${name} takes a date and time (YYYY-MM-DDTHH:MM or unix seconds); "${value}" was ignored.` };
    case 'date_time_aggregation': {
      const allowed = aggregationChoices(def);
      return allowed.includes(value) ? { value } : { problem: `${name} offers ${allowed.join(', ')}; "${value}" was ignored.` };
    }
    default: {
      const values = isListControl(c) ? splitList(value) : [value];
      if (def.valueType === 'NUMBER') {
        const bad = values.find((v) => !NUMBER.test(v));
        if (bad !== undefined) return { problem: `${name} takes numbers; "${bad}" was ignored.` };
      }
      if (def.valueType === 'BOOLEAN') {
        const bad = values.find((v) => v !== 'true' && v !== 'false');
        if (bad !== undefined) return { problem: `${name} takes true or false; "${bad}" was ignored.` };
      }
      return { value: isListControl(c) ? values.join(',') : value };
    }
  }
}

/** The aggregations an aggregation control offers (all_time only when listed). */
export function aggregationChoices(def: FilterDef): string[] {
  if (def.allowedAggregations?.length) return def.allowedAggregations.filter((a) => (AGGREGATIONS as readonly string[]).includes(a));
  return AGGREGATIONS.filter((a) => a !== 'all_time');
}

export interface UrlState {
  /** Values given in the URL ('' = explicitly unset). */
  values: Record<string, string>;
  /** The `tz` the viewer chose, when given. */
  tz: string | null;
  problems: string[];
}

/**
 * The zones a viewer may choose from (time_zone_config type `input`): the allowed list, or every zone the
 * browser knows when the list is empty (the API then takes any zone). null: the dashboard offers no choice.
 */
export function offeredTimeZones(config: { type?: string; allowed_time_zones?: string[] | null } | null | undefined): string[] | null {
  if (config?.type !== 'input') return null;
  if (config.allowed_time_zones?.length) return config.allowed_time_zones;
  const all = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
  return all.includes('UTC') ? all : ['UTC', ...all];
}

/** The zone a dashboard opens with: the URL's `tz`, else its default_parameters' `tz` when the viewer may choose it. */
export function chosenTz(url: UrlState, defaults: { tz?: unknown } | null | undefined, zones: string[] | null): string | null {
  if (url.tz) return url.tz;
  const tz = defaults?.tz;
  return typeof tz === 'string' && zones?.includes(tz) ? tz : null;
}

/** Reads the filter values of a URL; values of unknown filters and malformed values are reported, not used. */
export function readUrlState(search: URLSearchParams, defs: FilterDef[], allowedZones: string[] | null = null): UrlState {
  const byVariable = new Map(defs.map((d) => [d.variable, d]));
  const values: Record<string, string> = {};
  const problems: string[] = [];
  for (const [key, raw] of search) {
    if (!key.startsWith(FILTER_PREFIX)) continue;
    const variable = key.slice(FILTER_PREFIX.length);
    const def = byVariable.get(variable);
    if (!def) {
      problems.push(`This dashboard has no filter named "${variable}"; its value was ignored.`);
      continue;
    }
    const checked = checkValue(def, raw);
    if ('problem' in checked) problems.push(checked.problem);
    else values[variable] = checked.value;
  }
  let tz = search.get(TZ_PARAM);
  if (tz !== null && allowedZones !== null && !allowedZones.includes(tz)) {
    problems.push(`This dashboard does not offer the time zone "${tz}"; it was ignored.`);
    tz = null;
  }
  if (allowedZones === null) tz = null;
  return { values, tz: tz || null, problems };
}

export interface Effective {
  /** Every filter's value in force ('' = unset). */
  values: Record<string, string>;
  /** Notes about values that were dropped (dropdown validation). */
  notes: string[];
  /** Required filters without a value. */
  missing: FilterDef[];
}

/**
 * The values in force: the URL's, else the dashboard's default parameters, else the filter's
 * default_values; then dropdown validation and default-to-first against the known options.
 */
export function effectiveValues(
  defs: FilterDef[],
  url: Record<string, string>,
  dashboardDefaults: Record<string, string>,
  options: Record<string, FilterOption[] | undefined>,
): Effective {
  const values: Record<string, string> = {};
  const notes: string[] = [];
  const missing: FilterDef[] = [];
  for (const def of defs) {
    let value = url[def.variable] ?? dashboardDefaults[def.variable] ?? def.defaultValue;
    const opts = def.manualOptions ?? options[def.variable];
    if (isDropdown(def.controlType) && opts) {
      const known = new Set(opts.map((o) => o.value));
      if (def.validate && value !== '') {
        const list = isListControl(def.controlType) ? splitList(value) : [value];
        const kept = list.filter((v) => known.has(v));
        if (kept.length < list.length) {
          const dropped = list.filter((v) => !known.has(v));
          notes.push(`${describe(def)} accepts only its options; ${dropped.map((d) => `"${d}"`).join(', ')} ${dropped.length === 1 ? 'was' : 'were'} ignored.`);
        }
        value = kept.join(',');
      }
      if (value === '' && def.defaultToFirst && url[def.variable] === undefined && opts.length > 0) value = opts[0]!.value;
    }
    if (value === '' && def.required) missing.push(def);
    values[def.variable] = value;
  }
  return { values, notes, missing };
}

export interface ParameterContext {
  /** Now, in milliseconds (relative ranges). */
  now: number;
  /** The dashboard's time zone (relative ranges, date pickers). */
  zone: string;
  /** The viewer's time zone choice, when the dashboard offers one. */
  tz: string | null;
}

/** A range value as the compiler expects it (both ends included): relative tokens resolved, date-range days as dates. */
function rangeParameter(def: FilterDef, value: string, ctx: ParameterContext): string {
  const resolved = resolveRelative(value, ctx.now, ctx.zone);
  if (resolved) {
    if (resolved.kind === 'instants') return `${Math.floor(resolved.startMs / 1000)}~${Math.floor(resolved.endMs / 1000)}`;
    return `${dayString(resolved.startDay)}~${dayString(resolved.endDay)}`;
  }
  if (def.controlType !== 'date_range') return value;
  // Day sides written as unix seconds are the day's UTC midnight: name the day itself, whatever the zone.
  return value
    .split('~')
    .map((side) => (UNIX.test(side) ? dayString(Math.floor(Number(side) / 86_400)) : side))
    .join('~');
}

/** The API's input parameters for the values in force. Explicitly unset filters are sent empty (to override defaults). */
export function toParameters(defs: FilterDef[], values: Record<string, string>, ctx: ParameterContext): InputParameters {
  const params: InputParameters = {};
  const filters: NonNullable<InputParameters['filters']> = [];
  for (const def of defs) {
    const value = values[def.variable] ?? '';
    if (def.builtin) {
      if (def.variable === 'timerange') params.timerange = value ? rangeParameter(def, value, ctx) : '';
      else if (def.variable === 'aggregation' && value) params.aggregation = value;
      continue;
    }
    let selected: (string | boolean)[];
    if (value === '') selected = [];
    else if (isRangeControl(def.controlType)) selected = [rangeParameter(def, value, ctx)];
    else if (def.controlType === 'checkbox' || def.controlType === 'checkbox_two_way') selected = [value === 'true'];
    else if (def.controlType === 'date_time' && LOCAL_DATE_TIME.test(value)) selected = [value];
    else if (isListControl(def.controlType)) selected = splitList(value);
    else selected = [value];
    filters.push({ variable_name: def.variable, selected_values: selected });
  }
  if (filters.length) params.filters = filters;
  if (ctx.tz) params.tz = ctx.tz;
  if (params.timerange === '') delete params.timerange;
  return params;
}

/** A value of the API's default_parameters / default_values in URL form. */
export function encodeSelected(def: FilterDef, selected: readonly unknown[] | null | undefined): string {
  if (!selected || selected.length === 0) return '';
  const str = (v: unknown) => (v === null || v === undefined ? '' : String(v));
  if (isRangeControl(def.controlType)) return selected.length === 2 ? `${str(selected[0])}~${str(selected[1])}` : str(selected[0]);
  if (def.controlType === 'checkbox') return selected[0] === true || selected[0] === 'true' ? 'true' : '';
  if (isListControl(def.controlType)) return selected.map(str).filter(Boolean).join(',');
  return str(selected[0]);
}

/** The dashboard's default_parameters as URL-form values by variable. */
export function dashboardDefaultValues(
  defs: FilterDef[],
  defaults: { timerange?: unknown; aggregation?: unknown; filters?: { variable_name?: unknown; selected_values?: unknown }[] } | null | undefined,
): Record<string, string> {
  const out: Record<string, string> = {};
  if (!defaults) return out;
  for (const def of defs) {
    if (def.builtin) {
      const v = def.variable === 'timerange' ? defaults.timerange : defaults.aggregation;
      if (typeof v === 'string') out[def.variable] = v;
      continue;
    }
    const entry = (defaults.filters ?? []).find((f) => f.variable_name === def.variable);
    if (entry && Array.isArray(entry.selected_values)) {
      const checked = checkValue(def, encodeSelected(def, entry.selected_values));
      if ('value' in checked) out[def.variable] = checked.value;
    }
  }
  return out;
}

/** Encodes one value for the URL, keeping `,`, `~` and `:` readable. */
function encodeValue(v: string): string {
  return encodeURIComponent(v).replace(/%2C/gi, ',').replace(/%3A/gi, ':');
}

/**
 * The search string after changing some filters: a value equal to the filter's default leaves the URL
 * (so links stay short), anything else is written, '' included (unset despite a default).
 */
export function withFilterValues(search: string, changes: Record<string, string>, defaults: Record<string, string>, tz?: string | null): string {
  const current = new URLSearchParams(search);
  const kept: [string, string][] = [];
  const filterValues = new Map<string, string>();
  for (const [k, v] of current) {
    if (k.startsWith(FILTER_PREFIX)) filterValues.set(k.slice(FILTER_PREFIX.length), v);
    else if (!(k === TZ_PARAM && tz !== undefined)) kept.push([k, v]);
  }
  for (const [variable, value] of Object.entries(changes)) {
    if (value === (defaults[variable] ?? '')) filterValues.delete(variable);
    else filterValues.set(variable, value);
  }
  const parts = kept.map(([k, v]) => `${encodeURIComponent(k)}=${encodeValue(v)}`);
  for (const [variable, value] of filterValues) parts.push(`${FILTER_PREFIX}${encodeURIComponent(variable)}=${encodeValue(value)}`);
  if (tz) parts.push(`${TZ_PARAM}=${encodeValue(tz)}`);
  return parts.length ? `?${parts.join('&')}` : '';
}

/** Unix seconds for a range picked as days: start at local midnight, end at 23:59:59 local (inclusive). */
export function daysToInstantRange(startDay: string, endDay: string, zone: string): string {
  const s = startDay ? parseDayString(startDay) : null;
  const e = endDay ? parseDayString(endDay) : null;
  return `${s === null ? '' : dayStartUnix(s, zone)}~${e === null ? '' : dayEndUnix(e, zone)}`;
}

/** Unix seconds of a day's UTC midnight (how date ranges are written in the URL). */
export function dayToUnix(day: string): string {
  const d = parseDayString(day);
  return d === null ? '' : String(d * 86_400);
}

/** The day (YYYY-MM-DD) a date-range side names, or ''. */
export function sideToDay(side: string | undefined, zone: string, instant: boolean): string {
  if (!side) return '';
  if (DATE.test(side)) return side;
  if (UNIX.test(side)) return dayString(instant ? localDay(Number(side) * 1000, zone) : Math.floor(Number(side) / 86_400));
  const local = LOCAL_DATE_TIME.test(side) ? wallToUnix(side.slice(0, 16), zone) : null;
  return local === null ? '' : dayString(localDay(local * 1000, zone));
}
