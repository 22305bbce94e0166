/**
 * Relative date ranges of the filter bar ("last 7 days", "this month", "previous quarter"…), computed in
 * the dashboard's time zone at the moment the dashboard runs, as they appear in the URL
 * (`?f.order_date=last_30_days`; the tokens are listed in core's sql/relative.ts), and the day and
 * wall-clock helpers of the range pickers. Pure; the zone arithmetic is core's.
 */
import { DAY_MS, formatDay, fromWall, toWall } from '@cairn/core/time';

// The resolver itself lives in core (relative.ts): the API resolves the same tokens in schedules and defaults.
export {
  RELATIVE_PRESETS,
  isRelativeToken,
  localDay,
  parseRelative,
  relativeLabel,
  resolveRelative,
} from '@cairn/core/sql/relative';

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
  const h = Number(m[2]),
    mi = Number(m[3]),
    s = Number(m[4] ?? 0);
  if (day === null || h > 23 || mi > 59 || s > 59) return null;
  return Math.floor(fromWall(zone, day * DAY_MS + ((h * 60 + mi) * 60 + s) * 1000) / 1000);
}
