/** Multi-pivot / cohort table: nested row and column dimensions, several measures, subtotals on every level, collapsible groups. */
import { useMemo, useState } from 'react';
import type { Aggregation, MultiPivotConfig } from '../config';
import { multiPivot, pathKey } from '../data';
import { columnLabel, formatCell, formatNumber } from '../format';
import { idxList, type ViewProps } from './types';
import { useRowWindow } from './useRowWindow';

const AGG_LABEL: Record<Aggregation, string> = {
  sum: 'Sum',
  avg: 'Avg',
  median: 'Median',
  min: 'Min',
  max: 'Max',
  count: 'Count',
  count_distinct: 'Distinct',
  concat: 'List',
};

export default function MultiPivotChart({ config, roles, data, title }: ViewProps<MultiPivotConfig>) {
  const rowDims = idxList(roles, 'rows');
  const colDims = idxList(roles, 'columns');
  const valueCols = idxList(roles, 'values');
  const field = (i: number) => data.fields.find((f) => f.idx === i) ?? data.fields[i];
  const values = valueCols.map((index) => {
    const name = field(index)?.name;
    const agg = config.values?.find((v) => v.column === name)?.aggregation ?? 'sum';
    return { index, aggregation: agg };
  });
  const [collapsed, setCollapsed] = useState<Set<string>>(() => new Set());
  const mp = useMemo(
    () => multiPivot(data.rows, rowDims, colDims, values, collapsed),
    [data.rows, rowDims.join(), colDims.join(), values.map((v) => `${v.index}${v.aggregation}`).join(), collapsed],
  );
  const showSubtotals = config.subtotals !== false;
  const rows = showSubtotals ? mp.rows : mp.rows.filter((r) => !r.group || collapsed.has(pathKey(r.path)));
  const { scrollRef, items, padTop, padBottom } = useRowWindow(rows.length, 32);
  const cols = mp.colPaths.length ? mp.colPaths : [[]];
  const fmt = (v: number | string | null, agg: Aggregation) =>
    v === null ? '' : typeof v === 'string' ? v : formatNumber(v, agg === 'count' || agg === 'count_distinct' ? { decimals: 0 } : config.format);
  const toggle = (key: string) =>
    setCollapsed((s) => {
      const n = new Set(s);
      if (n.has(key)) n.delete(key);
      else n.add(key);
      return n;
    });
  const width = cols.length * values.length + 1;
  return (
    <div className="table-view pivot-view" data-testid="multi-pivot-view">
      <div className="table-view__scroll" ref={scrollRef} tabIndex={0} role="region" aria-label={title}>
        <table>
          <thead>
            {colDims.map((d, level) => (
              <tr key={d}>
                <th>{level === 0 ? rowDims.map((r) => columnLabel(field(r))).join(' › ') : ''}</th>
                {cols.map((path, ci) => (
                  <th key={ci} colSpan={values.length} className="num">
                    {formatCell(path[level], field(d))}
                  </th>
                ))}
              </tr>
            ))}
            <tr>
              <th>{colDims.length ? '' : rowDims.map((r) => columnLabel(field(r))).join(' › ')}</th>
              {cols.flatMap((_, ci) =>
                values.map((v) => (
                  <th key={`${ci}-${v.index}`} className="num">
                    {columnLabel(field(v.index))}
                    {v.aggregation !== 'sum' ? ` (${AGG_LABEL[v.aggregation]})` : ''}
                  </th>
                )),
              )}
            </tr>
          </thead>
          <tbody>
            {padTop > 0 ? (
              <tr aria-hidden="true" style={{ height: padTop }}>
                <td colSpan={width} />
              </tr>
            ) : null}
            {items.map((vi) => {
              const row = rows[vi.index]!;
              const key = pathKey(row.path);
              const isCollapsed = collapsed.has(key);
              return (
                <tr key={key} className={row.group ? 'pivot-view__group' : undefined} style={{ height: 32 }}>
                  <th scope="row" style={{ paddingLeft: 10 + row.depth * 18 }}>
                    {row.group ? (
                      <button type="button" className="pivot-view__toggle" aria-expanded={!isCollapsed} onClick={() => toggle(key)}>
                        {isCollapsed ? '▸' : '▾'}
                      </button>
                    ) : null}
                    {formatCell(row.path[row.path.length - 1], field(rowDims[row.depth]!)) || '—'}
                  </th>
                  {row.cells.map((v, i) => (
                    <td key={i} className="num">
                      {fmt(v, values[i % values.length]!.aggregation)}
                    </td>
                  ))}
                </tr>
              );
            })}
            {padBottom > 0 ? (
              <tr aria-hidden="true" style={{ height: padBottom }}>
                <td colSpan={width} />
              </tr>
            ) : null}
          </tbody>
          {config.grand_totals !== false ? (
            <tfoot>
              <tr>
                <th scope="row">Total</th>
                {mp.total.map((v, i) => (
                  <td key={i} className="num">
                    {fmt(v, values[i % values.length]!.aggregation)}
                  </td>
                ))}
              </tr>
            </tfoot>
          ) : null}
        </table>
      </div>
    </div>
  );
}
