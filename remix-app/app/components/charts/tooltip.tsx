/**
 * The charts' tooltips: every line names the column its value comes from ("Country: France",
 * "Revenue: 1,234"), not only the values. The row builders are pure (unit-tested); the component draws them.
 */

export interface TooltipRow {
  /** The column's label (or a series name on a line chart's multi-series tooltip). */
  name: string;
  value: string;
  /** The series' colour chip. */
  color?: string;
}

/** A point, bar or slice of series data: its x (category), its series when the data is long, and the measure. */
export function seriesTooltipRows(o: {
  x: { column: string; value: string };
  /** Long data: the series column and this point's series value. */
  series?: { column: string; value: string };
  /** The measure's column (wide data: the series is the column) and its formatted value. */
  measure: { column: string; value: string };
  color?: string;
}): TooltipRow[] {
  const rows: TooltipRow[] = [{ name: o.x.column, value: o.x.value }];
  if (o.series) rows.push({ name: o.series.column, value: o.series.value, color: o.color });
  rows.push({ name: o.measure.column, value: o.measure.value, color: o.series ? undefined : o.color });
  return rows;
}

/** A hierarchy node: each level's column with the node's value at that level, then the measure. */
export function pathTooltipRows(levels: string[], path: string[], measure: { column: string; value: string }): TooltipRow[] {
  return [...path.map((value, i) => ({ name: levels[i] ?? levels[levels.length - 1] ?? '', value })), { name: measure.column, value: measure.value }];
}

export function ChartTooltip({ rows, title }: { rows: TooltipRow[]; title?: string }) {
  return (
    <div className="chart-tooltip" data-testid="chart-tooltip">
      {title ? <strong>{title}</strong> : null}
      {rows.map((r, i) => (
        <div key={i} className="chart-tooltip__row">
          {r.color ? (
            <span aria-hidden="true" style={{ display: 'inline-block', width: 10, height: 10, borderRadius: 2, background: r.color, marginRight: 6 }} />
          ) : null}
          <span className="chart-tooltip__name">{r.name}:</span> <strong>{r.value}</strong>
        </div>
      ))}
    </div>
  );
}
