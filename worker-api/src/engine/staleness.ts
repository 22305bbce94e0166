import { zonedTime } from '../resources/sql-alerts/schedule.ts';

const formats = new Map<string, Intl.DateTimeFormat>();
function dateIn(timeZone: string, ms: number): { y: number; m: number; d: number } {
  let f = formats.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' });
    formats.set(timeZone, f);
  }
  const p = Object.fromEntries(f.formatToParts(new Date(ms)).map((x) => [x.type, x.value]));
  return { y: Number(p.year), m: Number(p.month), d: Number(p.day) };
}

/** Minutes after midnight of an anchor time `HH:MM` (or `HH:MM:SS`); null when absent or malformed. */
export function anchorMinutes(anchor: string | null | undefined): number | null {
  const m = /^([01]\d|2[0-3]):([0-5]\d)(?::[0-5]\d)?$/.exec(anchor?.trim() ?? '');
  return m ? Number(m[1]) * 60 + Number(m[2]) : null;
}

/**
 * When data computed at `dataAt` (ms) goes stale. Without an anchor: `refreshMinutes` later. With a
 * data_refresh_anchor_time (`HH:MM` in `timeZone`): at the refresh points anchor, anchor + rate,
 * anchor + 2 × rate … counted from the anchor on the day of the data — so a daily rate anchored at
 * 06:00 makes data stale every morning at 06:00, whenever it was computed.
 */
export function staleAt(dataAt: number, refreshMinutes: number, anchor: string | null | undefined, timeZone: string): number {
  const rate = Math.max(1, refreshMinutes) * 60_000;
  const minutes = anchorMinutes(anchor);
  if (minutes === null) return dataAt + rate;
  const day = dateIn(timeZone, dataAt);
  const base = zonedTime(timeZone, day.y, day.m, day.d, minutes);
  if (base > dataAt) return base;
  return base + (Math.floor((dataAt - base) / rate) + 1) * rate;
}

export const isStale = (dataAt: number, now: number, refreshMinutes: number, anchor: string | null | undefined, timeZone: string) =>
  now >= staleAt(dataAt, refreshMinutes, anchor, timeZone);
