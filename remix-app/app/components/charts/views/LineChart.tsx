/** Line chart: wide (a line per value column) or long (a line per series value) data over an ordered x. */
import { ResponsiveLine } from '@nivo/line';
import { useMemo } from 'react';
import type { LineConfig } from '../config';
import { dualAxis } from '../axes';
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
  const yRight = idxList(roles, 'yRight');
  const { xs, series } = useMemo(
    () => toSeries(data.rows, x, [...y, ...yRight], seriesCol, (i) => columnLabel(field(i))),
    [data, x, y.join(), yRight.join(), seriesCol],
  );
  // Series of the right axis are the last ones (wide data: one per column).
  const rightNames = new Set(
    series
      .slice(y.length)
      .map((s) => s.name)
      .filter(() => yRight.length > 0),
  );
  const label = isDateType(field(x)) ? dateLabeler(xs, zone) : (v: unknown) => formatCell(v as never, field(x));
  const labels = xs.map((v) => label(v as never));
  const missing = config.missing ?? 'gap';
  const valuesOf = (right: boolean) => series.filter((s) => rightNames.has(s.name) === right).flatMap((s) => s.values.filter((v): v is number => v !== null));
  const dual = rightNames.size ? dualAxis(valuesOf(false), valuesOf(true), config.zero !== false) : null;
  const lines = series.map((s) => {
    const right = rightNames.has(s.name);
    return {
      id: s.name,
      data: s.values
        .map((v, i) => {
          const value = v === null ? (missing === 'zero' ? 0 : null) : v;
          // `orig` keeps a right-axis value in its own units (tooltips); `y` is where it is drawn.
          return { x: labels[i]!, y: value !== null && right && dual ? dual.toLeft(value) : value, orig: value };
        })
        .filter((d) => missing !== 'connect' || d.y !== null),
    };
  });
  const colorOf = colors(lines.map((l) => l.id));
  const xName = columnLabel(field(x));
  const allPositive = lines.every((l) => l.data.every((d) => d.y === null || d.y >= 0));
  const maxTicks = Math.max(2, Math.floor((size.width || 800) / 110));
  const legend = legendFor(config.legend, lines.length);
  const fmt = config.format ?? {};
  // Lines on two scales do not add up: no stacking with a second axis.
  const stacked = Boolean(config.stacked) && !dual;
  const axes = withAxisTitles({ top: 16, right: 24, bottom: 40, left: 56, ...legend.margin }, legend.legends, config.x_title, config.y_title);
  if (dual) {
    // Room for the right axis' ticks (and title); a legend on the right moves out past them.
    const extra = 48 + (config.y_right_title ? 20 : 0);
    axes.margin = { ...axes.margin, right: axes.margin.right + extra };
    axes.legends = axes.legends.map((l) => (l.anchor === 'right' ? { ...l, translateX: (l.translateX ?? 0) + extra } : l));
  }
  // The number format belongs to the left axis' measures; right-axis values are written plainly in their own units.
  const shown = (d: { orig?: unknown; y?: unknown }, id?: string | number) =>
    formatNumber(Number(d.orig ?? d.y), id !== undefined && rightNames.has(String(id)) ? {} : fmt);
  const measureName = (id: string | number) => {
    const name = seriesCol === undefined ? String(id) : columnLabel(field(y[0]!));
    return rightNames.has(String(id)) ? `${name} (right axis)` : name;
  };
  return (
    <div ref={ref} className="chart__measure">
      <ResponsiveLine
        data={lines}
        margin={axes.margin}
        xScale={{ type: 'point' }}
        yScale={
          dual
            ? { type: 'linear', min: dual.left.min, max: dual.left.max, stacked: false }
            : { type: 'linear', min: config.zero !== false && allPositive ? 0 : 'auto', max: 'auto', nice: true, stacked }
        }
        curve={config.smooth === false ? 'linear' : 'monotoneX'}
        colors={(s) => colorOf.get(String(s.id))!}
        lineWidth={2.25}
        enablePoints={config.points ?? labels.length <= 40}
        pointSize={6}
        pointColor={{ from: 'series.color' }}
        enableArea={config.area ?? (lines.length === 1 && !stacked)}
        areaOpacity={config.area ? 0.25 : 0.08}
        enableGridX={false}
        gridYValues={dual ? dual.left.ticks : 5}
        useMesh
        enableSlices={lines.length > 1 ? 'x' : false}
        animate={false}
        theme={nivoTheme(mode)}
        axisBottom={{ tickSize: 0, tickPadding: 10, tickValues: thinTicks(labels, Math.min(10, maxTicks)), ...axes.bottom }}
        axisLeft={{ tickSize: 0, tickPadding: 8, tickValues: dual ? dual.left.ticks : 5, format: (v) => formatCompact(Number(v), fmt), ...axes.left }}
        axisRight={
          dual
            ? {
                tickSize: 0,
                tickPadding: 8,
                tickValues: dual.rightTicks,
                format: (v) => formatCompact(dual.fromLeft(Number(v))),
                ...(config.y_right_title ? { legend: config.y_right_title, legendPosition: 'middle' as const, legendOffset: 52 } : {}),
              }
            : null
        }
        yFormat={(v) => formatNumber(Number(v), fmt)}
        markers={
          config.reference_line !== undefined
            ? [
                {
                  axis: 'y',
                  value: config.reference_line,
                  lineStyle: { stroke: '#ef4444', strokeWidth: 1.5, strokeDasharray: '6 4' },
                  legend: formatNumber(config.reference_line, fmt),
                  textStyle: { fill: '#ef4444', fontSize: 11 },
                },
              ]
            : []
        }
        tooltip={({ point }) => (
          <ChartTooltip
            rows={seriesTooltipRows({
              x: { column: xName, value: String(point.data.xFormatted) },
              series: seriesCol === undefined ? undefined : { column: columnLabel(field(seriesCol)), value: String(point.seriesId) },
              measure: { column: measureName(point.seriesId), value: shown(point.data, point.seriesId) },
              color: point.seriesColor,
            })}
          />
        )}
        sliceTooltip={({ slice }) => (
          // Every series at one x: the x column first, then each series by name (the measure's column for long data).
          <ChartTooltip
            title={seriesCol === undefined ? undefined : `${columnLabel(field(y[0]!))} by ${columnLabel(field(seriesCol))}`}
            rows={[
              { name: xName, value: String(slice.points[0]?.data.xFormatted ?? '') },
              ...slice.points.map((p) => ({
                name: rightNames.has(String(p.seriesId)) ? `${p.seriesId} (right axis)` : String(p.seriesId),
                value: shown(p.data, p.seriesId),
                color: p.seriesColor,
              })),
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
