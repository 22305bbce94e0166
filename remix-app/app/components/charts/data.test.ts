import { describe, expect, it } from 'vitest';
import type { DataField } from '../../lib/types';
import { parseChartConfig } from './config';
import { binValues, histogram, multiPivot, niceWidth, pivot, pivotPercent, toSeries, toTree } from './data';
import { rotatePalette } from './palette';
import { resolveRoles } from './resolve';
import { pieLegend, withAxisTitles } from './theme';
import { gaugeColor, TARGET_COLORS } from './views/GaugeChart';

const f = (name: string, data_type: DataField['data_type'], idx: number): DataField => ({ name, data_type, idx });

describe('chart configuration', () => {
  it('reads every type, fills nothing in, and falls back to a table for unknown types', () => {
    expect(parseChartConfig({}).config).toEqual({ type: 'table' });
    expect(parseChartConfig(null).config).toEqual({ type: 'table' });
    expect(parseChartConfig({ type: 'bar', x: 'country', y: 'revenue', layout: 'horizontal', bogus: 1 }).config).toEqual({
      type: 'bar',
      x: 'country',
      y: ['revenue'],
      layout: 'horizontal',
    });
    expect(parseChartConfig({ type: 'sunburst' }).config).toEqual({ type: 'hierarchy', layout: 'sunburst' });
    expect(parseChartConfig({ type: 'gauge', value: 'rate', min: 0, max: 'maximum' }).config).toEqual({ type: 'gauge', value: 'rate', min: 0, max: 'maximum' });
    const unknown = parseChartConfig({ type: 'radar' });
    expect(unknown.config).toEqual({ type: 'table' });
    expect(unknown.problem).toContain('radar');
  });
});

describe('column roles', () => {
  const fields = [f('month', 'Date', 0), f('country', 'String', 1), f('orders', 'BigInt', 2), f('revenue', 'Float', 3)];

  it('picks defaults by position and data type', () => {
    expect(resolveRoles({ type: 'pie' }, fields)).toEqual({ ok: true, roles: { label: 0, value: 2 } });
    expect(resolveRoles({ type: 'bar' }, [f('country', 'String', 0), f('a', 'Integer', 1), f('b', 'Float', 2)])).toEqual({
      ok: true,
      roles: { x: 0, y: [1, 2], series: undefined },
    });
    // One value and a second dimension: long data, the dimension names the series.
    expect(resolveRoles({ type: 'line' }, [f('month', 'Date', 0), f('country', 'String', 1), f('revenue', 'Float', 2)])).toEqual({
      ok: true,
      roles: { x: 0, y: [2], series: 1 },
    });
    expect(resolveRoles({ type: 'number' }, fields)).toMatchObject({ ok: true, roles: { value: 2 } });
    expect(resolveRoles({ type: 'pivot' }, fields)).toEqual({ ok: true, roles: { rows: 0, columns: 1, value: 2 } });
    expect(resolveRoles({ type: 'hierarchy' }, fields)).toEqual({ ok: true, roles: { levels: [0, 1], value: 2 } });
    expect(resolveRoles({ type: 'map' }, [f('latitude', 'Float', 0), f('lng', 'Float', 1), f('customers', 'BigInt', 2)])).toMatchObject({
      ok: true,
      roles: { lat: 0, lng: 1, size: 2, point: 1 },
    });
    expect(resolveRoles({ type: 'map' }, [f('country', 'String', 0), f('revenue', 'Float', 1)])).toMatchObject({
      ok: true,
      roles: { region: 0, value: 1, point: 0 },
    });
  });

  it('uses the configured columns and names the missing ones', () => {
    expect(resolveRoles({ type: 'bar', x: 'country', y: ['revenue'] }, fields)).toEqual({ ok: true, roles: { x: 1, y: [3], series: undefined } });
    const missing = resolveRoles({ type: 'bar', x: 'region', y: ['revenue'] }, fields);
    expect(missing.ok).toBe(false);
    expect(!missing.ok && missing.note).toContain('“region”');
    const unfit = resolveRoles({ type: 'pie' }, [f('a', 'String', 0)]);
    expect(!unfit.ok && unfit.note).toContain('needs');
  });
});

