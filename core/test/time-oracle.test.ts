/**
 * The one time module (src/time.ts) checked against an independent implementation: the Temporal polyfill,
 * whose "compatible" disambiguation is the rule Cairn uses everywhere (a repeated wall clock is its first
 * occurrence, a skipped one moves forward by the gap). Every offset change of several zones between 2020
 * and 2030 is walked in both directions, minute by minute around the change, and the schedule code that
 * sits on top (dashboard schedules) is checked on the same nights.
 */
import { describe, expect, it } from 'vitest';
import { Temporal } from 'temporal-polyfill';
import { fromWall, isTimeZone, nextRun, toWall, transitions, zonedInstant } from '../src/index.ts';

const ZONES = [
  'Europe/Berlin',
  'America/New_York',
  'America/Los_Angeles',
  'Australia/Sydney',
  'Australia/Lord_Howe',
  'Asia/Tehran',
  'America/Santiago',
  'Pacific/Chatham',
  'Africa/Casablanca',
];
const MIN = 60_000;

function oracleFromWall(zone: string, wall: number): number {
  const d = new Date(wall);
  return Temporal.PlainDateTime.from({
    year: d.getUTCFullYear(),
    month: d.getUTCMonth() + 1,
    day: d.getUTCDate(),
    hour: d.getUTCHours(),
    minute: d.getUTCMinutes(),
    second: d.getUTCSeconds(),
    millisecond: d.getUTCMilliseconds(),
  }).toZonedDateTime(zone, { disambiguation: 'compatible' }).epochMilliseconds;
}

function oracleToWall(zone: string, instant: number): number {
  const z = Temporal.Instant.fromEpochMilliseconds(instant).toZonedDateTimeISO(zone);
  return Date.UTC(z.year, z.month - 1, z.day, z.hour, z.minute, z.second, z.millisecond);
}

const changes = (zone: string) => transitions(zone).filter((c) => c.at >= Date.UTC(2020, 0, 1) && c.at < Date.UTC(2030, 0, 1));

describe('time module against the Temporal polyfill', () => {
  it.each(ZONES)('%s: both directions agree around every offset change of 2020–2029', (zone) => {
    const found = changes(zone);
    expect(found.length, `${zone} has offset changes in the decade`).toBeGreaterThan(0);
    for (const c of found) {
      const gap = Math.abs(c.after - c.before);
      // Every quarter hour from two hours before the change to two hours after it, on both clocks.
      for (let t = c.at - 2 * 3_600_000 - gap; t <= c.at + 2 * 3_600_000 + gap; t += 15 * MIN) {
        expect(toWall(zone, t), `${zone} toWall ${new Date(t).toISOString()}`).toBe(oracleToWall(zone, t));
        const wall = t + c.before;
        expect(fromWall(zone, wall), `${zone} fromWall ${new Date(wall).toISOString()}`).toBe(oracleFromWall(zone, wall));
      }
    }
  });

  it('reads a repeated time as its first occurrence and a skipped one forward, in both hemispheres', () => {
    // Sydney turns back on 2026-04-05 (03:00 AEDT → 02:00 AEST) and forward on 2026-10-04 (02:00 → 03:00).
    expect(new Date(zonedInstant('Australia/Sydney', 2026, 4, 5, 150)).toISOString()).toBe('2026-04-04T15:30:00.000Z');
    expect(new Date(zonedInstant('Australia/Sydney', 2026, 10, 4, 150)).toISOString()).toBe('2026-10-03T16:30:00.000Z');
    // Lord Howe moves by half an hour: 01:45 is repeated on 2026-04-05.
    expect(new Date(zonedInstant('Australia/Lord_Howe', 2026, 4, 5, 105)).toISOString()).toBe('2026-04-04T14:45:00.000Z');
  });

  it('sends a dashboard schedule once on a night a time repeats, and at the jump on a night it is skipped', () => {
    // New York, 2026-11-01: 01:30 happens at 05:30Z (EDT) and again at 06:30Z (EST); only the first sends.
    const first = nextRun('daily;01:30', 'America/New_York', new Date('2026-11-01T00:00:00Z'))!;
    expect(first.toISOString()).toBe('2026-11-01T05:30:00.000Z');
    expect(nextRun('daily;01:30', 'America/New_York', first)!.toISOString()).toBe('2026-11-02T06:30:00.000Z');
    // 2026-03-08: 02:30 does not exist; the send is at 03:30 EDT (07:30Z).
    expect(nextRun('daily;02:30', 'America/New_York', new Date('2026-03-08T00:00:00Z'))!.toISOString()).toBe('2026-03-08T07:30:00.000Z');
  });

  it('one rule for zone names: IANA names and UTC, no offsets', () => {
    for (const ok of ['UTC', 'Europe/Berlin', 'America/Argentina/Salta', 'Etc/GMT+1']) expect(isTimeZone(ok), ok).toBe(true);
    for (const bad of ['+01:00', '-05:00', 'GMT+1:00', 'Mars/Olympus', '', 'Europe/Berlin ', 'a'.repeat(80)]) expect(isTimeZone(bad), bad).toBe(false);
  });
});
