/**
 * Relative date ranges ("last 7 days", "this month", "previous quarter"…): the one resolver the filter
 * bar, the compiler (range filters and the built-in `timerange`), dashboard default_parameters and
 * scheduled e-mails share. A token is resolved at a moment (`now`) in a time zone; the answer is a
 * range with both ends included, as a filter bar writes it.
 *
 * Tokens:
 * - `today`, `yesterday`;
 * - `this_<unit>` and `previous_<unit>` (alias `last_<unit>`) for day, week (Monday), month, quarter, year:
 *   the whole calendar unit containing today, or the one before it;
 * - `last_<n>_<unit>s` for days, weeks, months (n units ending with the current one, today included) and
 *   hours (the last n × 60 minutes up to now; date-time ranges only).
 */
import { DAY_MS, addMonths, formatDay, toWall, wallParts } from '../time.ts';

export type RelativeUnit = 'hour' | 'day' | 'week' | 'month' | 'quarter' | 'year';

export interface RelativeRange {
  kind: 'this' | 'previous' | 'last';
  unit: RelativeUnit;
  /** Number of units (`last_n`); 1 for this/previous. */
  n: number;
}

/** A resolved range: whole days (inclusive day numbers) or, for hours, instants in milliseconds. */
export type ResolvedRange = { kind: 'days'; startDay: number; endDay: number } | { kind: 'instants'; startMs: number; endMs: number };

export interface RelativePreset {
  token: string;
  label: string;
  /** Only for date-time ranges (hours are meaningless on a date range). */
  timeOnly?: boolean;
}

export const RELATIVE_PRESETS: readonly RelativePreset[] = [
  { token: 'last_1_hours', label: 'Last hour', timeOnly: true },
  { token: 'last_24_hours', label: 'Last 24 hours', timeOnly: true },
  { token: 'today', label: 'Today' },
  { token: 'yesterday', label: 'Yesterday' },
  { token: 'last_7_days', label: 'Last 7 days' },
  { token: 'last_30_days', label: 'Last 30 days' },
  { token: 'last_90_days', label: 'Last 90 days' },
  { token: 'this_week', label: 'This week' },
  { token: 'previous_week', label: 'Previous week' },
  { token: 'this_month', label: 'This month' },
  { token: 'previous_month', label: 'Previous month' },
  { token: 'this_quarter', label: 'This quarter' },
  { token: 'previous_quarter', label: 'Previous quarter' },
  { token: 'last_12_months', label: 'Last 12 months' },
  { token: 'this_year', label: 'This year' },
  { token: 'previous_year', label: 'Previous year' },
];

export const RELATIVE_UNITS: readonly RelativeUnit[] = ['hour', 'day', 'week', 'month', 'quarter', 'year'];
const MAX_N = 10_000;

export function parseRelative(token: string): RelativeRange | null {
  const t = token.trim().toLowerCase();
  if (t === 'today') return { kind: 'this', unit: 'day', n: 1 };
  if (t === 'yesterday') return { kind: 'previous', unit: 'day', n: 1 };
  let m = /^(this|previous|last)_(day|week|month|quarter|year)$/.exec(t);
  if (m) return { kind: m[1] === 'this' ? 'this' : 'previous', unit: m[2] as RelativeUnit, n: 1 };
  m = /^last_(\d{1,5})_(hour|day|week|month)s$/.exec(t);
  if (m) {
    const n = Number(m[1]);
    if (n < 1 || n > MAX_N) return null;
    return { kind: 'last', unit: m[2] as RelativeUnit, n };
  }
  return null;
}

export function isRelativeToken(token: unknown): boolean {
  return typeof token === 'string' && parseRelative(token) !== null;
}

/** A readable name: the preset's label, or "Last 14 days" for other counts. */
export function relativeLabel(token: string): string {
  const preset = RELATIVE_PRESETS.find((p) => p.token === token);
  if (preset) return preset.label;
  const r = parseRelative(token);
  if (!r) return token;
  if (r.kind === 'last') return `Last ${r.n} ${r.unit}${r.n === 1 ? '' : 's'}`;
  return `${r.kind === 'this' ? 'This' : 'Previous'} ${r.unit}`;
}

