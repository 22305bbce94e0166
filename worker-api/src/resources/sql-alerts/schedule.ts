/**
 * SQL alert run times: parsing `run_at` (comma-separated times of day, 24-hour `14:30` or 12-hour
 * `2:30pm` / `9 am`) and computing the next run in the organization's time zone.
 */

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

const formats = new Map<string, Intl.DateTimeFormat>();
function partsIn(timeZone: string, ms: number) {
  let f = formats.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit',
    });
    formats.set(timeZone, f);
  }
  const p = Object.fromEntries(f.formatToParts(new Date(ms)).map((x) => [x.type, x.value]));
  return { y: Number(p.year), m: Number(p.month), d: Number(p.day), h: Number(p.hour), mi: Number(p.minute), s: Number(p.second) };
}

/** How far the zone's wall clock is ahead of UTC at an instant, in ms. */
function offsetAt(timeZone: string, ms: number): number {
  const p = partsIn(timeZone, ms);
  return Date.UTC(p.y, p.m - 1, p.d, p.h, p.mi, p.s) - Math.floor(ms / 1000) * 1000;
}

/**
 * The instant when the wall clock of `timeZone` shows the given date and minute of the day. A time
 * skipped by a daylight-saving jump resolves to the instant the clock jumps over it (one hour later
 * on the new clock); a repeated time takes its first occurrence.
 */
export function zonedTime(timeZone: string, y: number, m: number, d: number, minuteOfDay: number): number {
  const wall = Date.UTC(y, m - 1, d, 0, minuteOfDay);
  // The zone's offsets a day before and after; a wall time is valid under an offset that holds at its instant.
  const before = wall - offsetAt(timeZone, wall - 86_400_000);
  const after = wall - offsetAt(timeZone, wall + 86_400_000);
  const valid = [before, after].filter((t) => offsetAt(timeZone, t) === wall - t);
  return valid.length ? Math.min(...valid) : before;
}

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
  const today = partsIn(timeZone, now.getTime());
  for (let day = 0; day <= 2; day++) {
    const date = new Date(Date.UTC(today.y, today.m - 1, today.d + day));
    for (const t of parsed.times) {
      const at = zonedTime(timeZone, date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate(), t);
      if (at > now.getTime()) return new Date(at);
    }
  }
  return null;
}
