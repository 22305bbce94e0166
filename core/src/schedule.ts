/**
 * Dashboard schedule strings (spec 01 §3): when a scheduled e-mail is sent.
 *
 * Grammar (keywords, `am`/`pm` case-insensitive; spaces around `;` and `,` ignored):
 *
 *   schedule  = "disabled"
 *             | "daily"   ";" times
 *             | "weekly"  ";" weekdays  ";" times
 *             | "monthly" ";" monthdays ";" times
 *   weekdays  = weekday  *( "," weekday )     weekday  = 0 … 6   (0 Monday … 6 Sunday)
 *   monthdays = monthday *( "," monthday )    monthday = 1 … 31  (skipped in months without that day)
 *   times     = time *( "," time )            at most 24 times, no time twice
 *   time      = hour24 ":" minute             hour24 = 0 … 23 (1–2 digits), minute = 00 … 59 (2 digits)
 *             | hour12 [ ":" minute ] [" "] ( "am" | "pm" )   hour12 = 1 … 12; 12 am is midnight, 12 pm noon
 *
 * Days are written with one or two digits; no day may be listed twice. Times are wall-clock times of
 * the schedule's time zone. Pure: runs in workerd, Node and the browser.
 */

import { DAY_MS, fromWall, toWall } from './time.ts';

export type ParsedSchedule =
  | { kind: 'disabled' }
  | { kind: 'daily'; times: number[] }
  | { kind: 'weekly'; days: number[]; times: number[] }
  | { kind: 'monthly'; days: number[]; times: number[] };

/** A schedule string that does not follow the grammar; `part` is the offending piece. */
export class ScheduleError extends Error {
  readonly part: string;
  constructor(message: string, part: string) {
    super(message);
    this.name = 'ScheduleError';
    this.part = part;
  }
}

/** What a dashboard schedule attaches (its attach_as: a comma list of these, each at most once). */
export const SCHEDULE_ATTACH_AS = ['excel', 'csv', 'png', 'dark_png', 'inline_png', 'dark_inline_png', 'pdf', 'dark_pdf'] as const;
export type ScheduleAttachAs = (typeof SCHEDULE_ATTACH_AS)[number];

export const SCHEDULE_MAX_TIMES = 24;
const FORMS = 'use "disabled", "daily;TIMES", "weekly;DAYS;TIMES" or "monthly;DAYS;TIMES"';

/** Minutes after midnight of one time, or a ScheduleError naming it. */
export function parseScheduleTime(raw: string): number {
  const s = raw.trim();
  const h24 = /^(\d{1,2}):(\d{2})$/.exec(s);
  if (h24) {
    const h = Number(h24[1]);
    const m = Number(h24[2]);
    if (h > 23) throw new ScheduleError(`Time "${s}": the hour must be 0 to 23 in 24-hour form.`, s);
    if (m > 59) throw new ScheduleError(`Time "${s}": the minutes must be 00 to 59.`, s);
    return h * 60 + m;
  }
  const h12 = /^(\d{1,2})(?::(\d{2}))?\s?([ap]m)$/i.exec(s);
  if (h12) {
    const h = Number(h12[1]);
    const m = h12[2] === undefined ? 0 : Number(h12[2]);
    if (h < 1 || h > 12) throw new ScheduleError(`Time "${s}": the hour must be 1 to 12 with am/pm.`, s);
    if (m > 59) throw new ScheduleError(`Time "${s}": the minutes must be 00 to 59.`, s);
    const pm = h12[3]!.toLowerCase() === 'pm';
    return ((h % 12) + (pm ? 12 : 0)) * 60 + m;
  }
  throw new ScheduleError(`"${s}" is not a time: write 24-hour "HH:MM" (e.g. 17:30) or 12-hour "h:mm am/pm" (e.g. 5:30 pm, 9am).`, s);
}

function parseTimes(raw: string): number[] {
  if (raw.trim() === '') throw new ScheduleError('The list of times is empty: give at least one time, e.g. 09:00.', raw);
  const seen = new Map<number, string>();
  for (const part of raw.split(',')) {
    const t = parseScheduleTime(part);
    const before = seen.get(t);
    if (before !== undefined) throw new ScheduleError(`Time "${part.trim()}" is the same as "${before}"; list each time once.`, part.trim());
    seen.set(t, part.trim());
  }
  if (seen.size > SCHEDULE_MAX_TIMES) throw new ScheduleError(`At most ${SCHEDULE_MAX_TIMES} times per schedule (got ${seen.size}).`, raw.trim());
  return [...seen.keys()].sort((a, b) => a - b);
}

