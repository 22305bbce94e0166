import { describe, expect, it } from 'vitest';
import type { DataField } from '../../lib/types';
import { columnZone, dateLabeler, displayZone, formatCell, formatInstant, formatNumber, knownZone, msDateLabeler, wallClock } from './format';

const ts: DataField = { idx: 0, name: 'ordered_at', data_type: 'DateTime' };
const day: DataField = { idx: 0, name: 'day', data_type: 'Date' };

describe('date-times in the dashboard time zone', () => {
  it('shows an instant on the wall clock of the zone, to the minute unless seconds are set', () => {
    expect(formatCell('2026-03-10T14:05:00Z', ts, undefined, 'America/New_York')).toBe('2026-03-10 10:05');
    expect(formatCell('2026-01-10T14:05:09.250Z', ts, undefined, 'Europe/Berlin')).toBe('2026-01-10 15:05:09');
    expect(formatCell('2026-01-10T14:05:00Z', ts, undefined, 'Asia/Kolkata')).toBe('2026-01-10 19:35');
    // Without a zone (or in UTC) the value reads as written.
    expect(formatCell('2026-01-10T14:05:00Z', ts)).toBe('2026-01-10 14:05');
    expect(formatCell('2026-01-10T14:05:00Z', ts, undefined, 'UTC')).toBe('2026-01-10 14:05');
    // Dates are calendar days, never moved.
    expect(formatCell('2026-01-10', day, undefined, 'America/New_York')).toBe('2026-01-10');
  });

  it('crosses the day and the daylight-saving change', () => {
    expect(formatCell('2026-01-01T03:00:00Z', ts, undefined, 'America/Los_Angeles')).toBe('2025-12-31 19:00');
    expect(wallClock(new Date('2026-07-01T12:00:00Z'), 'Europe/Berlin', false)).toBe('2026-07-01 14:00');
    expect(wallClock(new Date('2026-12-01T12:00:00Z'), 'Europe/Berlin', false)).toBe('2026-12-01 13:00');
  });

  it('keeps columns of calendar buckets (every value on UTC midnight) as written', () => {
    expect(displayZone(['2026-01-01T00:00:00Z', '2026-02-01T00:00:00Z'], 'America/New_York')).toBe('UTC');
    expect(displayZone(['2026-01-01T00:00:00Z', '2026-01-01T13:30:00Z'], 'America/New_York')).toBe('America/New_York');
    expect(displayZone([null, '2026-01-01T13:30:00Z'], 'Europe/Berlin')).toBe('Europe/Berlin');
    const rows = [
      [1, '2026-01-01T13:30:00Z'],
      [2, '2026-01-02T00:00:00Z'],
    ];
    expect(columnZone(rows, 1, { idx: 1, name: 'at', data_type: 'DateTime' }, 'Europe/Berlin')).toBe('Europe/Berlin');
    expect(columnZone(rows, 1, { idx: 1, name: 'at', data_type: 'String' }, 'Europe/Berlin')).toBe('UTC');
  });

  it('labels axes in the zone: instants moved, month buckets unchanged', () => {
    const hourly = dateLabeler(['2026-03-10T14:00:00Z', '2026-03-10T15:00:00Z'], 'Europe/Berlin');
    expect(hourly('2026-03-10T14:00:00Z')).toBe('Mar 10, 15:00');
    const monthly = dateLabeler(['2026-01-01T00:00:00Z', '2026-02-01T00:00:00Z'], 'America/New_York');
    expect(monthly('2026-02-01T00:00:00Z')).toBe('Feb 2026');
    expect(dateLabeler(['2026-03-10T14:00:00Z'])('2026-03-10T14:00:00Z')).toBe('Mar 10, 14:00');
  });

  it('names the zone of the data age and falls back to UTC for a zone the browser does not know', () => {
    expect(formatInstant('2026-11-22T14:05:00Z', 'Europe/Berlin')).toBe('Nov 22, 2026, 15:05 (Europe/Berlin)');
    expect(formatInstant(null, 'Europe/Berlin')).toBeNull();
    // Formatters are kept per zone: a second zone gets its own.
    expect(formatInstant('2026-11-22T14:05:00Z', 'UTC')).toBe('Nov 22, 2026, 14:05 (UTC)');
    expect(formatInstant('2026-11-22T14:05:00Z', 'Europe/Berlin')).toBe('Nov 22, 2026, 15:05 (Europe/Berlin)');
    expect(knownZone('Mars/Olympus')).toBe('UTC');
    expect(knownZone(undefined)).toBe('UTC');
    expect(formatCell('2026-01-10T14:05:00Z', ts, undefined, knownZone('Nowhere/Else'))).toBe('2026-01-10 14:05');
  });
});

describe("dates plotted as numbers (an XY chart's x axis)", () => {
  it("labels milliseconds as the column's dates, instants in the dashboard zone", () => {
    const days = msDateLabeler(['2026-03-01', '2026-03-15'], 'Europe/Berlin');
    expect(days(Date.parse('2026-03-15'))).toBe('Mar 15, 2026');
    const instants = msDateLabeler(['2026-03-01T09:30:00Z', '2026-03-02T17:00:00Z'], 'Europe/Berlin');
    expect(instants(Date.parse('2026-03-01T09:30:00Z'))).toBe('Mar 1, 10:30');
    expect(days(Number.NaN)).toBe('');
  });
});

describe('numbers', () => {
  it('keeps fixed decimals, free decimals and compact forms apart though formatters are kept by decimals', () => {
    expect(formatNumber(1234.5, { decimals: 2 })).toBe('1,234.50');
    expect(formatNumber(1234.5)).toBe('1,234.5');
    expect(formatNumber(1234.5, { decimals: 2, compact: true })).toBe('1.2K');
    expect(formatNumber(3, { decimals: 2 })).toBe('3.00');
    expect(formatNumber(3)).toBe('3');
  });
});