describe('series', () => {
  it('turns long data into one series per value, aligned on x', () => {
    const rows = [
      ['2025-01', 'DE', 3],
      ['2025-01', 'FR', 1],
      ['2025-02', 'DE', 4],
      ['2025-03', 'FR', 2],
    ];
    const s = toSeries(rows, 0, [2], 1, String);
    expect(s.xs).toEqual(['2025-01', '2025-02', '2025-03']);
    expect(s.series).toEqual([
      { name: 'DE', values: [3, 4, null] },
      { name: 'FR', values: [1, null, 2] },
    ]);
  });

  it('keeps wide data as it is', () => {
    const s = toSeries(
      [
        ['a', 1, '2.5'],
        ['b', null, 3],
      ],
      0,
      [1, 2],
      undefined,
      (i) => `c${i}`,
    );
    expect(s.series).toEqual([
      { name: 'c1', values: [1, null] },
      { name: 'c2', values: [2.5, 3] },
    ]);
  });
});

describe('pivot', () => {
  const rows = [
    ['B', 'x', 1],
    ['A', 'y', 2],
    ['A', 'x', 3],
    ['A', 'x', 4],
    ['B', 'z', null],
  ];

  it('adds up repeated pairs, sorts labels and leaves empty pairs null', () => {
    const p = pivot(rows, 0, 1, 2);
    expect(p.rowKeys).toEqual(['A', 'B']);
    expect(p.colKeys).toEqual(['x', 'y', 'z']);
    expect(p.cells).toEqual([
      [7, 2, null],
      [1, null, null],
    ]);
    expect(p.rowTotals).toEqual([9, 1]);
    expect(p.colTotals).toEqual([8, 2, 0]);
    expect(p.total).toBe(10);
    expect(pivot(rows, 0, 1, 2, 'result', 'result').rowKeys).toEqual(['B', 'A']);
  });

  it('shows cohort percentages of the first cell and shares of totals', () => {
    const cohort = pivot(
      [
        ['2025-01', 0, 50],
        ['2025-01', 1, 20],
        ['2025-02', 0, 40],
        ['2025-02', 2, 10],
      ],
      0,
      1,
      2,
    );
    expect(cohort.colKeys).toEqual([0, 1, 2]);
    expect(pivotPercent(cohort, 0, 1, 'first')).toBe(40);
    expect(pivotPercent(cohort, 1, 2, 'first')).toBe(25);
    expect(pivotPercent(cohort, 0, 0, 'row')).toBeCloseTo(71.43, 2);
    expect(pivotPercent(cohort, 0, 1, 'column')).toBe(100);
    expect(pivotPercent(cohort, 1, 1, 'total')).toBeNull();
  });

  it('nests dimensions and aggregates every level from the underlying rows', () => {
    const data = [
      ['Books', 'Atlas', 'Q1', 10, 1],
      ['Books', 'Atlas', 'Q2', 30, 2],
      ['Books', 'Bible', 'Q1', 20, 3],
      ['Audio', 'Radio', 'Q2', 5, 4],
    ];
    const mp = multiPivot(
      data,
      [0, 1],
      [2],
      [
        { index: 3, aggregation: 'sum' },
        { index: 4, aggregation: 'avg' },
      ],
    );
    expect(mp.colPaths).toEqual([['Q1'], ['Q2']]);
    expect(mp.rows.map((r) => [r.path.join('/'), r.depth, r.group])).toEqual([
      ['Audio', 0, true],
      ['Audio/Radio', 1, false],
      ['Books', 0, true],
      ['Books/Atlas', 1, false],
      ['Books/Bible', 1, false],
    ]);
    // Books: Q1 sum 30, avg of (1, 3) = 2; Q2 sum 30, avg 2.
    expect(mp.rows[2]!.cells).toEqual([30, 2, 30, 2]);
    expect(mp.total).toEqual([30, 2, 35, 3]);
    const collapsed = multiPivot(data, [0, 1], [2], [{ index: 3, aggregation: 'sum' }], new Set(['Books']));
    expect(collapsed.rows.map((r) => r.path.join('/'))).toEqual(['Audio', 'Audio/Radio', 'Books']);
    const median = multiPivot(
      [
        ['a', 1],
        ['a', 9],
        ['a', 4],
      ],
      [0],
      [],
      [{ index: 1, aggregation: 'median' }],
    );
    expect(median.rows[0]!.cells).toEqual([4]);
  });
});

