/**
 * The nivo charts. Loaded lazily and only in the browser (nivo measures its container, which the server
 * cannot), so the server bundle never runs it and the page shows a skeleton until it arrives.
 */
import { ResponsiveBar } from '@nivo/bar';
import { ResponsiveLine } from '@nivo/line';
import { ResponsivePie } from '@nivo/pie';
import { useAtomValue } from 'jotai';
import { useEffect, useRef, useState, type RefObject } from 'react';
import { themeAtom, type Theme } from '../../state/theme';
import type { Cell } from '../../lib/types';
import type { Columns } from './columns';
import type { ChartConfig } from './config';
import { dateLabeler, formatCell, formatCompact, formatNumber, isDateType, toNumber } from './format';

type Drawn = Extract<ChartConfig, { type: 'bar' | 'line' | 'pie' }>;

interface Props {
  config: Drawn;
  columns: Columns;
  rows: Cell[][];
  palette: string[];
  title: string;
}

function nivoTheme(mode: Theme) {
  const dark = mode === 'dark';
  const text = dark ? '#cbd5e1' : '#475569';
  const grid = dark ? '#1e293b' : '#eef2f7';
  return {
    background: 'transparent',
    text: { fontSize: 11, fill: text, fontFamily: 'inherit' },
    axis: {
      domain: { line: { stroke: dark ? '#334155' : '#cbd5e1', strokeWidth: 1 } },
      ticks: { line: { stroke: dark ? '#334155' : '#cbd5e1', strokeWidth: 1 }, text: { fontSize: 11, fill: text } },
      legend: { text: { fontSize: 12, fill: text, fontWeight: 600 } },
    },
    grid: { line: { stroke: grid, strokeWidth: 1 } },
    legends: { text: { fontSize: 11, fill: text } },
    labels: { text: { fontSize: 11, fontWeight: 600 } },
    tooltip: {
      container: {
        background: dark ? '#0f172a' : '#ffffff',
        color: dark ? '#e2e8f0' : '#0f172a',
        fontSize: 12,
        borderRadius: 8,
        boxShadow: '0 8px 24px rgba(15, 23, 42, 0.18)',
        border: `1px solid ${dark ? '#334155' : '#e2e8f0'}`,
      },
    },
  };
}

/** Keeps at most `max` evenly spaced tick labels. */
function thinTicks<T>(values: T[], max: number): T[] {
  if (values.length <= max) return values;
  const step = Math.ceil(values.length / max);
  return values.filter((_, i) => i % step === 0);
}

/** The drawn width, so tick labels can be thinned to what fits. */
function useWidth(): [RefObject<HTMLDivElement | null>, number] {
  const ref = useRef<HTMLDivElement | null>(null);
  const [width, setWidth] = useState(0);
  useEffect(() => {
    const el = ref.current;
    if (!el || typeof ResizeObserver === 'undefined') return;
    const ro = new ResizeObserver((entries) => setWidth(Math.round(entries[0]?.contentRect.width ?? 0)));
    ro.observe(el);
    return () => ro.disconnect();
  }, []);
  return [ref, width];
}

export default function NivoChart({ config, columns, rows, palette, title }: Props) {
  const mode = useAtomValue(themeAtom);
  const theme = nivoTheme(mode);
  const [ref, width] = useWidth();
  const maxTicks = Math.max(2, Math.floor((width || 800) / 120));
  const props = { columns, rows, palette, theme, title, maxTicks };
  return (
    <div ref={ref} className="chart__measure">
      {config.type === 'bar' ? <BarView config={config} {...props} /> : config.type === 'line' ? <LineView config={config} {...props} /> : <PieView config={config} {...props} />}
    </div>
  );
}

type ViewProps<C> = Omit<Props, 'config'> & { config: C; theme: ReturnType<typeof nivoTheme>; maxTicks: number };

function BarView({ config, columns, rows, palette, theme, title, maxTicks }: ViewProps<Extract<Drawn, { type: 'bar' }>>) {
  const label = isDateType(columns.field(config.x)) ? dateLabeler(rows.map((r) => columns.get(r, config.x) ?? null)) : (v: Cell) => formatCell(v);
  const keys = config.y.map((y) => columns.label(y));
  const data = rows.map((r) => {
    const datum: Record<string, string | number> = { __x: label(columns.get(r, config.x) ?? null) };
    config.y.forEach((y, i) => {
      datum[keys[i]!] = toNumber(columns.get(r, y) ?? null) ?? 0;
    });
    return datum;
  });
  const horizontal = config.layout === 'horizontal';
  // nivo draws horizontal bars bottom-up; reverse so the first row of the result is on top.
  if (horizontal) data.reverse();
  const categories = data.map((d) => d.__x as string);
  const longest = Math.min(18, categories.reduce((m, c) => Math.max(m, c.length), 0));
  const rotate = !horizontal && categories.length > 6;
  return (
    <ResponsiveBar
      data={data}
      keys={keys}
      indexBy="__x"
      layout={horizontal ? 'horizontal' : 'vertical'}
      groupMode="grouped"
      margin={{ top: 12, right: 16, bottom: horizontal ? 36 : rotate ? 64 : 40, left: horizontal ? Math.max(56, longest * 6.5 + 16) : 60 }}
      padding={0.28}
      innerPadding={keys.length > 1 ? 2 : 0}
      colors={palette}
      borderRadius={3}
      enableLabel={false}
      animate={false}
      theme={theme}
      valueFormat={(v) => formatNumber(Number(v))}
      axisBottom={
        horizontal
          ? { tickSize: 0, tickPadding: 8, tickValues: Math.min(6, maxTicks), format: (v) => formatCompact(Number(v)) }
          : { tickSize: 0, tickPadding: 8, tickRotation: rotate ? -35 : 0, tickValues: thinTicks(categories, rotate ? maxTicks * 2 : maxTicks + 4), format: (v) => truncate(String(v), 16) }
      }
      axisLeft={
        horizontal
          ? { tickSize: 0, tickPadding: 8, format: (v) => truncate(String(v), 18) }
          : { tickSize: 0, tickPadding: 8, tickValues: 5, format: (v) => formatCompact(Number(v)) }
      }
      gridYValues={horizontal ? undefined : 5}
      enableGridX={horizontal}
      enableGridY={!horizontal}
      legends={keys.length > 1 ? [{ dataFrom: 'keys', anchor: 'top-right', direction: 'row', itemWidth: 110, itemHeight: 16, symbolSize: 10, translateY: -8 }] : []}
      role="img"
      ariaLabel={title}
    />
  );
}