function parseDays(raw: string, kind: 'weekly' | 'monthly'): number[] {
  const [min, max] = kind === 'weekly' ? [0, 6] : [1, 31];
  const what = kind === 'weekly' ? 'weekday' : 'day of the month';
  const range = kind === 'weekly' ? '0 (Monday) to 6 (Sunday)' : '1 to 31';
  if (raw.trim() === '') throw new ScheduleError(`The list of days is empty: give at least one ${what} (${range}).`, raw);
  const days = new Set<number>();
  for (const part of raw.split(',')) {
    const s = part.trim();
    if (!/^\d{1,2}$/.test(s) || Number(s) < min || Number(s) > max) {
      throw new ScheduleError(`"${s}" is not a ${what}: use ${range}.`, s);
    }
    if (days.has(Number(s))) throw new ScheduleError(`Day "${s}" is listed twice.`, s);
    days.add(Number(s));
  }
  return [...days].sort((a, b) => a - b);
}

/** Parses a schedule string; throws ScheduleError naming the bad part. */
export function parseSchedule(input: string): ParsedSchedule {
  const parts = input.split(';').map((p) => p.trim());
  const kind = parts[0]!.toLowerCase();
  const arity = (n: number, shape: string) => {
    if (parts.length !== n) {
      throw new ScheduleError(
        `"${input.trim()}" has ${parts.length} part${parts.length === 1 ? '' : 's'}; a ${kind} schedule is written "${shape}".`,
        input.trim(),
      );
    }
  };
  switch (kind) {
    case 'disabled':
      arity(1, 'disabled');
      return { kind: 'disabled' };
    case 'daily':
      arity(2, 'daily;TIMES');
      return { kind: 'daily', times: parseTimes(parts[1]!) };
    case 'weekly':
      arity(3, 'weekly;DAYS;TIMES');
      return { kind: 'weekly', days: parseDays(parts[1]!, 'weekly'), times: parseTimes(parts[2]!) };
    case 'monthly':
      arity(3, 'monthly;DAYS;TIMES');
      return { kind: 'monthly', days: parseDays(parts[1]!, 'monthly'), times: parseTimes(parts[2]!) };
    default:
      throw new ScheduleError(`Unknown schedule kind "${parts[0]}": ${FORMS}.`, parts[0]!);
  }
}

/** The schedule in its canonical form (24-hour times with two-digit hours, sorted lists). */
export function formatSchedule(s: ParsedSchedule): string {
  if (s.kind === 'disabled') return 'disabled';
  const times = s.times.map((t) => `${String(Math.floor(t / 60)).padStart(2, '0')}:${String(t % 60).padStart(2, '0')}`).join(',');
  return s.kind === 'daily' ? `daily;${times}` : `${s.kind};${s.days.join(',')};${times}`;
}

// ---- Send times (zone arithmetic lives in ./time.ts) ----

/**
 * The first send time strictly after `after`, for a schedule in `zone`; null when disabled.
 * Weekdays count 0 = Monday … 6 = Sunday; a monthly day a month lacks (31 in April) is skipped there.
 */
export function nextRun(schedule: string | ParsedSchedule, zone: string, after: Date): Date | null {
  const s = typeof schedule === 'string' ? parseSchedule(schedule) : schedule;
  if (s.kind === 'disabled') return null;
  const from = after.getTime();
  const firstDay = Math.floor(toWall(zone, from) / DAY_MS) * DAY_MS;
  // Every day-of-month 1–31 occurs within 62 days; 400 days covers any valid schedule.
  for (let i = 0; i <= 400; i++) {
    const day = firstDay + i * DAY_MS;
    const date = new Date(day);
    const matches =
      s.kind === 'daily' ||
      (s.kind === 'weekly' && s.days.includes((date.getUTCDay() + 6) % 7)) ||
      (s.kind === 'monthly' && s.days.includes(date.getUTCDate()));
    if (!matches) continue;
    const instants = s.times.map((t) => fromWall(zone, day + t * 60_000)).filter((t) => t > from);
    if (instants.length) return new Date(Math.min(...instants));
  }
  return null;
}
