/** Bar chart: vertical or horizontal, grouped, stacked or stacked to 100 %, wide or long data. */
import { ResponsiveBar } from '@nivo/bar';
import { useMemo } from 'react';
import type { BarConfig } from '../config';
import { toSeries } from '../data';
import { rowFor } from '../drilldown';
import { columnLabel, dateLabeler, formatCell, formatCompact, formatNumber, isDateType, truncate } from '../format';
import { ChartTooltip, seriesTooltipRows } from '../tooltip';
import { legendFor, nivoTheme, thinTicks, withAxisTitles } from '../theme';
import { idx, idxList, type ViewProps } from './types';
import { useSize } from './useWidth';

export default function BarChart({ config, roles, data, colors, mode, title, zone, onDrill }: ViewProps<BarConfig>) {
  const x = idx(roles, 'x')!;
  const y = idxList(roles, 'y');
  const seriesCol = idx(roles, 'series');
  const field = (i: number) => data.fields.find((f) => f.idx === i) ?? data.fields[i];
  const [ref, size] = useSize();
  const { xs, series } = useMemo(() => toSeries(data.rows, x, y, seriesCol, (i) => columnLabel(field(i))), [data, x, y.join(), seriesCol]);
  const label = isDateType(field(x)) ? dateLabeler(xs, zone) : (v: unknown) => formatCell(v as never, field(x)) || '—';
  const percent = config.grouping === 'percent';
  const keys = series.map((s) => s.name);
  const colorOf = colors(keys);
  const bars = xs.map((xv, i) => {
    const datum: Record<string, string | number> = { __x: `${label(xv as never)}\u200b${i}` };
    const sum = percent ? series.reduce((s, ser) => s + Math.abs(ser.values[i] ?? 0), 0) : 1;
    for (const s of series) datum[s.name] = percent ? ((s.values[i] ?? 0) / (sum || 1)) * 100 : (s.values[i] ?? 0);
    return datum;
  });
  const horizontal = config.layout === 'horizontal';
  if (horizontal) bars.reverse();
  const show = (v: string | number) => truncate(String(v).split('\u200b')[0]!, 18);
  const categories = bars.map((d) => d.__x as string);
  const longest = Math.min(
    22,
    categories.reduce((m, c) => Math.max(m, show(c).length), 0),
  );
  const maxTicks = Math.max(2, Math.floor((size.width || 800) / 90));
  const rotate = !horizontal && categories.length > maxTicks;
  const legend = legendFor(config.legend, keys.length);
  const fmt = percent ? { decimals: 1, suffix: ' %' } : (config.format ?? {});
  // Categories run along the left axis of horizontal bars, so the titles swap sides with them.
  const axes = withAxisTitles(
    { top: 12, right: 20, bottom: horizontal ? 36 : rotate ? 70 : 40, left: horizontal ? Math.max(60, longest * 6.6 + 18) : 60, ...legend.margin },
    legend.legends,
    horizontal ? config.y_title : config.x_title,
    horizontal ? config.x_title : config.y_title,
  );
  return (
    <div ref={ref} className="chart__measure">
      <ResponsiveBar
        data={bars}
        keys={keys}
        indexBy="__x"
        layout={horizontal ? 'horizontal' : 'vertical'}
        groupMode={config.grouping === 'stacked' || percent ? 'stacked' : 'grouped'}
        margin={axes.margin}
        padding={0.28}
        innerPadding={keys.length > 1 && config.grouping !== 'stacked' && !percent ? 2 : 0}
        colors={(d) => colorOf.get(String(d.id))!}
        borderRadius={3}
        enableLabel={Boolean(config.labels)}
        label={(d) => formatCompact(Number(d.value), fmt)}
        labelSkipWidth={28}
        labelSkipHeight={14}
        labelTextColor="#ffffff"
        animate={false}
        theme={nivoTheme(mode)}
        valueFormat={(v) => formatNumber(Number(v), fmt)}
        axisBottom={
          horizontal
            ? { tickSize: 0, tickPadding: 8, tickValues: 5, format: (v) => formatCompact(Number(v), fmt), ...axes.bottom }
            : {
                tickSize: 0,
                tickPadding: 8,
                tickRotation: rotate ? -38 : 0,
                tickValues: thinTicks(categories, rotate ? maxTicks * 2 : maxTicks),
                format: show,
                ...axes.bottom,
              }
        }
        axisLeft={
          horizontal
            ? { tickSize: 0, tickPadding: 8, format: show, ...axes.left }
            : { tickSize: 0, tickPadding: 8, tickValues: 5, format: (v) => formatCompact(Number(v), fmt), ...axes.left }
        }
        gridYValues={horizontal ? undefined : 5}
        enableGridX={horizontal}
        enableGridY={!horizontal}
        tooltip={(d) => (
          <ChartTooltip
            rows={seriesTooltipRows({
              x: { column: columnLabel(field(x)), value: String(d.indexValue).split('\u200b')[0]! },
              series: seriesCol === undefined ? undefined : { column: columnLabel(field(seriesCol)), value: String(d.id) },
              // Wide data: each series is a value column, named after it.
              measure: { column: seriesCol === undefined ? String(d.id) : columnLabel(field(y[0]!)), value: `${formatNumber(Number(d.value), fmt)}` },
              color: d.color,
            })}
          />
        )}
        onClick={
          onDrill
            ? (d) => {
                // The bar's category is the x value at the index written after the zero-width space.
                const i = Number(String(d.indexValue).split('\u200b')[1]);
                const row = rowFor(data.rows, x, xs[i], seriesCol, seriesCol === undefined ? undefined : String(d.id));
                if (row) onDrill(row);
              }
            : undefined
        }
        legends={axes.legends.map((l) => ({ ...l, dataFrom: 'keys' as const }))}
        role="img"
        ariaLabel={title}
      />
    </div>
  );
}
