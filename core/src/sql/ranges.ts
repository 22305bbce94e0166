/**
 * Date, date-time and time-of-day ranges: parsing a selection (`start~end`, either side optional) into
 * half-open bounds [start, end), and the neighbouring ranges for `.previous` / `.next`.
 *
 * Ends are inclusive as selected and exclusive once parsed, at the next unit: a date range ending
 * 2024-01-31 ends before 2024-02-01; a date-time range ending 23:59:59 (or a unix time) ends one
 * second later; one ending on a bare date ends at the next local midnight; a time range ending 13:59:59
 * ends before 14:00:00.
 */
import { relativeRangeValue, isRelativeToken, parseRelative } from './relative.ts';
import { DAY_MS, addMonths, fromWall, toWall, wallParts } from '../time.ts';
import { invalid, parseDay, parseInstant, parseTimeOfDay, show, type Origin, type TimeContext } from './values.ts';

export type RangeType = 'instant' | 'date' | 'time';

/**
 * Bounds by type: instant → UTC milliseconds; date → day numbers; time → seconds since midnight
 * (0 … 86400). null is an open side. `empty` marks a range with nothing in it (a neighbour past an open end).
 */
export interface Range {
  type: RangeType;
  start: number | null;
  end: number | null;
  empty?: boolean;
}

const isOpen = (v: unknown) => v === null || v === undefined || (typeof v === 'string' && v.trim() === '');

/** Splits a selection into its two sides: "a~b", ["a~b"] or [a, b]. */
function sides(raw: unknown, origin: Origin): [unknown, unknown] {
  if (Array.isArray(raw)) {
    if (raw.length === 1) return sides(raw[0], origin);
    if (raw.length === 2) return [raw[0], raw[1]];
  } else if (typeof raw === 'string') {
    const parts = raw.split('~');
    if (parts.length === 2) return [parts[0], parts[1]];
  }
  throw invalid(origin, `a range is written "start~end" or as two values (either side may be empty); got ${show(raw)}.`);
}

export function parseRange(raw: unknown, type: RangeType, origin: Origin, time: TimeContext): Range {
  const token = Array.isArray(raw) && raw.length === 1 ? raw[0] : raw;
  if (type !== 'time' && typeof token === 'string' && isRelativeToken(token)) {
    // A relative range ("last_7_days") is resolved now, in the zone the range is read in (relative.ts).
    if (type === 'date' && parseRelative(token)!.unit === 'hour') throw invalid(origin, `a range of days cannot be ${show(token)}.`);
    raw = relativeRangeValue(token, time.now ?? Date.now(), time.zone);
  }
  const [a, b] = sides(raw, origin);
  let start: number | null = null;
  let end: number | null = null;
  if (type === 'instant') {
    if (!isOpen(a)) start = parseInstant(a, origin, time).ms;
    if (!isOpen(b)) {
      const p = parseInstant(b, origin, time);
      end = p.dateOnly ? fromWall(time.zone, (Math.floor(toWall(time.zone, p.ms) / DAY_MS) + 1) * DAY_MS) : Math.floor(p.ms / 1000) * 1000 + 1000;
    }
  } else if (type === 'date') {
    if (!isOpen(a)) start = parseDay(a, origin, time);
    if (!isOpen(b)) end = parseDay(b, origin, time) + 1;
  } else {
    if (!isOpen(a)) start = parseTimeOfDay(a, origin);
    if (!isOpen(b)) end = parseTimeOfDay(b, origin) + 1;
  }
  if (start !== null && end !== null && start >= end) throw invalid(origin, 'the range ends before it starts.');
  return { type, start, end };
}

/** The neighbouring range before or after, of the same length (see neighbourBounds). */
export function neighbour(range: Range, direction: 'previous' | 'next', zone: string): Range {
  const { start: s, end: e } = range;
  if (range.empty || (s === null && e === null)) return range;
  const prev = direction === 'previous';
  if (s === null) return prev ? { ...range, empty: true } : { type: range.type, start: e, end: null };
  if (e === null) return prev ? { type: range.type, start: null, end: s } : { ...range, empty: true };
  const [a, b] = neighbourBounds(range.type, s, e, prev, zone);
  if (a >= b) return { ...range, empty: true };
  return { type: range.type, start: a, end: b };
}

/**
 * Bounds of the neighbour of [s, e):
 * - whole calendar months (both ends at the first of a month, at local midnight): as many months;
 * - whole days (both ends at local midnight): as many calendar days (so a 23-hour DST day's neighbour
 *   is a whole day too);
 * - otherwise: the same duration. Time-of-day ranges stay inside the day.
 */
function neighbourBounds(type: RangeType, s: number, e: number, prev: boolean, zone: string): [number, number] {
  if (type === 'time') {
    const len = e - s;
    return prev ? [Math.max(0, s - len), s] : [e, Math.min(86_400, e + len)];
  }
  let ds: number, de: number;
  if (type === 'date') {
    ds = s;
    de = e;
  } else {
    const ws = toWall(zone, s),
      we = toWall(zone, e);
    if (ws % DAY_MS !== 0 || we % DAY_MS !== 0) {
      const len = e - s;
      return prev ? [s - len, s] : [e, e + len];
    }
    ds = ws / DAY_MS;
    de = we / DAY_MS;
  }
  let nd: number;
  const fs = wallParts(ds * DAY_MS),
    fe = wallParts(de * DAY_MS);
  if (fs.day === 1 && fe.day === 1) {
    const months = fe.year * 12 + fe.month - (fs.year * 12 + fs.month);
    nd = prev ? addMonths(ds, -months) : addMonths(de, months);
  } else {
    nd = prev ? ds - (de - ds) : de + (de - ds);
  }
  const toBound = (day: number) => (type === 'date' ? day : fromWall(zone, day * DAY_MS));
  return prev ? [toBound(nd), s] : [e, toBound(nd)];
}
