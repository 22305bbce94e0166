/** The nivo theme of each colour mode, matching the app's design tokens. */
import type { Theme } from '../../state/theme';

export function nivoTheme(mode: Theme) {
  const dark = mode === 'dark';
  const text = dark ? '#cbd5e1' : '#475569';
  const line = dark ? '#334155' : '#cbd5e1';
  return {
    background: 'transparent',
    text: { fontSize: 11, fill: text, fontFamily: 'inherit' },
    axis: {
      domain: { line: { stroke: line, strokeWidth: 1 } },
      ticks: { line: { stroke: line, strokeWidth: 1 }, text: { fontSize: 11, fill: text } },
      legend: { text: { fontSize: 12, fill: text, fontWeight: 600 } },
    },
    grid: { line: { stroke: dark ? '#1e293b' : '#eef2f7', strokeWidth: 1 } },
    legends: { text: { fontSize: 11, fill: text } },
    labels: { text: { fontSize: 11, fontWeight: 600 } },
    annotations: { text: { fill: text, fontSize: 11 }, link: { stroke: line }, outline: { stroke: 'transparent' }, symbol: { fill: text } },
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

type Margin = { top: number; right: number; bottom: number; left: number };

/** Keeps at most `max` evenly spaced tick values. */
export function thinTicks<T>(values: T[], max: number): T[] {
  if (values.length <= max) return values;
  const step = Math.ceil(values.length / max);
  return values.filter((_, i) => i % step === 0);
}

export interface LegendSpec {
  anchor: 'right' | 'bottom' | 'top-left';
  direction: 'row' | 'column';
  translateX?: number;
  translateY?: number;
  itemWidth: number;
  itemHeight: number;
  symbolSize: number;
  itemsSpacing: number;
}

/** Legend placement for nivo from the chart's `legend` option. */
export function legendFor(
  position: 'top' | 'right' | 'bottom' | 'none' | undefined,
  count: number,
  fallback: 'top' | 'right' | 'bottom' | 'none' = 'top',
): { legends: LegendSpec[]; margin: Partial<Margin> } {
  const pos = position ?? (count > 1 ? fallback : 'none');
  if (pos === 'none' || count === 0) return { legends: [], margin: {} };
  const common = { itemHeight: 16, symbolSize: 10, itemsSpacing: 4 };
  if (pos === 'right') {
    return { legends: [{ anchor: 'right' as const, direction: 'column' as const, translateX: 120, itemWidth: 110, ...common }], margin: { right: 130 } };
  }
  if (pos === 'bottom') {
    return { legends: [{ anchor: 'bottom' as const, direction: 'row' as const, translateY: 56, itemWidth: 100, ...common }], margin: { bottom: 70 } };
  }
  return { legends: [{ anchor: 'top-left' as const, direction: 'row' as const, translateY: -28, itemWidth: 110, ...common }], margin: { top: 36 } };
}

type LegendItem = { id: string; label: string; color: string };

/**
 * The pie's legend and margins: on the right by default (below the pie when the chart is narrower than
 * 420 px), on top or below when chosen, none for `none`. Top and bottom legends run in rows.
 */
export function pieLegend(position: 'top' | 'right' | 'bottom' | 'none' | undefined, width: number, items: LegendItem[]) {
  const none = { legends: [], margin: { top: 16, right: 16, bottom: 16, left: 16 } };
  if (position === 'none' || items.length === 0) return none;
  const pos = (position ?? 'right') === 'right' && width <= 420 ? 'bottom' : (position ?? 'right');
  const common = { itemHeight: 20, itemsSpacing: 2, symbolSize: 10, symbolShape: 'circle' as const, data: items };
  if (pos === 'right') {
    return {
      legends: [{ anchor: 'right' as const, direction: 'column' as const, translateX: 140, itemWidth: 130, ...common }],
      margin: { top: 16, right: 150, bottom: 16, left: 16 },
    };
  }
  // A row holds as many items as fit; the margin leaves room for the rows the items need.
  const perRow = Math.max(1, Math.floor((width - 32) / 120));
  const rows = Math.min(3, Math.ceil(items.length / perRow));
  const room = 12 + rows * 22;
  const legends = Array.from({ length: rows }, (_, r) => ({
    anchor: pos === 'top' ? ('top' as const) : ('bottom' as const),
    direction: 'row' as const,
    itemWidth: 120,
    translateY: pos === 'top' ? -room + 6 + r * 22 : room - 22 * (rows - r) + 6,
    ...common,
    data: items.slice(r * perRow, (r + 1) * perRow),
  }));
  return { legends, margin: pos === 'top' ? { top: 16 + room, right: 16, bottom: 16, left: 16 } : { top: 16, right: 16, bottom: 16 + room, left: 16 } };
}

/**
 * Axis titles (the chart's x_title / y_title) as nivo axis legends: each title sits just outside its
 * axis' tick labels, the margin grows by a line to make room, and a legend below the chart moves down.
 */
export function withAxisTitles(margin: Margin, legends: LegendSpec[], bottomTitle: string | undefined, leftTitle: string | undefined) {
  const LINE = 20;
  const base = { ...margin };
  const bottomLegend = legends.some((l) => l.anchor === 'bottom');
  const tickRoom = bottomLegend ? base.bottom - 30 : base.bottom;
  return {
    margin: { ...base, bottom: base.bottom + (bottomTitle ? LINE : 0), left: base.left + (leftTitle ? LINE : 0) },
    legends: bottomTitle && bottomLegend ? legends.map((l) => (l.anchor === 'bottom' ? { ...l, translateY: (l.translateY ?? 0) + LINE } : l)) : legends,
    bottom: bottomTitle ? { legend: bottomTitle, legendPosition: 'middle' as const, legendOffset: tickRoom + 4 } : {},
    left: leftTitle ? { legend: leftTitle, legendPosition: 'middle' as const, legendOffset: -(base.left + 4) } : {},
  };
}

/** Width of one character of chart label text (11 px, weight 600): generous, so estimates err on the safe side. */
export const LABEL_CHAR_PX = 7;
export const LABEL_LINE_PX = 15;

/**
 * A label that fits a box of `width` × `height` pixels on one line, or '' when even a few characters
 * would not: text that is too long ends in "…", and a box too low or narrow for it shows no label.
 * Used for treemap cells and group headings, which must never overlap their neighbours or run out.
 */
export function fitLabel(text: string, width: number, height: number, padding = 6): string {
  if (height < LABEL_LINE_PX) return '';
  const room = Math.floor((width - 2 * padding) / LABEL_CHAR_PX);
  if (text.length <= room) return text;
  // Fewer than three characters and an ellipsis says nothing useful.
  if (room < 4) return '';
  return `${text.slice(0, room - 1).trimEnd()}…`;
}
