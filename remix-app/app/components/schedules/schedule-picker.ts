/**
 * The pickers of a schedule string as data: frequency, days and times, read from and written to the
 * spec's string with @cairn/core's parser (core/src/schedule.ts), so the form and the API agree.
 */
import { formatSchedule, parseSchedule, type ParsedSchedule } from '@cairn/core';

export type Frequency = ParsedSchedule['kind'];

export interface SchedulePicks {
  frequency: Frequency;
  /** Weekdays 0 (Monday) … 6 (Sunday), or days of the month 1 … 31. */
  weekdays: number[];
  monthdays: number[];
  /** "HH:MM", 24-hour. */
  times: string[];
}

export const WEEKDAY_LABELS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'] as const;

const hhmm = (minutes: number) => `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;

/** The pickers of a stored schedule string; null when it does not parse (the form then shows it as text). */
export function picksOf(schedule: string): SchedulePicks | null {
  let p: ParsedSchedule;
  try {
    p = parseSchedule(schedule);
  } catch {
    return null;
  }
  const base: SchedulePicks = { frequency: p.kind, weekdays: [0], monthdays: [1], times: ['08:00'] };
  if (p.kind === 'disabled') return base;
  const times = p.times.map(hhmm);
  if (p.kind === 'daily') return { ...base, times };
  if (p.kind === 'weekly') return { ...base, weekdays: p.days, times };
  return { ...base, monthdays: p.days, times };
}

/** What is missing before the picks make a schedule (null when they do). */
export function picksProblem(p: SchedulePicks): string | null {
  if (p.frequency === 'disabled') return null;
  if (p.frequency === 'weekly' && !p.weekdays.length) return 'Choose at least one day of the week.';
  if (p.frequency === 'monthly' && !p.monthdays.length) return 'Choose at least one day of the month.';
  const times = p.times.filter(Boolean);
  if (!times.length) return 'Choose at least one time.';
  if (new Set(times).size !== times.length) return 'The same time is listed twice.';
  return null;
}

/** The spec's schedule string of the picks: canonical (sorted days and times, 24-hour). */
export function scheduleOf(p: SchedulePicks): string {
  const toMinutes = (t: string) => {
    const [h, m] = t.split(':').map(Number);
    return (h ?? 0) * 60 + (m ?? 0);
  };
  const times = [...new Set(p.times.filter((t) => /^\d{1,2}:\d{2}$/.test(t)))].map(toMinutes).sort((a, b) => a - b);
  const sorted = (xs: number[]) => [...new Set(xs)].sort((a, b) => a - b);
  switch (p.frequency) {
    case 'disabled':
      return 'disabled';
    case 'daily':
      return formatSchedule({ kind: 'daily', times });
    case 'weekly':
      return formatSchedule({ kind: 'weekly', days: sorted(p.weekdays), times });
    case 'monthly':
      return formatSchedule({ kind: 'monthly', days: sorted(p.monthdays), times });
  }
}