/** Day number (days since 1970-01-01) of an instant's local date in `zone`. */
export function localDay(ms: number, zone: string): number {
  return Math.floor(toWall(zone, ms) / DAY_MS);
}

type DayUnit = Exclude<RelativeUnit, 'hour'>;

/** First day of the unit containing `day` (weeks start on Monday). */
function unitStart(day: number, unit: DayUnit): number {
  if (unit === 'day') return day;
  if (unit === 'week') {
    const weekday = (new Date(day * DAY_MS).getUTCDay() + 6) % 7; // Monday 0
    return day - weekday;
  }
  const p = wallParts(day * DAY_MS);
  const month = unit === 'month' ? p.month : unit === 'quarter' ? Math.floor((p.month - 1) / 3) * 3 + 1 : 1;
  return Math.round(Date.UTC(p.year, month - 1, 1) / DAY_MS);
}

/** `start` moved by `count` units (negative: back). */
function shift(start: number, unit: DayUnit, count: number): number {
  if (unit === 'day') return start + count;
  if (unit === 'week') return start + 7 * count;
  const months = unit === 'month' ? 1 : unit === 'quarter' ? 3 : 12;
  return addMonths(start, months * count);
}

/** Resolves a relative token at `now` (milliseconds) in `zone`; null when the token is not one. */
export function resolveRelative(token: string, now: number, zone: string): ResolvedRange | null {
  const r = parseRelative(token);
  if (!r) return null;
  if (r.unit === 'hour') {
    const endMs = Math.floor(now / 1000) * 1000;
    return { kind: 'instants', startMs: endMs - r.n * 3_600_000, endMs };
  }
  const today = localDay(now, zone);
  const current = unitStart(today, r.unit);
  if (r.kind === 'this') return { kind: 'days', startDay: current, endDay: shift(current, r.unit, 1) - 1 };
  if (r.kind === 'previous') return { kind: 'days', startDay: shift(current, r.unit, -1), endDay: current - 1 };
  // last n units ending with the current one; for days that is today, for the others the whole current unit.
  if (r.unit === 'day') return { kind: 'days', startDay: today - (r.n - 1), endDay: today };
  return { kind: 'days', startDay: shift(current, r.unit, -(r.n - 1)), endDay: shift(current, r.unit, 1) - 1 };
}

/**
 * A relative token as a range value with both ends included: `YYYY-MM-DD~YYYY-MM-DD` for whole days
 * (read in the zone the range is compiled in), `unix~unix` seconds for hours. null when `token` is not one.
 */
export function relativeRangeValue(token: string, now: number, zone: string): string | null {
  const resolved = resolveRelative(token, now, zone);
  if (!resolved) return null;
  if (resolved.kind === 'instants') return `${Math.floor(resolved.startMs / 1000)}~${Math.floor(resolved.endMs / 1000)}`;
  return `${formatDay(resolved.startDay)}~${formatDay(resolved.endDay)}`;
}

interface RangeParameters {
  timerange?: unknown;
  filters?: unknown;
}

/**
 * Parameters with every relative token of a range resolved at `now` in `zone`: the built-in `timerange`
 * and the selected value of the filters named in `rangeVariables` (date and date-time range filters).
 * Everything else is kept as it is; the input is not changed.
 */
export function resolveRelativeParameters<P extends RangeParameters>(parameters: P, rangeVariables: ReadonlySet<string>, now: number, zone: string): P {
  const one = (v: unknown) => (typeof v === 'string' && isRelativeToken(v) ? relativeRangeValue(v, now, zone)! : v);
  const out: P = { ...parameters };
  if (parameters.timerange !== undefined) out.timerange = one(parameters.timerange);
  if (Array.isArray(parameters.filters)) {
    out.filters = parameters.filters.map((f: unknown) => {
      if (!f || typeof f !== 'object') return f;
      const entry = f as { variable_name?: unknown; selected_values?: unknown };
      const name = entry.variable_name;
      const values = entry.selected_values;
      if (typeof name !== 'string' || !(rangeVariables.has(name) || name === 'timerange') || !Array.isArray(values) || values.length !== 1) return f;
      return { ...entry, selected_values: [one(values[0])] };
    });
  }
  return out;
}