describe('histogram', () => {
  it('bins automatically with round widths and counts every value once', () => {
    const rows = Array.from({ length: 100 }, (_, i) => [i * 1.7]);
    const h = histogram(rows, 0, undefined);
    expect(h.total).toBe(100);
    expect(h.bins.reduce((s, b) => s + b.counts[0]!, 0)).toBe(100);
    const width = h.bins[0]!.end - h.bins[0]!.start;
    expect([10, 20, 25, 50]).toContain(width);
    expect(h.bins[0]!.start).toBeLessThanOrEqual(0);
    expect(h.bins.at(-1)!.end).toBeGreaterThan(168.3);
  });

  it('honours a bin width, limits and series, and skips NULLs', () => {
    const rows = [
      [5, 'm'],
      [30, 'd'],
      [30, 'm'],
      [999, 'd'],
      [null, 'm'],
      ['x', 'd'],
    ];
    const h = histogram(rows, 0, 1, { binWidth: 25, min: 0, max: 100 });
    expect(h.series).toEqual(['m', 'd']);
    expect(h.skipped).toBe(2);
    expect(h.bins.map((b) => [b.start, b.end])).toEqual([
      [0, 25],
      [25, 50],
      [50, 75],
      [75, 100],
    ]);
    expect(h.bins.map((b) => b.counts)).toEqual([
      [1, 0],
      [1, 1],
      [0, 0],
      [0, 1],
    ]);
    expect(h.bins.at(-1)!.openEnd).toBe(true);
    expect(h.bins[0]!.openStart).toBeUndefined();
  });

  it('splits into a fixed number of bins and puts the maximum in the last', () => {
    const h = histogram([[0], [10], [5]], 0, undefined, { bins: 2 });
    expect(h.bins.map((b) => b.counts[0])).toEqual([1, 2]);
    expect(niceWidth(0.037)).toBe(0.05);
    expect(niceWidth(130)).toBe(200);
  });
});

describe('histogram percentages', () => {
  it('shows each series as shares of its own values, so a small series compares with a large one', () => {
    // 'm' has 4 values, 't' has 1; both put half or all of theirs in the first bin.
    const rows = [
      [1, 'm'],
      [2, 'm'],
      [12, 'm'],
      [14, 'm'],
      [3, 't'],
    ];
    const h = histogram(rows, 0, 1, { binWidth: 10, min: 0, max: 20 });
    expect(h.totals).toEqual([4, 1]);
    expect(binValues(h, 'count')).toEqual([
      [2, 1],
      [2, 0],
    ]);
    expect(binValues(h, 'percent')).toEqual([
      [50, 100],
      [50, 0],
    ]);
    expect(binValues(h, 'cumulative')).toEqual([
      [50, 100],
      [100, 100],
    ]);
    // Without a series column the one series is all values.
    expect(binValues(histogram([[1], [2], [15]], 0, undefined, { binWidth: 10, min: 0, max: 20 }), 'percent').map((b) => Math.round(b[0]!))).toEqual([67, 33]);
  });
});

describe('hierarchy', () => {
  it('builds paths, sums leaves and ends a path at NULL', () => {
    const tree = toTree(
      [
        ['Books', 'Atlas', 3],
        ['Books', 'Atlas', 2],
        ['Books', null, 4],
        ['Audio', 'Radio', 0],
        ['Audio', 'Tape', 1],
      ],
      [0, 1],
      2,
    );
    expect(tree.children).toEqual([
      {
        id: 'root/Books',
        name: 'Books',
        children: [
          { id: 'root/Books/Atlas', name: 'Atlas', value: 5 },
          { id: 'root/Books/·', name: 'Books', value: 4 },
        ],
      },
      { id: 'root/Audio', name: 'Audio', children: [{ id: 'root/Audio/Tape', name: 'Tape', value: 1 }] },
    ]);
  });
});

