/**
 * SQL alert run times: parsing `run_at` (comma-separated times of day, 24-hour `14:30` or 12-hour
 * `2:30pm` / `9 am`) and computing the next run in the organization's time zone.
 */
import { toWall, wallParts, zonedInstant } from '@cairn/core';

const TIME = /^(\d{1,2})(?::(\d{2}))?\s*([ap])\.?m\.?$|^(\d{1,2}):(\d{2})$/i;

/** Minutes after midnight of one time of day, or null when it is not a time. */
export function parseTime(raw: string): number | null {
  const m = TIME.exec(raw.trim());
  if (!m) return null;
  if (m[3]) {
    const h = Number(m[1]);
    const min = m[2] === undefined ? 0 : Number(m[2]);
    if (h < 1 || h > 12 || min > 59) return null;
    return ((h % 12) + (m[3].toLowerCase() === 'p' ? 12 : 0)) * 60 + min;
  }
  const h = Number(m[4]);
  const min = Number(m[5]);
  return h > 23 || min > 59 ? null : h * 60 + min;
}

export const MAX_RUN_TIMES = 48;

/** The times of a run_at value, sorted and without repeats; or the first entry that is not a time. */
export function parseRunAt(value: string): { times: number[] } | { bad: string } {
  const parts = value.split(',').map((s) => s.trim());
  const times: number[] = [];
  for (const p of parts) {
    const t = parseTime(p);
    if (t === null) return { bad: p };
    times.push(t);
  }
  return { times: [...new Set(times)].sort((a, b) => a - b) };
}

const pad = (n: number) => String(n).padStart(2, '0');
/** The stored form: 24-hour times, sorted, comma-separated (`08:00,14:30`). */
export const formatRunAt = (times: number[]) => times.map((t) => `${pad(Math.floor(t / 60))}:${pad(t % 60)}`).join(',');

export interface RunSchedule {
  run_schedule: 'disabled' | 'at' | 'every';
  run_at: string | null;
  run_every: number | null;
}

/** When the alert runs next after `now`: null when disabled; run_every minutes from now; or the next time of run_at. */
export function nextRunAt(s: RunSchedule, timeZone: string, now: Date): Date | null {
  if (s.run_schedule === 'every') return s.run_every ? new Date(now.getTime() + s.run_every * 60_000) : null;
  if (s.run_schedule !== 'at' || !s.run_at) return null;
  const parsed = parseRunAt(s.run_at);
  if ('bad' in parsed || !parsed.times.length) return null;
  const today = wallParts(toWall(timeZone, now.getTime()));
  for (let day = 0; day <= 2; day++) {
    const date = new Date(Date.UTC(today.year, today.month - 1, today.day + day));
    for (const t of parsed.times) {
      // Zone arithmetic and its rule for skipped and repeated times: core/src/time.ts.
      const at = zonedInstant(timeZone, date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate(), t);
      if (at > now.getTime()) return new Date(at);
    }
  }
  return null;
}
