import { describe, expect, it } from 'vitest';
import { zonedInstant as zonedTime } from '@cairn/core';
import { formatRunAt, nextRunAt, parseRunAt, parseTime } from './schedule.ts';

describe('SQL alert run times', () => {
  it('reads 24-hour and 12-hour times', () => {
    const cases: [string, number | null][] = [
      ['00:00', 0],
      ['8:05', 485],
      ['14:30', 870],
      ['23:59', 1439],
      ['2:30pm', 870],
      ['2:30 PM', 870],
      ['9am', 540],
      ['12am', 0],
      ['12:15 am', 15],
      ['12pm', 720],
      ['11:59pm', 1439],
      ['9 a.m.', 540],
      ['24:00', null],
      ['13pm', null],
      ['0am', null],
      ['7:60', null],
      ['8', null],
      ['noon', null],
      ['', null],
      ['8:5', null],
    ];
    for (const [raw, want] of cases) expect(parseTime(raw), raw).toBe(want);
  });

  it('parses run_at lists, sorted without repeats, and names the first bad entry', () => {
    expect(parseRunAt('14:30, 8:00am,2:30pm')).toEqual({ times: [480, 870] });
    expect(formatRunAt([480, 870])).toBe('08:00,14:30');
    expect(parseRunAt('8:00, 25:00')).toEqual({ bad: '25:00' });
    expect(parseRunAt('8:00,,9:00')).toEqual({ bad: '' });
  });

  it('finds the next run in the time zone, across midnight and daylight-saving changes', () => {
    const at = (run_at: string) => ({ run_schedule: 'at' as const, run_at, run_every: null });
    // 2026-03-10 06:00 UTC is 15:00 in Tokyo: 08:00 tomorrow (23:00 UTC today) is next.
    expect(nextRunAt(at('08:00, 14:30'), 'Asia/Tokyo', new Date('2026-03-10T06:00:00Z'))!.toISOString()).toBe('2026-03-10T23:00:00.000Z');
    expect(nextRunAt(at('08:00, 14:30'), 'Asia/Tokyo', new Date('2026-03-10T00:00:00Z'))!.toISOString()).toBe('2026-03-10T05:30:00.000Z');
    expect(nextRunAt(at('9am'), 'UTC', new Date('2026-03-10T09:00:00Z'))!.toISOString()).toBe('2026-03-11T09:00:00.000Z');
    // Berlin switches to summer time on 2026-03-29: 09:00 is 08:00 UTC before, 07:00 UTC after.
    expect(nextRunAt(at('09:00'), 'Europe/Berlin', new Date('2026-03-28T12:00:00Z'))!.toISOString()).toBe('2026-03-29T07:00:00.000Z');
    expect(nextRunAt(at('09:00'), 'Europe/Berlin', new Date('2026-03-27T12:00:00Z'))!.toISOString()).toBe('2026-03-28T08:00:00.000Z');
    // 02:30 does not exist that night in Berlin: the run happens when the clock jumps (03:30 summer time).
    expect(new Date(zonedTime('Europe/Berlin', 2026, 3, 29, 150)).toISOString()).toBe('2026-03-29T01:30:00.000Z');
    // 02:30 happens twice on 2026-10-25: the first one counts.
    expect(new Date(zonedTime('Europe/Berlin', 2026, 10, 25, 150)).toISOString()).toBe('2026-10-25T00:30:00.000Z');
    expect(new Date(zonedTime('America/New_York', 2026, 7, 4, 0)).toISOString()).toBe('2026-07-04T04:00:00.000Z');
  });

  it('every N minutes runs N minutes from now; disabled never', () => {
    const now = new Date('2026-01-01T00:00:00Z');
    expect(nextRunAt({ run_schedule: 'every', run_at: null, run_every: 90 }, 'UTC', now)!.toISOString()).toBe('2026-01-01T01:30:00.000Z');
    expect(nextRunAt({ run_schedule: 'disabled', run_at: '08:00', run_every: 5 }, 'UTC', now)).toBeNull();
  });
});