function LineView({ config, columns, rows, palette, theme, title, maxTicks }: ViewProps<Extract<Drawn, { type: 'line' }>>) {
  const label = isDateType(columns.field(config.x)) || typeof rows[0]?.[0] === 'string'
    ? dateLabeler(rows.map((r) => columns.get(r, config.x) ?? null))
    : (v: Cell) => formatCell(v);
  const xs = rows.map((r) => label(columns.get(r, config.x) ?? null));
  const series = config.y.map((y) => ({
    id: columns.label(y),
    data: rows.map((r, i) => ({ x: xs[i]!, y: toNumber(columns.get(r, y) ?? null) })),
  }));
  const many = rows.length > 40;
  const allPositive = series.every((s) => s.data.every((d) => d.y === null || d.y >= 0));
  return (
    <ResponsiveLine
      data={series}
      margin={{ top: 16, right: 40, bottom: 40, left: 60 }}
      xScale={{ type: 'point' }}
      yScale={{ type: 'linear', min: allPositive ? 0 : 'auto', max: 'auto', nice: true }}
      curve="monotoneX"
      colors={palette}
      lineWidth={2.5}
      enablePoints={!many}
      pointSize={6}
      pointColor={{ from: 'series.color' }}
      pointBorderWidth={0}
      enableArea={series.length === 1}
      areaOpacity={0.08}
      enableGridX={false}
      gridYValues={5}
      useMesh
      animate={false}
      theme={theme}
      axisBottom={{ tickSize: 0, tickPadding: 10, tickValues: thinTicks(xs, Math.min(8, maxTicks)) }}
      axisLeft={{ tickSize: 0, tickPadding: 8, tickValues: 5, format: (v) => formatCompact(Number(v)) }}
      yFormat={(v) => formatNumber(Number(v))}
      legends={series.length > 1 ? [{ anchor: 'top-right', direction: 'row', itemWidth: 110, itemHeight: 16, symbolSize: 10, translateY: -12 }] : []}
      role="img"
      ariaLabel={title}
    />
  );
}

const MAX_SLICES = 8;

function PieView({ config, columns, rows, palette, theme }: ViewProps<Extract<Drawn, { type: 'pie' }>>) {
  const slices = rows
    .map((r) => ({ label: formatCell(columns.get(r, config.label) ?? null), value: toNumber(columns.get(r, config.value) ?? null) ?? 0 }))
    .filter((s) => s.value > 0)
    .sort((a, b) => b.value - a.value);
  const top = slices.slice(0, MAX_SLICES - 1);
  const rest = slices.slice(MAX_SLICES - 1);
  if (rest.length === 1) top.push(rest[0]!);
  else if (rest.length > 1) top.push({ label: `Other (${rest.length})`, value: rest.reduce((s, x) => s + x.value, 0) });
  const data = top.map((s, i) => ({ id: `${i}:${s.label}`, label: s.label, value: s.value }));
  return (
    <ResponsivePie
      data={data}
      margin={{ top: 16, right: 130, bottom: 16, left: 16 }}
      innerRadius={0.58}
      padAngle={1.2}
      cornerRadius={4}
      activeOuterRadiusOffset={6}
      colors={palette}
      enableArcLinkLabels={false}
      arcLabelsSkipAngle={18}
      arcLabel={(d) => formatCompact(d.value)}
      arcLabelsTextColor="#ffffff"
      valueFormat={(v) => formatNumber(v)}
      animate={false}
      theme={theme}
      legends={[{ anchor: 'right', direction: 'column', translateX: 120, itemWidth: 110, itemHeight: 20, itemsSpacing: 2, symbolSize: 10, symbolShape: 'circle', data: data.map((d, i) => ({ id: d.id, label: truncate(d.label, 16), color: palette[i % palette.length]! })) }]}
      role="img"
    />
  );
}

function truncate(s: string, n: number): string {
  return s.length > n ? `${s.slice(0, n - 1)}…` : s;
}
