import { describe, expect, it } from 'vitest';
import { formatSchedule, isTimeZone, nextRun, parseSchedule, parseScheduleTime, ScheduleError } from '../src/index.ts';

const at = (iso: string) => new Date(iso);
const next = (s: string, zone: string, after: string) => nextRun(s, zone, at(after))?.toISOString() ?? null;

/** The error a bad schedule raises (fails the test when it parses). */
function errorOf(s: string): ScheduleError {
  try {
    parseSchedule(s);
  } catch (e) {
    expect(e).toBeInstanceOf(ScheduleError);
    return e as ScheduleError;
  }
  throw new Error(`"${s}" parsed`);
}

describe('schedule grammar', () => {
  it('parses the four forms', () => {
    expect(parseSchedule('disabled')).toEqual({ kind: 'disabled' });
    expect(parseSchedule('daily;09:00')).toEqual({ kind: 'daily', times: [540] });
    expect(parseSchedule('weekly;0,4;08:30,17:00')).toEqual({ kind: 'weekly', days: [0, 4], times: [510, 1020] });
    expect(parseSchedule('monthly;1,15,31;23:59')).toEqual({ kind: 'monthly', days: [1, 15, 31], times: [1439] });
  });

  it('ignores case and spaces around separators, and sorts the lists', () => {
    expect(parseSchedule('  Weekly ; 6 , 0 ; 17:00 , 9:05 ')).toEqual({ kind: 'weekly', days: [0, 6], times: [545, 1020] });
    expect(parseSchedule('DISABLED')).toEqual({ kind: 'disabled' });
    expect(parseSchedule('Daily;9AM')).toEqual({ kind: 'daily', times: [540] });
  });

  it('reads 24-hour times', () => {
    expect(parseScheduleTime('0:00')).toBe(0);
    expect(parseScheduleTime('00:00')).toBe(0);
    expect(parseScheduleTime('7:05')).toBe(425);
    expect(parseScheduleTime('23:59')).toBe(1439);
    expect(parseScheduleTime('12:00')).toBe(720);
  });

  it('reads 12-hour times: midnight is 12 am, noon is 12 pm, minutes optional, space optional', () => {
    expect(parseScheduleTime('12am')).toBe(0);
    expect(parseScheduleTime('12:30 am')).toBe(30);
    expect(parseScheduleTime('1am')).toBe(60);
    expect(parseScheduleTime('11:59 pm')).toBe(1439);
    expect(parseScheduleTime('12pm')).toBe(720);
    expect(parseScheduleTime('12:15 PM')).toBe(735);
    expect(parseScheduleTime('5:30pm')).toBe(1050);
    expect(parseScheduleTime('9 am')).toBe(540);
    expect(parseScheduleTime('09:00am')).toBe(540);
  });

  it.each([
    ['24:00', 'hour must be 0 to 23'],
    ['9:60', 'minutes must be 00 to 59'],
    ['9:5', 'is not a time'],
    ['0am', 'hour must be 1 to 12'],
    ['13pm', 'hour must be 1 to 12'],
    ['13:00 pm', 'hour must be 1 to 12'],
    ['9:75am', 'minutes must be 00 to 59'],
    ['noon', 'is not a time'],
    ['9', 'is not a time'],
    ['9.30', 'is not a time'],
    ['09:00:00', 'is not a time'],
    ['9 a.m.', 'is not a time'],
    ['-1:00', 'is not a time'],
  ])('refuses the time "%s"', (t, message) => {
    const e = errorOf(`daily;${t}`);
    expect(e.message).toContain(message);
    expect(e.part).toBe(t);
  });

  it.each([
    ['', 'Unknown schedule kind ""'],
    ['hourly;09:00', 'Unknown schedule kind "hourly"'],
    ['daily', 'a daily schedule is written "daily;TIMES"'],
    ['daily;09:00;10:00', 'a daily schedule is written'],
    ['weekly;09:00', 'a weekly schedule is written "weekly;DAYS;TIMES"'],
    ['monthly;1;2;09:00', 'a monthly schedule is written'],
    ['disabled;09:00', 'a disabled schedule is written "disabled"'],
    ['daily;', 'list of times is empty'],
    ['weekly;;09:00', 'list of days is empty'],
    ['weekly;7;09:00', '"7" is not a weekday: use 0 (Monday) to 6 (Sunday)'],
    ['weekly;-1;09:00', '"-1" is not a weekday'],
    ['weekly;mon;09:00', '"mon" is not a weekday'],
    ['monthly;0;09:00', '"0" is not a day of the month: use 1 to 31'],
    ['monthly;32;09:00', '"32" is not a day of the month'],
    ['monthly;1,,2;09:00', '"" is not a day of the month'],
    ['monthly;1,1;09:00', 'Day "1" is listed twice'],
    ['daily;09:00,9am', 'Time "9am" is the same as "09:00"'],
    ['daily;09:00,', '"" is not a time'],
  ])('refuses "%s" naming the bad part', (s, message) => {
    expect(errorOf(s).message).toContain(message);
  });

  it('allows at most 24 times', () => {
    const times = (n: number) => Array.from({ length: n }, (_, i) => `${i}:00`).join(',');
    expect(parseSchedule(`daily;${times(24)}`)).toMatchObject({ kind: 'daily' });
    expect(errorOf(`daily;${times(24)},23:30`).message).toContain('At most 24 times');
  });

  it('formats the canonical form', () => {
    expect(formatSchedule(parseSchedule('weekly; 4,0 ; 5pm, 9am'))).toBe('weekly;0,4;09:00,17:00');
    expect(formatSchedule(parseSchedule('daily;12am'))).toBe('daily;00:00');
    expect(formatSchedule(parseSchedule('disabled'))).toBe('disabled');
  });
});

