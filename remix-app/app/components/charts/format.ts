import type { Cell, DataField } from '../../lib/types';

const NUMBER = new Intl.NumberFormat('en', { maximumFractionDigits: 2 });
const COMPACT = new Intl.NumberFormat('en', { notation: 'compact', maximumFractionDigits: 1 });

export function toNumber(v: Cell | undefined): number | null {
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (typeof v === 'string' && v.trim() !== '') {
    const n = Number(v);
    return Number.isFinite(n) ? n : null;
  }
  if (typeof v === 'boolean') return v ? 1 : 0;
  return null;
}

export function formatNumber(n: number): string {
  return NUMBER.format(n);
}

export function formatCompact(n: number): string {
  return Math.abs(n) >= 1_000 ? COMPACT.format(n) : NUMBER.format(n);
}

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}/;

export function isDateType(field: DataField | undefined): boolean {
  return Boolean(field && /date|time/i.test(field.data_type));
}

/** A date label that matches the grain of the series: month starts read as "Jan 2026". */
export function dateLabeler(values: Cell[]): (v: Cell) => string {
  const dates = values.map((v) => (typeof v === 'string' && (DATE_ONLY.test(v) || DATE_TIME.test(v)) ? new Date(DATE_ONLY.test(v) ? `${v}T00:00:00Z` : v) : null));
  const valid = dates.filter((d): d is Date => d !== null && !Number.isNaN(d.getTime()));
  const monthly = valid.length > 0 && valid.every((d) => d.getUTCDate() === 1 && d.getUTCHours() === 0);
  const yearly = monthly && valid.every((d) => d.getUTCMonth() === 0);
  const opts: Intl.DateTimeFormatOptions = yearly
    ? { year: 'numeric', timeZone: 'UTC' }
    : monthly
      ? { month: 'short', year: 'numeric', timeZone: 'UTC' }
      : { month: 'short', day: 'numeric', year: 'numeric', timeZone: 'UTC' };
  const fmt = new Intl.DateTimeFormat('en', opts);
  return (v) => {
    if (typeof v !== 'string') return formatCell(v);
    const d = new Date(DATE_ONLY.test(v) ? `${v}T00:00:00Z` : v);
    return Number.isNaN(d.getTime()) ? v : fmt.format(d);
  };
}

const TIMESTAMP = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2})(:\d{2}(\.\d+)?)?(Z|[+-]00(:?00)?)?$/;

/** Identifiers read better without thousands separators. */
function isIdField(field: DataField | undefined): boolean {
  return Boolean(field && (field.name === 'id' || field.name.endsWith('_id')));
}

export function formatCell(v: Cell | undefined, field?: DataField): string {
  if (v === null || v === undefined) return '—';
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'number') return isIdField(field) ? String(v) : formatNumber(v);
  if (field && /datetime|timestamp/i.test(field.data_type)) {
    const m = TIMESTAMP.exec(v);
    if (m) return `${m[1]} ${m[2]}${m[5] ? ' UTC' : ''}`;
  }
  if (field && /numeric|decimal|float|double|real|int/i.test(field.data_type)) {
    const n = toNumber(v);
    if (n !== null) return formatNumber(n);
  }
  return String(v);
}

export function isNumericField(field: DataField): boolean {
  return /numeric|decimal|float|double|real|int|number/i.test(field.data_type);
}
