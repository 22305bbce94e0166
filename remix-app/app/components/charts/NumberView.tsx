import type { Cell } from '../../lib/types';
import { Columns } from './columns';
import type { ChartConfig } from './config';
import { formatCompact, formatNumber, toNumber } from './format';

type NumberConfig = Extract<ChartConfig, { type: 'number' }>;

export function NumberView({ config, columns, rows }: { config: NumberConfig; columns: Columns; rows: Cell[][] }) {
  const first = rows[0] ?? [];
  const raw = columns.get(first, config.value);
  const value = toNumber(raw ?? null);
  const compare = config.compare ? toNumber(columns.get(first, config.compare) ?? null) : null;
  const text = value === null ? String(raw ?? '—') : formatNumber(value);
  let delta: { pct: number; up: boolean } | null = null;
  if (value !== null && compare !== null && compare !== 0) {
    const pct = ((value - compare) / Math.abs(compare)) * 100;
    delta = { pct, up: pct >= 0 };
  }
  return (
    <div className="number-view">
      <p className="number-view__value" title={text}>
        {config.prefix ? <span className="number-view__affix">{config.prefix}</span> : null}
        <span data-testid="number-value">{text}</span>
        {config.suffix ? <span className="number-view__affix">{config.suffix}</span> : null}
      </p>
      <p className="number-view__label">{columns.label(config.value)}</p>
      {delta && compare !== null ? (
        <p className={`number-view__delta ${delta.up ? 'is-up' : 'is-down'}`}>
          <span aria-hidden="true">{delta.up ? '▲' : '▼'}</span> {formatNumber(Math.abs(delta.pct))}%
          <span className="muted"> vs {config.prefix ?? ''}{formatCompact(compare)}{config.suffix ?? ''} ({columns.label(config.compare!)})</span>
        </p>
      ) : null}
    </div>
  );
}
