/**
 * Selected filter values: checked against the filter's value type and turned into typed values, which
 * the dialects render as bound parameters. Nothing here ever becomes SQL text.
 */
import { ApiError } from '../errors.ts';
import { DAY_MS, MAX_INSTANT, MIN_INSTANT, formatDay, formatOffset, formatTimeOfDay, formatWall, fromWall, toWall } from '../time.ts';
import type { Dialect } from './lexer.ts';

export type Typed =
  | { t: 'null' }
  | { t: 'text'; v: string }
  | { t: 'number'; v: number | string }
  | { t: 'boolean'; v: boolean }
  /** Day number (days since 1970-01-01). */
  | { t: 'date'; day: number }
  /** Seconds since midnight; 86400 is the end of the day. */
  | { t: 'time'; sec: number }
  /** UTC milliseconds. */
  | { t: 'instant'; ms: number };

/** Where a value came from, for error messages: the filter's name and a JSON pointer. */
export interface Origin {
  filter: string;
  pointer: string;
}

export interface TimeContext {
  /** Zone in which dates and local times are read (the dashboard's). */
  zone: string;
  /** Zone in which naive timestamps of the datasource are written. */
  dataZone: string;
  /** The moment relative ranges ("last_7_days") are resolved at, in milliseconds; default: now. */
  now?: number;
}

export function invalid(origin: Origin, detail: string): ApiError {
  return new ApiError('invalid_attribute', `Filter "${origin.filter}": ${detail}`, { source: { pointer: origin.pointer } });
}

export function show(value: unknown): string {
  let s: string;
  try {
    s = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  } catch {
    s = String(value);
  }
  return JSON.stringify(s.length > 80 ? `${s.slice(0, 80)}…` : s);
}

const NUMERIC = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;
const UNIX = /^[+-]?\d+(?:\.\d+)?$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIME = /^(\d{2}):(\d{2})(?::(\d{2}))?$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

/** Coerces one selected value to a value type (TEXT when the type is unknown). */
export function coerce(value: unknown, valueType: string, origin: Origin, time: TimeContext): Typed {
  if (value === null) return { t: 'null' };
  switch (valueType) {
    case 'NUMBER':
      return parseNumber(value, origin);
    case 'BOOLEAN':
      return parseBoolean(value, origin);
    case 'DATE':
      return { t: 'date', day: parseDay(value, origin, time) };
    case 'TIME':
      return { t: 'time', sec: parseTimeOfDay(value, origin) };
    case 'DATE_TIME':
      return { t: 'instant', ms: parseInstant(value, origin, time).ms };
    default:
      return parseText(value, origin);
  }
}

export function parseText(value: unknown, origin: Origin): Typed {
  if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
    throw invalid(origin, `${show(value)} is not a text value.`);
  }
  const s = String(value);
  if (s.includes('\u0000')) throw invalid(origin, 'a text value must not contain the NUL character.');
  return { t: 'text', v: s };
}

function parseNumber(value: unknown, origin: Origin): Typed {
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw invalid(origin, `${show(value)} is not a number.`);
    return { t: 'number', v: value };
  }
  if (typeof value === 'string' && NUMERIC.test(value.trim())) {
    const text = value.trim();
    const n = Number(text);
    if (!Number.isFinite(n)) throw invalid(origin, `${show(value)} is out of range.`);
    // Integers beyond 2^53 stay exact as text; the database reads them as numbers.
    if (/^[+-]?\d+$/.test(text) && !Number.isSafeInteger(n)) return { t: 'number', v: text.replace(/^\+/, '') };
    return { t: 'number', v: n };
  }
  throw invalid(origin, `${show(value)} is not a number.`);
}

function parseBoolean(value: unknown, origin: Origin): Typed {
  if (value === true || value === 1) return { t: 'boolean', v: true };
  if (value === false || value === 0) return { t: 'boolean', v: false };
  if (typeof value === 'string') {
    const s = value.trim().toLowerCase();
    if (s === 'true' || s === '1') return { t: 'boolean', v: true };
    if (s === 'false' || s === '0') return { t: 'boolean', v: false };
  }
  throw invalid(origin, `${show(value)} is not a boolean (true or false).`);
}

function validDate(y: number, m: number, d: number): number | null {
  if (y < 1000 || m < 1 || m > 12 || d < 1) return null;
  const probe = new Date(0);
  probe.setUTCFullYear(y, m - 1, d);
  if (probe.getUTCMonth() !== m - 1) return null;
  return Math.round(probe.getTime() / DAY_MS);
}

