/**
 * Relative date ranges of the filter bar ("last 7 days", "this month", "previous quarter"…), computed in
 * the dashboard's time zone at the moment the dashboard runs. Pure; the zone arithmetic is core's.
 *
 * Tokens, as they appear in the URL (`?f.order_date=last_30_days`):
 * - `today`, `yesterday`;
 * - `this_<unit>` and `previous_<unit>` (alias `last_<unit>`) for day, week (Monday), month, quarter, year:
 *   the whole calendar unit containing today, or the one before it;
 * - `last_<n>_<unit>s` for days, weeks, months (n units ending with the current one, today included) and
 *   hours (the last n × 60 minutes up to now; date-time ranges only).
 */
import { DAY_MS, addMonths, formatDay, fromWall, toWall, wallParts } from '@cairn/core/sql/time';

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

const UNITS: readonly RelativeUnit[] = ['hour', 'day', 'week', 'month', 'quarter', 'year'];
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

export function isRelativeToken(token: string): boolean {
  return parseRelative(token) !== null;
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

/** First day of the unit containing `day` (weeks start on Monday). */
function unitStart(day: number, unit: Exclude<RelativeUnit, 'hour'>): number {
  if (unit === 'day') return day;
  if (unit === 'week') {
    const weekday = (new Date(day * DAY_MS).getUTCDay() + 6) % 7; // Monday 0
    return day - weekday;
  }
  const p = wallParts(day * DAY_MS);
  const month = unit === 'month' ? p.month : unit === 'quarter' ? Math.floor((p.month - 1) / 3) * 3 + 1 : 1;
  return Math.round(Date.UTC(p.year, month - 1, 1) / DAY_MS);
}

/** Day after the last day of the unit starting at `start`. */
function unitEnd(start: number, unit: Exclude<RelativeUnit, 'hour'>, count = 1): number {
  if (unit === 'day') return start + count;
  if (unit === 'week') return start + 7 * count;
  const months = unit === 'month' ? 1 : unit === 'quarter' ? 3 : 12;
  return addMonths(start, months * count);
}

function shift(start: number, unit: Exclude<RelativeUnit, 'hour'>, count: number): number {
  if (unit === 'day') return start + count;
  if (unit === 'week') return start + 7 * count;
  const months = unit === 'month' ? 1 : unit === 'quarter' ? 3 : 12;
  return addMonths(start, months * count);
}

/** Resolves a relative token at `now` in `zone`; null when the token is not one. */
export function resolveRelative(token: string, now: number, zone: string): ResolvedRange | null {
  const r = parseRelative(token);
  if (!r) return null;
  if (r.unit === 'hour') {
    const endMs = Math.floor(now / 1000) * 1000;
    return { kind: 'instants', startMs: endMs - r.n * 3_600_000, endMs };
  }
  const today = localDay(now, zone);
  const current = unitStart(today, r.unit);
  if (r.kind === 'this') return { kind: 'days', startDay: current, endDay: unitEnd(current, r.unit) - 1 };
  if (r.kind === 'previous') {
    const start = shift(current, r.unit, -1);
    return { kind: 'days', startDay: start, endDay: current - 1 };
  }
  // last n units ending with the current one; for days that is today, for the others the whole current unit.
  if (r.unit === 'day') return { kind: 'days', startDay: today - (r.n - 1), endDay: today };
  const start = shift(current, r.unit, -(r.n - 1));
  return { kind: 'days', startDay: start, endDay: unitEnd(current, r.unit) - 1 };
}

/** `YYYY-MM-DD` of a day number. */
export const dayString = formatDay;

/** Day number of `YYYY-MM-DD`, or null. */
export function parseDayString(s: string): number | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (!m) return null;
  const ms = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  const d = new Date(ms);
  if (d.getUTCFullYear() !== Number(m[1]) || d.getUTCMonth() !== Number(m[2]) - 1 || d.getUTCDate() !== Number(m[3])) return null;
  return Math.round(ms / DAY_MS);
}

/** Unix seconds of local midnight starting `day` in `zone`. */
export function dayStartUnix(day: number, zone: string): number {
  return Math.floor(fromWall(zone, day * DAY_MS) / 1000);
}

/** Unix seconds of the last second (23:59:59 local) of `day` in `zone`: the inclusive end of a range. */
export function dayEndUnix(day: number, zone: string): number {
  return Math.floor(fromWall(zone, (day + 1) * DAY_MS) / 1000) - 1;
}

/** `YYYY-MM-DDTHH:MM` of an instant's wall clock in `zone` (for datetime-local inputs). */
export function wallInput(unix: number, zone: string): string {
  return new Date(toWall(zone, unix * 1000)).toISOString().slice(0, 16);
}

/** Unix seconds of a `YYYY-MM-DDTHH:MM[:SS]` wall clock in `zone`; null when malformed. */
export function wallToUnix(value: string, zone: string): number | null {
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/.exec(value);
  if (!m) return null;
  const day = parseDayString(m[1]!);
  const h = Number(m[2]), mi = Number(m[3]), s = Number(m[4] ?? 0);
  if (day === null || h > 23 || mi > 59 || s > 59) return null;
  return Math.floor(fromWall(zone, day * DAY_MS + ((h * 60 + mi) * 60 + s) * 1000) / 1000);
}

export { UNITS as RELATIVE_UNITS };
