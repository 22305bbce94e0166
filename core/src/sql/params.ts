/**
 * Input parameters of dashboards and reports (spec 01 §3) and their validation.
 * `timerange` is `start~end` in unix seconds, either side optional.
 */
import { ApiError } from '../errors.ts';

export const AGGREGATIONS = [
  'second', 'minute', 'hour', 'day', 'week', 'week_sunday', 'month', 'quarter', 'year', 'all_time',
] as const;
export type Aggregation = (typeof AGGREGATIONS)[number];

export interface FilterSelection {
  variable_name: string;
  selected_values: unknown[];
}
export interface InputParameters {
  timerange?: string;
  aggregation?: string;
  tz?: string;
  filters?: FilterSelection[];
}

export const RANGE_CONTROLS = ['date_range', 'date_time_range', 'time_range'] as const;

export interface FilterDefinition {
  variable_name: string;
  control_type: string;
  value_type: 'TEXT' | 'NUMBER' | 'BOOLEAN' | 'DATE' | 'TIME' | 'DATE_TIME' | string;
  allowed_aggregations?: string[] | null;
}

export interface TimeRange {
  /** Inclusive start, as an ISO-8601 timestamp (UTC), or null when open. */
  start: string | null;
  /** Exclusive end, as an ISO-8601 timestamp (UTC), or null when open. */
  end: string | null;
}

const UNIX = /^-?\d{1,12}$/;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/;

function toIso(value: unknown, pointer: string): string {
  if (typeof value === 'number' && Number.isFinite(value)) return new Date(value * 1000).toISOString();
  if (typeof value === 'string') {
    const v = value.trim();
    if (UNIX.test(v)) return new Date(Number(v) * 1000).toISOString();
    if (ISO_DATE.test(v) && !Number.isNaN(Date.parse(`${v}T00:00:00Z`))) return `${v}T00:00:00.000Z`;
    if (ISO_DATE_TIME.test(v) && !Number.isNaN(Date.parse(v))) return new Date(v).toISOString();
  }
  throw new ApiError('invalid_attribute', `"${String(value)}" is not a unix time or an ISO date.`, {
    source: { pointer },
  });
}

/**
 * Parses a range written `start~end` (or a two-item list). `dateOnly` makes the end exclusive at the
 * next day, so a range ending 2024-01-31 includes the whole of that day.
 */
export function parseRange(value: unknown, pointer: string, dateOnly = false): TimeRange {
  let parts: unknown[];
  if (Array.isArray(value)) parts = value;
  else if (typeof value === 'string') parts = value.split('~');
  else throw new ApiError('invalid_attribute', 'A range must be written "start~end".', { source: { pointer } });
  if (parts.length !== 2) {
    throw new ApiError('invalid_attribute', 'A range must be written "start~end" (either side may be empty).', {
      source: { pointer },
    });
  }
  const [a, b] = parts.map((p) => (p === null || p === undefined || p === '' ? null : p));
  const start = a === null ? null : toIso(a, pointer);
  let end = b === null ? null : toIso(b, pointer);
  if (end && dateOnly) end = new Date(Date.parse(end) + 86_400_000).toISOString();
  if (start && end && Date.parse(start) >= Date.parse(end)) {
    throw new ApiError('invalid_attribute', 'The range ends before it starts.', { source: { pointer } });
  }
  return { start, end };
}

/** Checks one selected value against the filter's value type; returns the value to bind. */
export function coerceValue(value: unknown, valueType: string, pointer: string): unknown {
  const bad = (what: string) =>
    new ApiError('invalid_attribute', `"${String(value)}" is not a valid ${what}.`, { source: { pointer } });
  if (value === null) return null;
  switch (valueType) {
    case 'NUMBER': {
      const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
      if (!Number.isFinite(n)) throw bad('number');
      return n;
    }
    case 'BOOLEAN':
      if (value === true || value === 'true') return true;
      if (value === false || value === 'false') return false;
      throw bad('boolean (true or false)');
    case 'DATE':
      if (typeof value === 'string' && ISO_DATE.test(value)) return value;
      throw bad('date (YYYY-MM-DD)');
    case 'TIME':
      if (typeof value === 'string' && /^\d{2}:\d{2}(:\d{2})?$/.test(value)) return value;
      throw bad('time (HH:MM or HH:MM:SS)');
    case 'DATE_TIME':
      return toIso(value, pointer);
    default:
      if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
        const s = String(value);
        if (s.includes('\u0000')) throw bad('text (it contains a NUL character)');
        return s;
      }
      throw bad('text value');
  }
}
