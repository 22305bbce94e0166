/** XY / bubble chart: a point per row, optionally sized by a third measure and coloured by a series, with a trend line. */
import { ResponsiveScatterPlot } from '@nivo/scatterplot';
import { useMemo } from 'react';
import type { XyBubbleConfig } from '../config';
import { toNumber } from '../data';
import { columnLabel, msDateLabeler, formatCell, formatCompact, formatNumber, isDateType } from '../format';
import { legendFor, nivoTheme } from '../theme';
import { idx, type ViewProps } from './types';

interface Point {
  x: number;
  y: number;
  size: number;
  label: string;
}

/** Least-squares line through the points; null for fewer than two distinct x. */
export function trend(points: { x: number; y: number }[]): { a: number; b: number } | null {
  const n = points.length;
  if (n < 2) return null;
  const mx = points.reduce((s, p) => s + p.x, 0) / n,
    my = points.reduce((s, p) => s + p.y, 0) / n;
  const sxx = points.reduce((s, p) => s + (p.x - mx) ** 2, 0);
  if (sxx === 0) return null;
  const b = points.reduce((s, p) => s + (p.x - mx) * (p.y - my), 0) / sxx;
  return { a: my - b * mx, b };
}

export default function XyChart({ config, roles, data, colors, mode, title, zone }: ViewProps<XyBubbleConfig>) {
  const x = idx(roles, 'x')!,
    y = idx(roles, 'y')!,
    size = idx(roles, 'size'),
    label = idx(roles, 'label'),
    series = idx(roles, 'series');
  const field = (i: number | undefined) => (i === undefined ? undefined : (data.fields.find((f) => f.idx === i) ?? data.fields[i]));
  const groups = useMemo(() => {
    const bySeries = new Map<string, Point[]>();
    for (const r of data.rows) {
      const px = toNumber(r[x]),
        py = toNumber(r[y]);
      if (px === null || py === null) continue;
      const name = series === undefined ? columnLabel(field(y)) : String(r[series] ?? '(none)');
      let list = bySeries.get(name);
      if (!list) bySeries.set(name, (list = []));
      list.push({
        x: px,
        y: py,
        size: size === undefined ? 0 : (toNumber(r[size]) ?? 0),
        label: label === undefined ? '' : formatCell(r[label], field(label)),
      });
    }
    return [...bySeries].map(([id, points]) => ({ id, data: points }));
  }, [data.rows, x, y, size, label, series]);
  const colorOf = colors(groups.map((g) => g.id));
  const sizes = groups.flatMap((g) => g.data.map((p) => p.size));
  const maxSize = Math.max(1e-9, ...sizes.map(Math.abs));
  const nodeSize = size === undefined ? 9 : (d: { data: Point }) => 6 + Math.sqrt(Math.abs(d.data.size) / maxSize) * 30;
  const all = groups.flatMap((g) => g.data);
  const line = config.trend_line ? trend(all) : null;
  const xs = all.map((p) => p.x);
  const minX = Math.min(...xs),
    maxX = Math.max(...xs);
  const legend = legendFor(config.legend, groups.length);
  const fmt = config.format ?? {};
  // A date or date-time x is plotted as milliseconds; ticks and tooltips read as dates (in the dashboard's zone for instants).
  const xLabel = useMemo(() => {
    if (!isDateType(field(x))) return null;
    return msDateLabeler(
      data.rows.map((r) => r[x] ?? null),
      zone,
    );
  }, [data.rows, x, zone]);
  return (
    <ResponsiveScatterPlot
      data={groups}
      margin={{ top: 20, right: 28, bottom: 48, left: 64, ...legend.margin }}
      xScale={{ type: config.log_x && minX > 0 ? 'log' : 'linear', min: 'auto', max: 'auto' }}
      yScale={{ type: 'linear', min: 'auto', max: 'auto', nice: true }}
      colors={(d: { serieId: string | number }) => colorOf.get(String(d.serieId))!}
      nodeSize={nodeSize as never}
      blendMode={mode === 'dark' ? 'normal' : 'multiply'}
      animate={false}
      theme={nivoTheme(mode)}
      useMesh
      axisBottom={{
        tickSize: 0,
        tickPadding: 8,
        tickValues: 6,
        legend: config.x_title ?? columnLabel(field(x)),
        legendOffset: 38,
        legendPosition: 'middle',
        format: (v) => (xLabel ? xLabel(Number(v)) : formatCompact(Number(v))),
      }}
      axisLeft={{
        tickSize: 0,
        tickPadding: 8,
        tickValues: 5,
        legend: config.y_title ?? columnLabel(field(y)),
        legendOffset: -52,
        legendPosition: 'middle',
        format: (v) => formatCompact(Number(v), fmt),
      }}
      tooltip={({ node }) => (
        <div className="chart-tooltip">
          {node.data.label ? <strong>{node.data.label}</strong> : null}
          <div>
            {columnLabel(field(x))}: {xLabel ? xLabel(node.data.x) : formatNumber(node.data.x)}
          </div>
          <div>
            {columnLabel(field(y))}: {formatNumber(node.data.y, fmt)}
          </div>
          {size !== undefined ? (
            <div>
              {columnLabel(field(size))}: {formatNumber(node.data.size)}
            </div>
          ) : null}
        </div>
      )}
      layers={[
        'grid',
        'axes',
        'nodes',
        'markers',
        'mesh',
        'legends',
        ({ xScale, yScale }) =>
          line ? (
            <line
              key="trend"
              data-testid="trend-line"
              stroke={mode === 'dark' ? '#e2e8f0' : '#0f172a'}
              strokeWidth={1.5}
              strokeDasharray="6 4"
              x1={xScale(minX) as number}
              y1={yScale(line.a + line.b * minX) as number}
              x2={xScale(maxX) as number}
              y2={yScale(line.a + line.b * maxX) as number}
            />
          ) : null,
      ]}
      legends={legend.legends}
      role="img"
      ariaLabel={title}
    />
  );
}