/** A date: `YYYY-MM-DD`, or a unix time taken as the calendar day it falls on in the dashboard's zone. */
export function parseDay(value: unknown, origin: Origin, time: TimeContext): number {
  if (typeof value === 'string') {
    const m = DATE.exec(value.trim());
    if (m) {
      const day = validDate(Number(m[1]), Number(m[2]), Number(m[3]));
      if (day !== null) return day;
      throw invalid(origin, `${show(value)} is not a calendar date.`);
    }
  }
  if (isUnix(value)) {
    const ms = unixMs(value, origin);
    return Math.floor(toWall(time.zone, ms) / DAY_MS);
  }
  throw invalid(origin, `${show(value)} is not a date (YYYY-MM-DD or a unix time).`);
}

/** A time of day: `HH:MM` or `HH:MM:SS`, as seconds since midnight. */
export function parseTimeOfDay(value: unknown, origin: Origin): number {
  const m = typeof value === 'string' ? TIME.exec(value.trim()) : null;
  if (m) {
    const h = Number(m[1]),
      mi = Number(m[2]),
      s = Number(m[3] ?? 0);
    if (h <= 23 && mi <= 59 && s <= 59) return h * 3600 + mi * 60 + s;
  }
  throw invalid(origin, `${show(value)} is not a time of day (HH:MM or HH:MM:SS).`);
}

function isUnix(value: unknown): boolean {
  return (typeof value === 'number' && Number.isFinite(value)) || (typeof value === 'string' && UNIX.test(value.trim()));
}

function unixMs(value: unknown, origin: Origin): number {
  const ms = Math.round(Number(typeof value === 'string' ? value.trim() : value) * 1000);
  if (!(ms >= MIN_INSTANT && ms <= MAX_INSTANT)) throw invalid(origin, `${show(value)} is outside the years 1000 to 9999.`);
  return ms;
}

/**
 * An instant: a unix time (seconds), an ISO date-time with or without offset (without one it is a local
 * time of the dashboard's zone), or a bare date (its local midnight). `dateOnly` tells the caller the
 * input was a bare date (a range ending on a date then ends at the next midnight).
 */
export function parseInstant(value: unknown, origin: Origin, time: TimeContext): { ms: number; dateOnly: boolean } {
  if (isUnix(value)) return { ms: unixMs(value, origin), dateOnly: false };
  if (typeof value === 'string') {
    const s = value.trim();
    const d = DATE.exec(s);
    if (d) {
      const day = validDate(Number(d[1]), Number(d[2]), Number(d[3]));
      if (day === null) throw invalid(origin, `${show(value)} is not a calendar date.`);
      return { ms: fromWall(time.zone, day * DAY_MS), dateOnly: true };
    }
    const m = DATE_TIME.exec(s);
    if (m) {
      const day = validDate(Number(m[1]), Number(m[2]), Number(m[3]));
      const h = Number(m[4]),
        mi = Number(m[5]),
        sec = Number(m[6] ?? 0);
      if (day !== null && h <= 23 && mi <= 59 && sec <= 59) {
        const frac = m[7] ? Math.floor(Number(`0.${m[7]}`) * 1000) : 0;
        const wall = day * DAY_MS + ((h * 60 + mi) * 60 + sec) * 1000 + frac;
        const off = m[8];
        const ms = off ? wall - parseOffset(off) : fromWall(time.zone, wall);
        if (ms >= MIN_INSTANT && ms <= MAX_INSTANT) return { ms, dateOnly: false };
      }
    }
  }
  throw invalid(origin, `${show(value)} is not a unix time or an ISO date-time.`);
}

function parseOffset(off: string): number {
  if (off.toUpperCase() === 'Z') return 0;
  const sign = off[0] === '-' ? -1 : 1;
  const digits = off.slice(1).replace(':', '');
  return sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2, 4) || 0)) * 60_000;
}

/**
 * The parameter value of a typed value. Dates are `YYYY-MM-DD` (a date column compares calendar days;
 * a timestamp column compares with midnight of the session zone). Times are `HH:MM:SS`. Instants are
 * written as the wall clock of the data time zone:
 * Postgres gets the offset too (a `timestamp` column ignores it and reads the data-zone wall clock, a
 * `timestamptz` column honours it), MySQL gets the bare wall clock (DATETIME is zone-less; MariaDB does
 * not accept offsets in date-time literals).
 */
export function render(value: Typed, dialect: Dialect, time: TimeContext): unknown {
  switch (value.t) {
    case 'null':
      return null;
    case 'text':
    case 'number':
    case 'boolean':
      return value.v;
    case 'date':
      return formatDay(value.day);
    case 'time':
      return formatTimeOfDay(value.sec);
    case 'instant':
      return renderInstant(value.ms, dialect, time.dataZone);
  }
}

export function renderInstant(ms: number, dialect: Dialect, zone: string): string {
  const wall = toWall(zone, ms);
  return dialect === 'postgres' ? `${formatWall(wall)}${formatOffset(wall - ms)}` : formatWall(wall);
}
