import { toWall, wallParts, zonedInstant } from '@cairn/core';

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
  const day = wallParts(toWall(timeZone, dataAt));
  if (rate % 86_400_000 === 0) {
    // Whole days step on the calendar, so the anchor keeps its wall-clock time across DST changes
    // (06:00 stays 06:00, not 07:00 the morning after clocks go forward).
    const every = rate / 86_400_000;
    for (let k = 0; ; k += every) {
      const point = zonedInstant(timeZone, day.year, day.month, day.day + k, minutes);
      if (point > dataAt) return point;
    }
  }
  const base = zonedInstant(timeZone, day.year, day.month, day.day, minutes);
  if (base > dataAt) return base;
  return base + (Math.floor((dataAt - base) / rate) + 1) * rate;
}

export const isStale = (dataAt: number, now: number, refreshMinutes: number, anchor: string | null | undefined, timeZone: string) =>
  now >= staleAt(dataAt, refreshMinutes, anchor, timeZone);
