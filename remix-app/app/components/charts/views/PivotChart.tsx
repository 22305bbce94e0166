/** Pivot / cohort table: one measure across a row and a column dimension, with totals, percentages and colour. */
import { useMemo } from 'react';
import type { PivotConfig } from '../config';
import { pivot, pivotPercent } from '../data';
import { columnLabel, columnZone, formatCell, formatNumber } from '../format';
import { idx, type ViewProps } from './types';
import { useRowWindow } from './useRowWindow';

/** A cell background on the palette's first colour, by the value's place between min and max. */
export function heat(value: number | null, min: number, max: number, color: string): string | undefined {
  if (value === null || !(max > min)) return undefined;
  const share = Math.round(((value - min) / (max - min)) * 70) + 6;
  return `color-mix(in srgb, ${color} ${share}%, transparent)`;
}

export default function PivotChart({ config, roles, data, palette, title, zone }: ViewProps<PivotConfig>) {
  const r = idx(roles, 'rows')!,
    c = idx(roles, 'columns')!,
    v = idx(roles, 'value')!;
  const p = useMemo(
    () => pivot(data.rows, r, c, v, config.sort_rows ?? 'label', config.sort_columns ?? 'label'),
    [data.rows, r, c, v, config.sort_rows, config.sort_columns],
  );
  const field = (i: number) => data.fields.find((f) => f.idx === i) ?? data.fields[i];
  const rowZone = useMemo(() => columnZone(data.rows, r, field(r), zone), [data.rows, r, zone]);
  const colZone = useMemo(() => columnZone(data.rows, c, field(c), zone), [data.rows, c, zone]);
  const mode = config.percentage ?? null;
  const shown = (ri: number, ci: number) => (mode ? pivotPercent(p, ri, ci, mode) : p.cells[ri]![ci]!);
  const text = (n: number | null) => (n === null ? (config.empty ?? '') : mode ? `${formatNumber(n, { decimals: 1 })} %` : formatNumber(n, config.format));
  let min = Infinity,
    max = -Infinity;
  if (config.color_values) {
    p.rowKeys.forEach((_, ri) =>
      p.colKeys.forEach((__, ci) => {
        const n = shown(ri, ci);
        if (n !== null) {
          min = Math.min(min, n);
          max = Math.max(max, n);
        }
      }),
    );
  }
  const { scrollRef, items, padTop, padBottom } = useRowWindow(p.rowKeys.length, 34);
  const colSpan = p.colKeys.length + 1 + (config.row_totals ? 1 : 0);
  return (
    <div className="table-view pivot-view" data-testid="pivot-view">
      <div className="table-view__scroll" ref={scrollRef} tabIndex={0} role="region" aria-label={title}>
        <table>
          <thead>
            <tr>
              <th className="pivot-view__corner">
                {columnLabel(field(r))} \ {columnLabel(field(c))}
              </th>
              {p.colKeys.map((k, i) => (
                <th key={i} className="num">
                  {formatCell(k, field(c), undefined, colZone)}
                </th>
              ))}
              {config.row_totals ? <th className="num">Total</th> : null}
            </tr>
          </thead>
          <tbody>
            {padTop > 0 ? (
              <tr aria-hidden="true" style={{ height: padTop }}>
                <td colSpan={colSpan} />
              </tr>
            ) : null}
            {items.map((vi) => {
              const ri = vi.index;
              return (
                <tr key={ri} style={{ height: 34 }}>
                  <th scope="row">{formatCell(p.rowKeys[ri], field(r), undefined, rowZone)}</th>
                  {p.colKeys.map((_, ci) => {
                    const n = shown(ri, ci);
                    return (
                      <td key={ci} className="num" style={{ background: config.color_values ? heat(n, min, max, palette[0]!) : undefined }}>
                        {text(n)}
                      </td>
                    );
                  })}
                  {config.row_totals ? <td className="num pivot-view__total">{formatNumber(p.rowTotals[ri]!, config.format)}</td> : null}
                </tr>
              );
            })}
            {padBottom > 0 ? (
              <tr aria-hidden="true" style={{ height: padBottom }}>
                <td colSpan={colSpan} />
              </tr>
            ) : null}
          </tbody>
          {config.column_totals ? (
            <tfoot>
              <tr>
                <th scope="row">Total</th>
                {p.colTotals.map((t, i) => (
                  <td key={i} className="num">
                    {formatNumber(t, config.format)}
                  </td>
                ))}
                {config.row_totals ? <td className="num">{formatNumber(p.total, config.format)}</td> : null}
              </tr>
            </tfoot>
          ) : null}
        </table>
      </div>
    </div>
  );
}
