import { describe, expect, it } from 'vitest';
import { parseSchedule } from '@cairn/core';
import { picksOf, picksProblem, scheduleOf } from './schedule-picker';

describe('schedule pickers ↔ schedule string', () => {
  it('reads stored strings (24-hour and am/pm) back into the pickers', () => {
    expect(picksOf('weekly;0,4;8:00am')).toMatchObject({ frequency: 'weekly', weekdays: [0, 4], times: ['08:00'] });
    expect(picksOf('monthly;1,15;06:00, 6:30 pm')).toMatchObject({ frequency: 'monthly', monthdays: [1, 15], times: ['06:00', '18:30'] });
    expect(picksOf('daily;12am,12:15pm')).toMatchObject({ frequency: 'daily', times: ['00:00', '12:15'] });
    expect(picksOf('disabled')).toMatchObject({ frequency: 'disabled' });
    expect(picksOf('hourly;5')).toBeNull();
  });

  it('builds the canonical string the API accepts, and round-trips', () => {
    const s = scheduleOf({ frequency: 'weekly', weekdays: [4, 0], monthdays: [1], times: ['17:30', '08:00'] });
    expect(s).toBe('weekly;0,4;08:00,17:30');
    expect(() => parseSchedule(s)).not.toThrow();
    expect(scheduleOf({ frequency: 'monthly', weekdays: [], monthdays: [31, 1], times: ['06:00'] })).toBe('monthly;1,31;06:00');
    expect(scheduleOf({ frequency: 'daily', weekdays: [2], monthdays: [3], times: ['09:05'] })).toBe('daily;09:05');
    expect(scheduleOf({ frequency: 'disabled', weekdays: [2], monthdays: [3], times: ['09:05'] })).toBe('disabled');
    for (const stored of ['weekly;0,4;8:00am', 'monthly;1,15;06:00,18:30', 'daily;23:59']) {
      expect(parseSchedule(scheduleOf(picksOf(stored)!))).toEqual(parseSchedule(stored));
    }
  });

  it('says what is missing', () => {
    expect(picksProblem({ frequency: 'weekly', weekdays: [], monthdays: [1], times: ['08:00'] })).toMatch(/day of the week/);
    expect(picksProblem({ frequency: 'monthly', weekdays: [0], monthdays: [], times: ['08:00'] })).toMatch(/day of the month/);
    expect(picksProblem({ frequency: 'daily', weekdays: [0], monthdays: [1], times: [] })).toMatch(/one time/);
    expect(picksProblem({ frequency: 'daily', weekdays: [0], monthdays: [1], times: ['08:00', '08:00'] })).toMatch(/twice/);
    expect(picksProblem({ frequency: 'disabled', weekdays: [], monthdays: [], times: [] })).toBeNull();
  });
});
