/** Line chart: wide (a line per value column) or long (a line per series value) data over an ordered x. */
import { ResponsiveLine } from '@nivo/line';
import { useMemo } from 'react';
import type { LineConfig } from '../config';
import { toSeries } from '../data';
import { columnLabel, dateLabeler, formatCell, formatCompact, formatNumber, isDateType } from '../format';
import { ChartTooltip, seriesTooltipRows } from '../tooltip';
import { legendFor, nivoTheme, thinTicks, withAxisTitles } from '../theme';
import { idx, idxList, type ViewProps } from './types';
import { useSize } from './useWidth';

export default function LineChart({ config, roles, data, colors, mode, title, zone }: ViewProps<LineConfig>) {
  const x = idx(roles, 'x')!;
  const y = idxList(roles, 'y');
  const seriesCol = idx(roles, 'series');
  const field = (i: number) => data.fields.find((f) => f.idx === i) ?? data.fields[i];
  const [ref, size] = useSize();
  const { xs, series } = useMemo(() => toSeries(data.rows, x, y, seriesCol, (i) => columnLabel(field(i))), [data, x, y.join(), seriesCol]);
  const label = isDateType(field(x)) ? dateLabeler(xs, zone) : (v: unknown) => formatCell(v as never, field(x));
  const labels = xs.map((v) => label(v as never));
  const missing = config.missing ?? 'gap';
  const lines = series.map((s) => ({
    id: s.name,
    data: s.values.map((v, i) => ({ x: labels[i]!, y: v === null ? (missing === 'zero' ? 0 : null) : v })).filter((d) => missing !== 'connect' || d.y !== null),
  }));
  const colorOf = colors(lines.map((l) => l.id));
  const xName = columnLabel(field(x));
  const allPositive = lines.every((l) => l.data.every((d) => d.y === null || d.y >= 0));
  const maxTicks = Math.max(2, Math.floor((size.width || 800) / 110));
  const legend = legendFor(config.legend, lines.length);
  const fmt = config.format ?? {};
  const stacked = Boolean(config.stacked);
  const axes = withAxisTitles({ top: 16, right: 24, bottom: 40, left: 56, ...legend.margin }, legend.legends, config.x_title, config.y_title);
  return (
    <div ref={ref} className="chart__measure">
      <ResponsiveLine
        data={lines}
        margin={axes.margin}
        xScale={{ type: 'point' }}
        yScale={{ type: 'linear', min: config.zero !== false && allPositive ? 0 : 'auto', max: 'auto', nice: true, stacked }}
        curve={config.smooth === false ? 'linear' : 'monotoneX'}
        colors={(s) => colorOf.get(String(s.id))!}
        lineWidth={2.25}
        enablePoints={config.points ?? labels.length <= 40}
        pointSize={6}
        pointColor={{ from: 'series.color' }}
        enableArea={config.area ?? (lines.length === 1 && !stacked)}
        areaOpacity={config.area ? 0.25 : 0.08}
        enableGridX={false}
        gridYValues={5}
        useMesh
        enableSlices={lines.length > 1 ? 'x' : false}
        animate={false}
        theme={nivoTheme(mode)}
        axisBottom={{ tickSize: 0, tickPadding: 10, tickValues: thinTicks(labels, Math.min(10, maxTicks)), ...axes.bottom }}
        axisLeft={{ tickSize: 0, tickPadding: 8, tickValues: 5, format: (v) => formatCompact(Number(v), fmt), ...axes.left }}
        yFormat={(v) => formatNumber(Number(v), fmt)}
        markers={config.reference_line !== undefined ? [{ axis: 'y', value: config.reference_line, lineStyle: { stroke: '#ef4444', strokeWidth: 1.5, strokeDasharray: '6 4' }, legend: formatNumber(config.reference_line, fmt), textStyle: { fill: '#ef4444', fontSize: 11 } }] : []}
        tooltip={({ point }) => (
          <ChartTooltip rows={seriesTooltipRows({
            x: { column: xName, value: String(point.data.xFormatted) },
            series: seriesCol === undefined ? undefined : { column: columnLabel(field(seriesCol)), value: String(point.seriesId) },
            measure: { column: seriesCol === undefined ? String(point.seriesId) : columnLabel(field(y[0]!)), value: String(point.data.yFormatted) },
            color: point.seriesColor,
          })} />
        )}
        sliceTooltip={({ slice }) => (
          // Every series at one x: the x column first, then each series by name (the measure's column for long data).
          <ChartTooltip
            title={seriesCol === undefined ? undefined : `${columnLabel(field(y[0]!))} by ${columnLabel(field(seriesCol))}`}
            rows={[
              { name: xName, value: String(slice.points[0]?.data.xFormatted ?? '') },
              ...slice.points.map((p) => ({ name: String(p.seriesId), value: String(p.data.yFormatted), color: p.seriesColor })),
            ]}
          />
        )}
        legends={axes.legends}
        role="img"
        ariaLabel={title}
      />
    </div>
  );
}
