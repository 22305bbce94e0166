import { describe, expect, it } from 'vitest';
import { canonicalTimeZone, checkTimeZone, resolveDashboardTimeZone } from '../src/index.ts';
import { addMonths, formatDay, fromWall, toWall, transitions, zoneOffset } from '../src/time.ts';
import { rejects } from './sql-helpers.ts';

const t = Date.parse;
const H = 3_600_000;

describe('offsets and wall clocks', () => {
  it('knows Berlin winter and summer time, and New York', () => {
    expect(zoneOffset('Europe/Berlin', t('2024-01-15T12:00:00Z'))).toBe(1 * H);
    expect(zoneOffset('Europe/Berlin', t('2024-07-15T12:00:00Z'))).toBe(2 * H);
    expect(zoneOffset('America/New_York', t('2024-07-15T12:00:00Z'))).toBe(-4 * H);
    expect(zoneOffset('Asia/Kolkata', t('2024-07-15T12:00:00Z'))).toBe(5.5 * H);
    expect(new Date(toWall('Europe/Berlin', t('2024-03-31T00:59:59.250Z'))).toISOString()).toBe('2024-03-31T01:59:59.250Z');
    expect(new Date(toWall('Europe/Berlin', t('2024-03-31T01:00:00Z'))).toISOString()).toBe('2024-03-31T03:00:00.000Z');
  });

  it('maps wall clocks back: a skipped time moves forward by the gap, a repeated time is its first occurrence', () => {
    expect(new Date(fromWall('Europe/Berlin', t('2024-03-31T00:00:00Z'))).toISOString()).toBe('2024-03-30T23:00:00.000Z');
    // 02:30 does not exist on 2024-03-31 in Berlin: read with +01:00.
    expect(new Date(fromWall('Europe/Berlin', t('2024-03-31T02:30:00Z'))).toISOString()).toBe('2024-03-31T01:30:00.000Z');
    // 02:30 exists twice on 2024-10-27: the first (+02:00), as schedules, alerts and ranges all read it.
    expect(new Date(fromWall('Europe/Berlin', t('2024-10-27T02:30:00Z'))).toISOString()).toBe('2024-10-27T00:30:00.000Z');
    expect(new Date(fromWall('America/New_York', t('2024-11-03T01:30:00Z'))).toISOString()).toBe('2024-11-03T05:30:00.000Z');
    expect(new Date(fromWall('America/New_York', t('2024-03-10T02:30:00Z'))).toISOString()).toBe('2024-03-10T07:30:00.000Z');
    expect(new Date(fromWall('Europe/Berlin', t('2024-10-27T03:30:00Z'))).toISOString()).toBe('2024-10-27T02:30:00.000Z');
  });

  it('finds the offset changes to the second', () => {
    const y2024 = transitions('Europe/Berlin').filter((c) => new Date(c.at).getUTCFullYear() === 2024);
    expect(y2024).toEqual([
      { at: t('2024-03-31T01:00:00Z'), before: 1 * H, after: 2 * H },
      { at: t('2024-10-27T01:00:00Z'), before: 2 * H, after: 1 * H },
    ]);
    expect(transitions('Asia/Tokyo')).toEqual([]);
    expect(transitions('UTC')).toEqual([]);
  });

  it('adds calendar months, clamping the day', () => {
    const day = (iso: string) => t(`${iso}T00:00:00Z`) / 86_400_000;
    expect(formatDay(addMonths(day('2024-01-31'), 1))).toBe('2024-02-29');
    expect(formatDay(addMonths(day('2024-03-01'), -3))).toBe('2023-12-01');
    expect(formatDay(addMonths(day('2023-11-30'), 14))).toBe('2025-01-30');
  });
});

describe('zone names', () => {
  it('canonicalises known IANA names and refuses the rest', () => {
    expect(canonicalTimeZone('UTC')).toBe('UTC');
    expect(canonicalTimeZone('europe/berlin')).toBe('Europe/Berlin');
    expect(canonicalTimeZone('Etc/GMT+1')).toBe('Etc/GMT+1');
    for (const bad of ['+01:00', 'Mars/Olympus', '', "UTC'; --", 'a'.repeat(80)]) expect(canonicalTimeZone(bad), bad).toBeNull();
    expect(checkTimeZone('Asia/Tokyo', 'Zone', '/x')).toBe('Asia/Tokyo');
    rejects(() => checkTimeZone(42, 'Zone', '/x'), /Zone "42" is not a known IANA time zone/, '/x');
  });
});

describe('resolveDashboardTimeZone', () => {
  const org = 'Europe/Paris';
  it('disabled: no dashboard zone (the data zone applies); a tz parameter is ignored', () => {
    expect(resolveDashboardTimeZone({ config: { type: 'disabled' }, requested: 'Asia/Tokyo', organizationTimeZone: org })).toBeNull();
    expect(resolveDashboardTimeZone({})).toBeNull();
  });
  it('an invalid tz is a 422 naming it, whatever the setting (not silently another zone)', () => {
    for (const config of [
      { type: 'disabled' as const },
      { type: 'organization' as const },
      { type: 'fixed' as const, fixed_time_zone: 'Asia/Tokyo' },
      { type: 'input' as const },
    ]) {
      rejects(
        () => resolveDashboardTimeZone({ config, requested: 'Mars/Olympus_Mons', organizationTimeZone: org }),
        /"Mars\/Olympus_Mons" is not a known IANA time zone/,
        '/parameters/tz',
      );
    }
  });
  it('organization and fixed zones', () => {
    expect(resolveDashboardTimeZone({ config: { type: 'organization' }, organizationTimeZone: org })).toBe(org);
    expect(resolveDashboardTimeZone({ config: { type: 'fixed', fixed_time_zone: 'Asia/Tokyo' }, requested: 'UTC', organizationTimeZone: org })).toBe(
      'Asia/Tokyo',
    );
  });
  it('input: the requested zone when allowed, else a 422; without a request the fixed or organization zone', () => {
    const config = { type: 'input' as const, fixed_time_zone: 'UTC', allowed_time_zones: ['Europe/Berlin', 'Asia/Tokyo'] };
    expect(resolveDashboardTimeZone({ config, requested: 'europe/berlin' })).toBe('Europe/Berlin');
    rejects(() => resolveDashboardTimeZone({ config, requested: 'America/New_York' }), /does not offer the time zone "America\/New_York"/, '/parameters/tz');
    rejects(() => resolveDashboardTimeZone({ config, requested: 'Nowhere/Land' }), /not a known IANA time zone/, '/parameters/tz');
    expect(resolveDashboardTimeZone({ config })).toBe('UTC');
    expect(resolveDashboardTimeZone({ config: { type: 'input' }, organizationTimeZone: org })).toBe(org);
    expect(resolveDashboardTimeZone({ config: { type: 'input', allowed_time_zones: [] }, requested: 'America/Lima' })).toBe('America/Lima');
  });
});
