/** Formatting of values in charts and tables: numbers after the chart's number format, dates by their grain. */
import type { Cell, DataField } from '../../lib/types';
import type { NumberFormat } from './config';
import { toNumber as toNum } from './data';

export const toNumber = toNum;

const plain = new Map<number, Intl.NumberFormat>();
const compact = new Map<number, Intl.NumberFormat>();
function nf(cache: Map<number, Intl.NumberFormat>, decimals: number, opts: Intl.NumberFormatOptions) {
  let f = cache.get(decimals);
  if (!f) cache.set(decimals, (f = new Intl.NumberFormat('en', { ...opts, maximumFractionDigits: decimals, minimumFractionDigits: opts.notation ? 0 : undefined })));
  return f;
}

/** Formats a number: decimals (at most 2 by default), short forms from 1,000 on when compact, percent, prefix and suffix. */
export function formatNumber(n: number, format: NumberFormat = {}): string {
  let v = n;
  let suffix = format.suffix ?? '';
  if (format.percent) {
    v = n * 100;
    suffix = `%${suffix}`;
  }
  const decimals = format.decimals ?? 2;
  const body = format.compact && Math.abs(v) >= 1000
    ? nf(compact, Math.min(decimals, 1), { notation: 'compact' }).format(v)
    : format.decimals !== undefined
      ? new Intl.NumberFormat('en', { minimumFractionDigits: decimals, maximumFractionDigits: decimals }).format(v)
      : nf(plain, decimals, {}).format(v);
  return `${format.prefix ?? ''}${body}${suffix}`;
}

/** Short axis labels: 12.3K, 4.5M. */
export function formatCompact(n: number, format: NumberFormat = {}): string {
  return formatNumber(n, { ...format, compact: true, decimals: Math.abs(n) >= 1000 ? 1 : format.decimals });
}

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}/;

export function isDateType(field: DataField | undefined): boolean {
  return Boolean(field && /^(date|datetime|timestamp)$/i.test(field.data_type));
}

const parseDate = (v: string) => new Date(DATE_ONLY.test(v) ? `${v}T00:00:00Z` : v.includes('Z') || /[+-]\d\d:?\d\d$/.test(v) ? v : `${v.replace(' ', 'T')}Z`);

/** A date label that matches the grain of the series: month starts read "Jan 2026", whole days "Mar 3, 2026", else with the time. */
export function dateLabeler(values: Cell[]): (v: Cell) => string {
  const dates = values
    .map((v) => (typeof v === 'string' && (DATE_ONLY.test(v) || DATE_TIME.test(v)) ? parseDate(v) : null))
    .filter((d): d is Date => d !== null && !Number.isNaN(d.getTime()));
  const midnight = dates.every((d) => d.getUTCHours() === 0 && d.getUTCMinutes() === 0);
  const monthly = dates.length > 0 && midnight && dates.every((d) => d.getUTCDate() === 1);
  const yearly = monthly && dates.every((d) => d.getUTCMonth() === 0);
  const opts: Intl.DateTimeFormatOptions = yearly
    ? { year: 'numeric', timeZone: 'UTC' }
    : monthly
      ? { month: 'short', year: 'numeric', timeZone: 'UTC' }
      : midnight
        ? { month: 'short', day: 'numeric', year: 'numeric', timeZone: 'UTC' }
        : { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZone: 'UTC' };
  const fmt = new Intl.DateTimeFormat('en', opts);
  return (v) => {
    if (typeof v !== 'string') return formatCell(v);
    const d = parseDate(v);
    return Number.isNaN(d.getTime()) ? v : fmt.format(d);
  };
}

const TIMESTAMP = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2})(:\d{2})?(\.\d+)?(Z|[+-]\d{2}(:?\d{2})?)?$/;

/** Identifiers read better without thousands separators. */
function isIdField(field: DataField | undefined): boolean {
  return Boolean(field && (field.name === 'id' || field.name.endsWith('_id') || /^(year|zip|postcode)$/i.test(field.name)));
}

/** A table cell: numbers with separators, date-times to the minute (seconds when set), booleans as ✓/✗, NULL empty. */
export function formatCell(v: Cell | undefined | unknown, field?: DataField, format?: NumberFormat): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'boolean') return v ? '✓' : '✗';
  if (typeof v === 'number') return isIdField(field) ? String(v) : formatNumber(v, format);
  if (typeof v === 'object') return JSON.stringify(v);
  const s = String(v);
  if (field && /^(datetime|timestamp)$/i.test(field.data_type)) {
    const m = TIMESTAMP.exec(s);
    if (m) return `${m[1]} ${m[2]}${m[3] && m[3] !== ':00' ? m[3] : ''}`;
  }
  if (field && /^(float|bigint|integer|decimal)$/i.test(field.data_type) && !isIdField(field)) {
    const n = Number(s);
    if (Number.isFinite(n)) return formatNumber(n, format);
  }
  return s;
}

export function isNumericField(field: DataField): boolean {
  return /^(integer|bigint|float|decimal|number)$/i.test(field.data_type);
}

/** "revenue_eur" → "Revenue Eur" unless the result names it (human_name). */
export function columnLabel(field: DataField | undefined): string {
  if (!field) return '';
  return field.human_name || field.name.replace(/[_\s]+/g, ' ').trim().replace(/\b\w/g, (c) => c.toUpperCase());
}

export function truncate(s: string, n: number): string {
  return s.length > n ? `${s.slice(0, n - 1)}…` : s;
}