describe('chart options shared by every type', () => {
  it('reads axis titles and the first colour, and rotates the scheme from it', () => {
    expect(parseChartConfig({ type: 'bar', x_title: 'Month', y_title: ' ', color_start: 2.4 }).config).toEqual({
      type: 'bar',
      x_title: 'Month',
      color_start: 2,
    });
    expect(parseChartConfig({ type: 'pie', x_title: 'ignored', color_start: -3 }).config).toEqual({ type: 'pie', color_start: 0 });
    expect(rotatePalette(['a', 'b', 'c'], 1)).toEqual(['b', 'c', 'a']);
    expect(rotatePalette(['a', 'b', 'c'], 4)).toEqual(['b', 'c', 'a']);
    expect(rotatePalette(['a', 'b', 'c'], undefined)).toEqual(['a', 'b', 'c']);
    const t = withAxisTitles(
      { top: 10, right: 10, bottom: 40, left: 56 },
      [{ anchor: 'bottom', direction: 'row', translateY: 56, itemWidth: 100, itemHeight: 16, symbolSize: 10, itemsSpacing: 4 }],
      'Month',
      'Revenue',
    );
    expect(t.margin).toEqual({ top: 10, right: 10, bottom: 60, left: 76 });
    expect(t.left).toEqual({ legend: 'Revenue', legendPosition: 'middle', legendOffset: -60 });
    expect(t.bottom.legend).toBe('Month');
    expect(t.legends[0]!.translateY).toBe(76);
    expect(withAxisTitles({ top: 1, right: 1, bottom: 40, left: 50 }, [], undefined, undefined)).toMatchObject({
      margin: { bottom: 40, left: 50 },
      bottom: {},
      left: {},
    });
  });
});

describe('pie legend', () => {
  const items = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `${i}`, label: `S${i}`, color: '#000' }));
  it('sits where the option says, in rows on top or below, and on the right by default', () => {
    expect(pieLegend(undefined, 600, items(3)).legends.map((l) => l.anchor)).toEqual(['right']);
    const top = pieLegend('top', 600, items(6));
    expect(top.legends.map((l) => l.anchor)).toEqual(['top', 'top']);
    expect(top.legends.flatMap((l) => l.data.map((d) => d.id))).toEqual(['0', '1', '2', '3', '4', '5']);
    expect(top.margin.top).toBeGreaterThan(top.margin.bottom);
    const bottom = pieLegend('bottom', 600, items(2));
    expect(bottom.legends.map((l) => [l.anchor, l.direction])).toEqual([['bottom', 'row']]);
    expect(bottom.margin.bottom).toBeGreaterThan(bottom.margin.top);
  });
  it('moves below a narrow pie instead of squeezing it, and is gone for none', () => {
    expect(pieLegend('right', 380, items(3)).legends[0]!.anchor).toBe('bottom');
    expect(pieLegend('none', 600, items(3)).legends).toEqual([]);
  });
});

describe('gauge colour', () => {
  const palette = ['#111111', '#222222'];
  it('follows the bands, else the target (lower is better turns it round), else the palette', () => {
    expect(gaugeColor(5, 10, [{ to: 3, color: '#aaaaaa' }, { to: 8 }], false, palette)).toBe('#222222');
    expect(gaugeColor(12, 10, undefined, false, palette)).toBe(TARGET_COLORS.met);
    expect(gaugeColor(8, 10, undefined, false, palette)).toBe(TARGET_COLORS.missed);
    expect(gaugeColor(8, 10, undefined, true, palette)).toBe(TARGET_COLORS.met);
    expect(gaugeColor(12, 10, undefined, true, palette)).toBe(TARGET_COLORS.missed);
    expect(gaugeColor(12, null, undefined, true, palette)).toBe('#111111');
  });
});