describe('time zones', () => {
  it('knows IANA names and refuses others', () => {
    expect(isTimeZone('Europe/Berlin')).toBe(true);
    expect(isTimeZone('UTC')).toBe(true);
    expect(isTimeZone('America/New_York')).toBe(true);
    expect(isTimeZone('Mars/Olympus')).toBe(false);
    expect(isTimeZone('')).toBe(false);
  });
});

describe('next run', () => {
  it('is null for a disabled schedule', () => {
    expect(nextRun('disabled', 'UTC', at('2024-01-01T00:00:00Z'))).toBeNull();
  });

  it("daily: later today, or tomorrow when today's times are past; strictly after", () => {
    expect(next('daily;09:00,17:00', 'UTC', '2024-05-10T08:00:00Z')).toBe('2024-05-10T09:00:00.000Z');
    expect(next('daily;09:00,17:00', 'UTC', '2024-05-10T09:00:00Z')).toBe('2024-05-10T17:00:00.000Z');
    expect(next('daily;09:00,17:00', 'UTC', '2024-05-10T17:00:01Z')).toBe('2024-05-11T09:00:00.000Z');
    expect(next('daily;11:59 pm', 'UTC', '2024-12-31T23:59:30Z')).toBe('2025-01-01T23:59:00.000Z');
  });

  it("takes the wall clock of the schedule's time zone", () => {
    // 09:00 in Berlin (CEST, UTC+2) is 07:00 UTC.
    expect(next('daily;09:00', 'Europe/Berlin', '2024-06-01T06:00:00Z')).toBe('2024-06-01T07:00:00.000Z');
    // 08:00 UTC is already 10:00 in Berlin: the next one is tomorrow.
    expect(next('daily;09:00', 'Europe/Berlin', '2024-06-01T08:00:00Z')).toBe('2024-06-02T07:00:00.000Z');
    // Late evening in New York is already the next day in UTC; the local date counts.
    expect(next('daily;11pm', 'America/New_York', '2024-06-01T02:00:00Z')).toBe('2024-06-01T03:00:00.000Z');
    expect(next('daily;1am', 'Asia/Tokyo', '2024-06-01T15:00:00Z')).toBe('2024-06-01T16:00:00.000Z');
  });

  it('weekly: 0 is Monday, 6 is Sunday', () => {
    // 2024-05-13 is a Monday.
    expect(next('weekly;0;09:00', 'UTC', '2024-05-10T12:00:00Z')).toBe('2024-05-13T09:00:00.000Z');
    expect(next('weekly;6;09:00', 'UTC', '2024-05-10T12:00:00Z')).toBe('2024-05-12T09:00:00.000Z');
    expect(next('weekly;4;09:00', 'UTC', '2024-05-10T08:00:00Z')).toBe('2024-05-10T09:00:00.000Z');
    expect(next('weekly;4;09:00', 'UTC', '2024-05-10T09:30:00Z')).toBe('2024-05-17T09:00:00.000Z');
    expect(next('weekly;2,5;7:15am', 'UTC', '2024-05-13T00:00:00Z')).toBe('2024-05-15T07:15:00.000Z');
  });

  it('monthly: skips months without the day', () => {
    expect(next('monthly;31;09:00', 'UTC', '2024-04-01T00:00:00Z')).toBe('2024-05-31T09:00:00.000Z');
    expect(next('monthly;31;09:00', 'UTC', '2024-01-31T10:00:00Z')).toBe('2024-03-31T09:00:00.000Z');
    expect(next('monthly;30;09:00', 'UTC', '2024-02-01T00:00:00Z')).toBe('2024-03-30T09:00:00.000Z');
    expect(next('monthly;29;09:00', 'UTC', '2023-02-01T00:00:00Z')).toBe('2023-03-29T09:00:00.000Z');
    expect(next('monthly;29;09:00', 'UTC', '2024-02-01T00:00:00Z')).toBe('2024-02-29T09:00:00.000Z');
    expect(next('monthly;1,15;12pm', 'UTC', '2024-12-20T00:00:00Z')).toBe('2025-01-01T12:00:00.000Z');
  });

  it('keeps local time across DST changes (Europe/Berlin)', () => {
    // Before and after the spring change on 2024-03-31: 09:00 is 08:00 UTC, then 07:00 UTC.
    expect(next('daily;09:00', 'Europe/Berlin', '2024-03-30T09:00:00Z')).toBe('2024-03-31T07:00:00.000Z');
    expect(next('daily;09:00', 'Europe/Berlin', '2024-03-29T12:00:00Z')).toBe('2024-03-30T08:00:00.000Z');
    // After the autumn change on 2024-10-27 09:00 is 08:00 UTC again.
    expect(next('daily;09:00', 'Europe/Berlin', '2024-10-26T08:00:00Z')).toBe('2024-10-27T08:00:00.000Z');
  });

  it('moves a time that does not exist (spring forward) by the gap', () => {
    // 02:30 does not happen in Berlin on 2024-03-31; it is sent at 03:30 CEST = 01:30 UTC.
    expect(next('daily;02:30', 'Europe/Berlin', '2024-03-30T12:00:00Z')).toBe('2024-03-31T01:30:00.000Z');
    // New York, 2024-03-10 02:30 → 03:30 EDT = 07:30 UTC.
    expect(next('daily;2:30am', 'America/New_York', '2024-03-10T00:00:00Z')).toBe('2024-03-10T07:30:00.000Z');
  });

  it('sends a time that happens twice (fall back) once, at its first occurrence', () => {
    // 02:30 happens at 00:30 UTC (CEST) and 01:30 UTC (CET) on 2024-10-27.
    expect(next('daily;02:30', 'Europe/Berlin', '2024-10-26T12:00:00Z')).toBe('2024-10-27T00:30:00.000Z');
    expect(next('daily;02:30', 'Europe/Berlin', '2024-10-27T00:30:00Z')).toBe('2024-10-28T01:30:00.000Z');
  });

  it('handles zones with half-hour offsets and the southern hemisphere', () => {
    expect(next('daily;09:00', 'Asia/Kolkata', '2024-06-01T00:00:00Z')).toBe('2024-06-01T03:30:00.000Z');
    // Sydney: AEDT (UTC+11) in January, AEST (UTC+10) in July.
    expect(next('daily;09:00', 'Australia/Sydney', '2024-01-10T00:00:00Z')).toBe('2024-01-10T22:00:00.000Z');
    expect(next('daily;09:00', 'Australia/Sydney', '2024-07-10T00:00:00Z')).toBe('2024-07-10T23:00:00.000Z');
  });

  it('monthly day 31 across a year boundary in a DST zone', () => {
    expect(next('monthly;31;6pm', 'America/New_York', '2024-11-01T00:00:00Z')).toBe('2024-12-31T23:00:00.000Z');
  });

  it('accepts a parsed schedule as well as a string', () => {
    expect(nextRun(parseSchedule('daily;10:00'), 'UTC', at('2024-01-01T00:00:00Z'))?.toISOString()).toBe('2024-01-01T10:00:00.000Z');
  });
});
