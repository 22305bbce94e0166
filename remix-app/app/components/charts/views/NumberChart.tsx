/** One KPI in large type, with a change arrow against a comparison column or the second row. */
import type { NumberConfig } from '../config';
import { toNumber } from '../data';
import { columnLabel, columnZone, formatCell, formatCompact, formatNumber } from '../format';
import { idx, type ViewProps } from './types';

function kpiChange(value: number | null, compare: number | null, as: 'percent' | 'absolute' = 'percent'): number | null {
  if (value === null || compare === null) return null;
  if (as === 'absolute') return value - compare;
  if (compare === 0) return null;
  return ((value - compare) / Math.abs(compare)) * 100;
}

export default function NumberChart({ config, roles, data, zone }: ViewProps<NumberConfig>) {
  const v = idx(roles, 'value')!;
  const field = data.fields.find((f) => f.idx === v) ?? data.fields[v];
  const first = data.rows[0] ?? [];
  const raw = first[v];
  const value = toNumber(raw);
  const compareIndex = idx(roles, 'compare');
  const compareRaw = roles.secondRow ? data.rows[1]?.[v] : compareIndex !== undefined ? first[compareIndex] : undefined;
  const compare = compareRaw === undefined ? null : toNumber(compareRaw);
  const fmt = { ...config.format, prefix: config.prefix ?? config.format?.prefix, suffix: config.suffix ?? config.format?.suffix };
  // No row, or a NULL value: say so (a number format would turn it into "0" or "0.0 %").
  const noData = raw === null || raw === undefined;
  const text = noData
    ? 'No data'
    : value === null
      ? formatCell(raw, field, undefined, columnZone(data.rows.slice(0, 1), v, field, zone)) || '—'
      : formatNumber(value, { ...fmt, prefix: '', suffix: '' });
  // A comparison was asked for but there is nothing to compare with: no second row, or an empty comparison cell.
  const wantsCompare = Boolean(roles.secondRow) || compareIndex !== undefined;
  const noPrevious = !noData && value !== null && wantsCompare && compare === null;
  const change = kpiChange(value, compare, config.change_as);
  const good = change === null || change === 0 ? null : change > 0 !== Boolean(config.down_is_good);
  const compareLabel = roles.secondRow ? 'previous' : compareIndex !== undefined ? columnLabel(data.fields.find((f) => f.idx === compareIndex)) : '';
  return (
    <div className="number-view" data-testid="number-view">
      <p className={`number-view__value${noData ? ' number-view__value--empty' : ''}`} title={text}>
        {fmt.prefix && !noData ? <span className="number-view__affix">{fmt.prefix}</span> : null}
        <span
          data-testid="number-value"
          data-empty={noData ? 'true' : undefined}
          style={noData ? { color: 'var(--text-3)', fontSize: '0.6em', fontWeight: 600 } : undefined}
        >
          {text}
        </span>
        {fmt.suffix && !noData ? <span className="number-view__affix">{fmt.suffix}</span> : null}
      </p>
      {config.label ? <p className="number-view__label">{config.label}</p> : null}
      {change !== null && compare !== null ? (
        <p className={`number-view__delta ${good === null ? '' : good ? 'is-good' : 'is-bad'}`} data-testid="number-change">
          <span aria-label={change >= 0 ? 'up' : 'down'}>{change > 0 ? '▲' : change < 0 ? '▼' : '■'}</span>{' '}
          {config.change_as === 'absolute' ? formatNumber(Math.abs(change), fmt) : `${formatNumber(Math.abs(change), { decimals: 1 })} %`}
          <span className="muted">
            {' '}
            vs {formatCompact(compare, fmt)}
            {compareLabel ? ` (${compareLabel})` : ''}
          </span>
        </p>
      ) : noPrevious ? (
        <p className="number-view__delta muted" data-testid="number-change">
          No previous period to compare with
        </p>
      ) : null}
    </div>
  );
}
