import { describe, expect, it } from 'vitest';
import { dayEndUnix, dayStartUnix, dayString, parseRelative, relativeLabel, resolveRelative, wallInput, wallToUnix } from './filters-range';

const days = (token: string, now: number, zone = 'UTC') => {
  const r = resolveRelative(token, now, zone);
  if (!r || r.kind !== 'days') throw new Error(`${token} did not resolve to days`);
  return `${dayString(r.startDay)}~${dayString(r.endDay)}`;
};

describe('relative ranges', () => {
  // Wednesday 14 May 2025, 10:00 UTC.
  const now = Date.UTC(2025, 4, 14, 10);

  it('parses the tokens it knows and nothing else', () => {
    expect(parseRelative('last_7_days')).toEqual({ kind: 'last', unit: 'day', n: 7 });
    expect(parseRelative('previous_quarter')).toEqual({ kind: 'previous', unit: 'quarter', n: 1 });
    expect(parseRelative('last_month')).toEqual({ kind: 'previous', unit: 'month', n: 1 });
    for (const bad of ['yesterdays', 'last_0_days', 'last_7_fortnights', 'this_hour', '', 'next_week']) expect(parseRelative(bad), bad).toBeNull();
    expect(relativeLabel('last_14_days')).toBe('Last 14 days');
    expect(relativeLabel('this_quarter')).toBe('This quarter');
  });

  it('resolves calendar units around today', () => {
    expect(days('today', now)).toBe('2025-05-14~2025-05-14');
    expect(days('yesterday', now)).toBe('2025-05-13~2025-05-13');
    expect(days('last_7_days', now)).toBe('2025-05-08~2025-05-14');
    expect(days('this_week', now)).toBe('2025-05-12~2025-05-18');
    expect(days('previous_week', now)).toBe('2025-05-05~2025-05-11');
    expect(days('this_month', now)).toBe('2025-05-01~2025-05-31');
    expect(days('previous_month', now)).toBe('2025-04-01~2025-04-30');
    expect(days('this_quarter', now)).toBe('2025-04-01~2025-06-30');
    expect(days('previous_quarter', now)).toBe('2025-01-01~2025-03-31');
    expect(days('last_12_months', now)).toBe('2024-06-01~2025-05-31');
    expect(days('previous_year', now)).toBe('2024-01-01~2024-12-31');
    // Sunday belongs to the week that began on Monday.
    expect(days('this_week', Date.UTC(2025, 4, 18, 23))).toBe('2025-05-12~2025-05-18');
  });

  it('uses the dashboard zone for "today"', () => {
    const lateUtc = Date.UTC(2025, 4, 14, 23, 30);
    expect(days('today', lateUtc, 'UTC')).toBe('2025-05-14~2025-05-14');
    expect(days('today', lateUtc, 'Asia/Tokyo')).toBe('2025-05-15~2025-05-15');
    expect(days('today', Date.UTC(2025, 4, 14, 2), 'America/Los_Angeles')).toBe('2025-05-13~2025-05-13');
  });

  it('counts hours back from now', () => {
    expect(resolveRelative('last_24_hours', now, 'Europe/Berlin')).toEqual({ kind: 'instants', startMs: now - 86_400_000, endMs: now });
  });
});

describe('zone arithmetic for pickers', () => {
  it('gives local midnight and 23:59:59 of a day across a DST change', () => {
    const day = Date.UTC(2025, 2, 30) / 86_400_000; // 30 March 2025: Berlin moves to summer time
    expect(dayStartUnix(day, 'Europe/Berlin')).toBe(Date.UTC(2025, 2, 29, 23) / 1000);
    expect(dayEndUnix(day, 'Europe/Berlin')).toBe(Date.UTC(2025, 2, 30, 22) / 1000 - 1);
  });

  it('converts datetime-local values both ways', () => {
    const unix = wallToUnix('2025-03-01T09:30', 'Europe/Berlin')!;
    expect(unix).toBe(Date.UTC(2025, 2, 1, 8, 30) / 1000);
    expect(wallInput(unix, 'Europe/Berlin')).toBe('2025-03-01T09:30');
    expect(wallToUnix('2025-03-01 09:30', 'UTC')).toBeNull();
  });
});
