import { ApiError } from '@cairn/core';

/**
 * Checks one stored filter value (an option of a manual dropdown, a default value) against the
 * filter's value type and returns the value to store. The same forms the data calls accept:
 * TEXT any text without NUL (numbers and booleans become text), NUMBER a finite number or numeric
 * string, BOOLEAN true/false, DATE YYYY-MM-DD, TIME HH:MM or HH:MM:SS, DATE_TIME an ISO 8601
 * timestamp or unix seconds (stored as given).
 */
export function checkValue(value: unknown, valueType: string, pointer: string): unknown {
  const bad = (what: string) => new ApiError('invalid_attribute', `${JSON.stringify(value)} is not ${what}.`, { source: { pointer } });
  switch (valueType) {
    case 'NUMBER': {
      const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
      if (!Number.isFinite(n)) throw bad('a number');
      return n;
    }
    case 'BOOLEAN':
      if (value === true || value === 'true') return true;
      if (value === false || value === 'false') return false;
      throw bad('a boolean (true or false)');
    case 'DATE':
      if (typeof value === 'string' && isDate(value)) return value;
      throw bad('a date (YYYY-MM-DD)');
    case 'TIME':
      if (typeof value === 'string' && isTime(value)) return value;
      throw bad('a time (HH:MM or HH:MM:SS)');
    case 'DATE_TIME':
      if (instantOf(value) !== null) return value;
      throw bad('a date and time (ISO 8601, e.g. 2025-01-31T08:00:00Z, or unix seconds)');
    default: {
      if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') throw bad('a text value');
      const s = String(value);
      if (s.includes('\u0000')) {
        throw new ApiError('invalid_attribute', 'The value contains the NUL character, which is not allowed.', { source: { pointer } });
      }
      return s;
    }
  }
}

function isDate(s: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.getUTCFullYear() === Number(m[1]) && d.getUTCMonth() === Number(m[2]) - 1 && d.getUTCDate() === Number(m[3]);
}

const isTime = (s: string) => /^([01]\d|2[0-3]):[0-5]\d(:[0-5]\d)?$/.test(s);

/** Milliseconds of an ISO 8601 timestamp or unix seconds; null when it is neither. */
function instantOf(v: unknown): number | null {
  if (typeof v === 'number') return Number.isFinite(v) ? v * 1000 : null;
  if (typeof v !== 'string') return null;
  if (/^-?\d{1,12}$/.test(v.trim())) return Number(v.trim()) * 1000;
  if (!/^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/.test(v)) return null;
  const ms = Date.parse(v);
  return Number.isNaN(ms) ? null : ms;
}

/** A range default "start~end" for a range control; either side may be empty, and start comes before end. */
export function checkRange(v: unknown, control: string, pointer: string): string {
  const bad = (detail: string) => new ApiError('invalid_attribute', detail, { source: { pointer } });
  if (typeof v !== 'string' || v.split('~').length !== 2) throw bad('A range default is written "start~end" (either side may be empty).');
  const [a, b] = v.split('~') as [string, string];
  const [check, what] =
    control === 'date_range'
      ? ([isDate, 'a date (YYYY-MM-DD)'] as const)
      : control === 'time_range'
        ? ([isTime, 'a time (HH:MM or HH:MM:SS)'] as const)
        : ([(s: string) => instantOf(s) !== null, 'a date and time (ISO 8601 or unix seconds)'] as const);
  for (const side of [a, b]) if (side !== '' && !check(side)) throw bad(`"${side}" is not ${what}.`);
  if (a && b) {
    const order = control === 'date_time_range' ? instantOf(a)! >= instantOf(b)! : control === 'date_range' ? a > b : a >= b;
    if (order) throw bad('The range ends before it starts.');
  }
  return v;
}
