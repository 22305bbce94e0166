/** Shared helpers of the SQL compiler tests. */
import { expect } from 'vitest';
import { ApiError, compileSql, type CompileOptions, type Dialect, type FilterDefinition } from '../src/index.ts';

export const DIALECTS: Dialect[] = ['postgres', 'mysql'];

export const filter = (variable_name: string, control_type: string, value_type = 'TEXT', extra: Partial<FilterDefinition> = {}): FilterDefinition => ({
  variable_name,
  control_type,
  value_type,
  ...extra,
});

/** Parameters selecting values for one or more filters. */
export const pick = (selections: Record<string, unknown[]>, rest: Record<string, unknown> = {}) => ({
  ...rest,
  filters: Object.entries(selections).map(([variable_name, selected_values]) => ({ variable_name, selected_values })),
});

export function compile(dialect: Dialect, sql: string, opts: Partial<CompileOptions> = {}) {
  return compileSql({ sql, dialect, filters: [], parameters: {}, ...opts });
}

/** The nth placeholder of a dialect (1-based). */
export const ph = (dialect: Dialect, n: number) => (dialect === 'postgres' ? `$${n}` : '?');

/** Runs fn, expects an ApiError 422 and returns it. */
export function rejects(fn: () => unknown, detail?: RegExp, pointer?: string): ApiError {
  let caught: unknown;
  try {
    fn();
  } catch (e) {
    caught = e;
  }
  expect(caught, 'expected an ApiError').toBeInstanceOf(ApiError);
  const err = caught as ApiError;
  expect(err.status).toBe(422);
  expect(err.code).toBe('invalid_attribute');
  if (detail) expect(err.message).toMatch(detail);
  if (pointer) expect(err.source?.pointer).toBe(pointer);
  return err;
}

/** Unix seconds of an ISO instant. */
export const unix = (iso: string) => Date.parse(iso) / 1000;

/** Injection payloads used by the unit and the database tests. */
export const PAYLOADS = [
  "'; DROP TABLE x; --",
  '1) OR (1=1',
  "' OR '1'='1",
  "x' UNION SELECT password FROM users --",
  '\\',
  "\\'; DROP TABLE x; --",
  "\\\\'",
  'a\u0000b',
  '\u2018 OR \u20181\u2019=\u20191',
  '\u02bc; DROP TABLE x; --',
  '\uff07 OR 1=1 --',
  '*/ DROP TABLE x /*',
  '$1',
  '$$; DROP TABLE x; $$',
  '?',
  '{[x]=v}',
  '[CAIRN_USER_EMAIL]',
  '`x`; DROP TABLE x',
  '"; DROP TABLE x; --',
  '0x27',
  '1; SELECT pg_sleep(10)',
  "Robert'); DROP TABLE students;--",
];

/**
 * Buckets of two instants per aggregation (both databases must agree): 2024-03-30T23:30:15Z is Sunday
 * 2024-03-31 00:30:15 in Berlin; 2024-12-31T23:00:00Z is Wednesday 2025-01-01 00:00 there.
 */
export const BUCKET_SAMPLES_UTC = ['2024-03-30 23:30:15', '2024-12-31 23:00:00'];
export const BERLIN_BUCKETS: Record<string, (string | null)[]> = {
  second: ['2024-03-31 00:30:15', '2025-01-01 00:00:00'],
  minute: ['2024-03-31 00:30:00', '2025-01-01 00:00:00'],
  hour: ['2024-03-31 00:00:00', '2025-01-01 00:00:00'],
  day: ['2024-03-31 00:00:00', '2025-01-01 00:00:00'],
  week: ['2024-03-25 00:00:00', '2024-12-30 00:00:00'],
  week_sunday: ['2024-03-31 00:00:00', '2024-12-29 00:00:00'],
  month: ['2024-03-01 00:00:00', '2025-01-01 00:00:00'],
  quarter: ['2024-01-01 00:00:00', '2025-01-01 00:00:00'],
  year: ['2024-01-01 00:00:00', '2025-01-01 00:00:00'],
  all_time: [null, null],
};
export const UTC_BUCKETS: Record<string, (string | null)[]> = {
  second: ['2024-03-30 23:30:15', '2024-12-31 23:00:00'],
  minute: ['2024-03-30 23:30:00', '2024-12-31 23:00:00'],
  hour: ['2024-03-30 23:00:00', '2024-12-31 23:00:00'],
  day: ['2024-03-30 00:00:00', '2024-12-31 00:00:00'],
  week: ['2024-03-25 00:00:00', '2024-12-30 00:00:00'],
  week_sunday: ['2024-03-24 00:00:00', '2024-12-29 00:00:00'],
  month: ['2024-03-01 00:00:00', '2024-12-01 00:00:00'],
  quarter: ['2024-01-01 00:00:00', '2024-10-01 00:00:00'],
  year: ['2024-01-01 00:00:00', '2024-01-01 00:00:00'],
  all_time: [null, null],
};
