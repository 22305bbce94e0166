/**
 * Pure data shaping for the charts: series (wide and long data), pivots, histogram bins and
 * hierarchies. No React, no nivo: unit-tested on its own.
 */
import type { Cell } from '../../lib/types';
import type { Aggregation } from './config';

export function toNumber(v: Cell | undefined): number | null {
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (typeof v === 'string' && v.trim() !== '') {
    const n = Number(v);
    if (Number.isFinite(n)) return n;
    const t = Date.parse(v);
    return /^\d{4}-\d{2}-\d{2}/.test(v) && Number.isFinite(t) ? t : null;
  }
  if (typeof v === 'boolean') return v ? 1 : 0;
  return null;
}

export const keyOf = (v: Cell | undefined): string => (v === null || v === undefined ? '\u2205' : String(v));

// ---------------------------------------------------------------- series

interface Series {
  name: string;
  values: (number | null)[];
}
export interface SeriesData {
  xs: Cell[];
  series: Series[];
}

/**
 * Line and bar data. Wide: one series per y column, one point per row. Long (a series column): one
 * series per distinct series value, one point per distinct x (in order of first appearance).
 */
export function toSeries(rows: Cell[][], x: number, y: number[], series: number | undefined, names: (i: number) => string): SeriesData {
  if (series === undefined) {
    return { xs: rows.map((r) => r[x] ?? null), series: y.map((col) => ({ name: names(col), values: rows.map((r) => toNumber(r[col])) })) };
  }
  const xIndex = new Map<string, number>();
  const xs: Cell[] = [];
  const bySeries = new Map<string, (number | null)[]>();
  for (const r of rows) {
    const k = keyOf(r[x]);
    if (!xIndex.has(k)) {
      xIndex.set(k, xs.length);
      xs.push(r[x] ?? null);
    }
  }
  for (const r of rows) {
    const name = r[series] === null || r[series] === undefined ? '(none)' : String(r[series]);
    let values = bySeries.get(name);
    if (!values) bySeries.set(name, (values = new Array<number | null>(xs.length).fill(null)));
    const i = xIndex.get(keyOf(r[x]))!;
    const n = toNumber(r[y[0]!]);
    if (n !== null) values[i] = (values[i] ?? 0) + n;
  }
  return { xs, series: [...bySeries].map(([name, values]) => ({ name, values })) };
}

// ---------------------------------------------------------------- pivot

export interface Pivot {
  rowKeys: Cell[];
  colKeys: Cell[];
  /** cells[r][c]: the summed value, or null for a pair without rows. */
  cells: (number | null)[][];
  rowTotals: number[];
  colTotals: number[];
  total: number;
}

/** Numbers (and dates) by value, everything else as text with numeric collation. */
export function compareCells(a: Cell | undefined, b: Cell | undefined): number {
  const na = toNumber(a),
    nb = toNumber(b);
  if (na !== null && nb !== null) return na - nb;
  return keyOf(a).localeCompare(keyOf(b), undefined, { numeric: true });
}

function order(values: Cell[], by: 'label' | 'result'): Cell[] {
  return by === 'result' ? values : [...values].sort(compareCells);
}

/** One measure across two dimensions; several rows for the same pair are added up. */
export function pivot(rows: Cell[][], r: number, c: number, v: number, sortRows: 'label' | 'result' = 'label', sortCols: 'label' | 'result' = 'label'): Pivot {
  const rowSeen = new Map<string, Cell>();
  const colSeen = new Map<string, Cell>();
  for (const row of rows) {
    if (!rowSeen.has(keyOf(row[r]))) rowSeen.set(keyOf(row[r]), row[r] ?? null);
    if (!colSeen.has(keyOf(row[c]))) colSeen.set(keyOf(row[c]), row[c] ?? null);
  }
  const rowKeys = order([...rowSeen.values()], sortRows);
  const colKeys = order([...colSeen.values()], sortCols);
  const ri = new Map(rowKeys.map((k, i) => [keyOf(k), i]));
  const ci = new Map(colKeys.map((k, i) => [keyOf(k), i]));
  const cells = rowKeys.map(() => new Array<number | null>(colKeys.length).fill(null));
  for (const row of rows) {
    const n = toNumber(row[v]);
    if (n === null) continue;
    const a = ri.get(keyOf(row[r]))!,
      b = ci.get(keyOf(row[c]))!;
    cells[a]![b] = (cells[a]![b] ?? 0) + n;
  }
  const rowTotals = cells.map((line) => line.reduce<number>((s, x) => s + (x ?? 0), 0));
  const colTotals = colKeys.map((_, j) => cells.reduce((s, line) => s + (line[j] ?? 0), 0));
  return { rowKeys, colKeys, cells, rowTotals, colTotals, total: rowTotals.reduce((s, x) => s + x, 0) };
}

/** A pivot cell shown as a percentage of its row, column, the grand total or the row's first cell (cohorts). */
export function pivotPercent(p: Pivot, ri: number, ci: number, mode: 'row' | 'column' | 'total' | 'first'): number | null {
  const v = p.cells[ri]![ci];
  if (v === null || v === undefined) return null;
  const base =
    mode === 'row' ? p.rowTotals[ri]! : mode === 'column' ? p.colTotals[ci]! : mode === 'total' ? p.total : (p.cells[ri]!.find((x) => x !== null) ?? null);
  return base ? (v / base) * 100 : null;
}

// ---------------------------------------------------------------- multi-pivot

function aggregate(values: Cell[], how: Aggregation): number | string | null {
  if (how === 'count') return values.length;
  if (how === 'count_distinct') return new Set(values.map(keyOf)).size;
  if (how === 'concat') return [...new Set(values.filter((v) => v !== null && v !== undefined).map(String))].join(', ');
  const nums = values.map(toNumber).filter((n): n is number => n !== null);
  if (nums.length === 0) return null;
  switch (how) {
    case 'sum':
      return nums.reduce((s, x) => s + x, 0);
    case 'avg':
      return nums.reduce((s, x) => s + x, 0) / nums.length;
    case 'min':
      return Math.min(...nums);
    case 'max':
      return Math.max(...nums);
    case 'median': {
      const s = [...nums].sort((a, b) => a - b);
      const m = s.length >> 1;
      return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
    }
  }
}

interface MultiPivotRow {
  /** Path of row-dimension values down to this node. */
  path: Cell[];
  depth: number;
  /** Has children (a subtotal row that can be collapsed). */
  group: boolean;
  /** cells[colIndex * values.length + valueIndex] */
  cells: (number | string | null)[];
}
export interface MultiPivot {
  colPaths: Cell[][];
  rows: MultiPivotRow[];
  total: (number | string | null)[];
}

/**
 * Nested row dimensions, nested column dimensions and several measures. Every level's cells are
 * aggregated from the underlying rows (so averages and medians of subtotals stay right). Rows come in
 * label order; a collapsed group hides its descendants.
 */
export function multiPivot(
  data: Cell[][],
  rowDims: number[],
  colDims: number[],
  values: { index: number; aggregation: Aggregation }[],
  collapsed: ReadonlySet<string> = new Set(),
): MultiPivot {
  const colIndex = new Map<string, number>();
  const colPaths: Cell[][] = [];
  const colOf = data.map((row) => {
    const path = colDims.map((d) => row[d] ?? null);
    const k = path.map(keyOf).join('\u0001');
    let i = colIndex.get(k);
    if (i === undefined) {
      colIndex.set(k, (i = colPaths.length));
      colPaths.push(path);
    }
    return i;
  });
  const cmp = (a: Cell[], b: Cell[]) => {
    for (let i = 0; i < a.length; i++) {
      const c = compareCells(a[i], b[i]);
      if (c !== 0) return c;
    }
    return 0;
  };
  const sortedCols = colPaths.map((p, i) => ({ p, i })).sort((a, b) => cmp(a.p, b.p));
  const colRank = new Map(sortedCols.map((c, rank) => [c.i, rank]));
  const width = Math.max(1, colPaths.length);
  const cellsFor = (rowIdx: number[]) => {
    const buckets: Cell[][][] = Array.from({ length: width }, () => values.map(() => []));
    for (const ri of rowIdx) {
      const col = colPaths.length ? colRank.get(colOf[ri]!)! : 0;
      values.forEach((v, vi) => buckets[col]![vi]!.push(data[ri]![v.index] ?? null));
    }
    return buckets.flatMap((perValue) => perValue.map((vals, vi) => (vals.length ? aggregate(vals, values[vi]!.aggregation) : null)));
  };
  const out: MultiPivotRow[] = [];
  const walk = (rowIdx: number[], depth: number, path: Cell[]) => {
    if (depth === rowDims.length) return;
    const groups = new Map<string, { value: Cell; rows: number[] }>();
    for (const ri of rowIdx) {
      const v = data[ri]![rowDims[depth]!] ?? null;
      const k = keyOf(v);
      let g = groups.get(k);
      if (!g) groups.set(k, (g = { value: v, rows: [] }));
      g.rows.push(ri);
    }
    const sorted = [...groups.values()].sort((a, b) => cmp([a.value], [b.value]));
    for (const g of sorted) {
      const p = [...path, g.value];
      const group = depth < rowDims.length - 1;
      out.push({ path: p, depth, group, cells: cellsFor(g.rows) });
      if (group && !collapsed.has(p.map(keyOf).join('\u0001'))) walk(g.rows, depth + 1, p);
    }
  };
  const all = data.map((_, i) => i);
  walk(all, 0, []);
  return { colPaths: sortedCols.map((c) => c.p), rows: out, total: cellsFor(all) };
}

export const pathKey = (path: Cell[]) => path.map(keyOf).join('\u0001');

// ---------------------------------------------------------------- histogram

interface Bin {
  start: number;
  end: number;
  /** Counts per series (one entry without a series column). */
  counts: number[];
  /** The first/last bin also holds values outside the chosen limits. */
  openStart?: boolean;
  openEnd?: boolean;
}
export interface Histogram {
  bins: Bin[];
  series: string[];
  /** Values that were NULL or not numbers, left out. */
  skipped: number;
  total: number;
  /** Values per series (what a series' percentages are shares of). */
  totals: number[];
}

/** A round bin width (1, 2 or 5 × 10^n) near `raw`. */
export function niceWidth(raw: number): number {
  if (!(raw > 0) || !Number.isFinite(raw)) return 1;
  const p = 10 ** Math.floor(Math.log10(raw));
  const f = raw / p;
  return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * p;
}

/** Bins of raw values: automatic (the count follows √n, at most 50), a number of bins, or a bin width; limits clamp outliers into the end bins. */
export function histogram(
  rows: Cell[][],
  value: number,
  series: number | undefined,
  opts: { bins?: number; binWidth?: number; min?: number; max?: number } = {},
): Histogram {
  const names: string[] = [];
  const seriesIndex = new Map<string, number>();
  const points: { v: number; s: number }[] = [];
  let skipped = 0;
  for (const r of rows) {
    const v = toNumber(r[value]);
    if (v === null) {
      skipped++;
      continue;
    }
    let s = 0;
    if (series !== undefined) {
      const name = r[series] === null || r[series] === undefined ? '(none)' : String(r[series]);
      let i = seriesIndex.get(name);
      if (i === undefined) {
        seriesIndex.set(name, (i = names.length));
        names.push(name);
      }
      s = i;
    }
    points.push({ v, s });
  }
  if (series === undefined) names.push('Count');
  const totals = names.map(() => 0);
  for (const p of points) totals[p.s]!++;
  if (points.length === 0) return { bins: [], series: names, skipped, total: 0, totals };
  let lo = Infinity,
    hi = -Infinity;
  for (const p of points) {
    if (p.v < lo) lo = p.v;
    if (p.v > hi) hi = p.v;
  }
  const min = opts.min ?? lo;
  const max = opts.max ?? hi;
  let width: number;
  if (opts.binWidth && opts.binWidth > 0) width = opts.binWidth;
  else {
    const count = opts.bins && opts.bins > 0 ? opts.bins : Math.min(50, Math.max(5, Math.ceil(Math.sqrt(points.length))));
    width = opts.bins ? (max - min) / count || 1 : niceWidth((max - min) / count);
  }
  const start = opts.min ?? (opts.bins ? min : Math.floor(min / width) * width);
  const n = Math.max(1, Math.min(1000, Math.ceil((max - start) / width + (max === start ? 1 : 0)) || 1));
  const bins: Bin[] = Array.from({ length: n }, (_, i) => ({ start: start + i * width, end: start + (i + 1) * width, counts: names.map(() => 0) }));
  for (const p of points) {
    let i = Math.floor((p.v - start) / width);
    if (p.v === max && i === n) i = n - 1;
    i = Math.max(0, Math.min(n - 1, i));
    bins[i]!.counts[p.s]!++;
  }
  if (opts.min !== undefined && lo < opts.min) bins[0]!.openStart = true;
  if (opts.max !== undefined && hi > opts.max) bins[n - 1]!.openEnd = true;
  return { bins, series: names, skipped, total: points.length, totals };
}

/**
 * What each bin's bar shows, per series: the count, the percentage of the series' own values, or the
 * running percentage of them (so series of different sizes can be compared by their shape).
 */
export function binValues(h: Histogram, show: 'count' | 'percent' | 'cumulative' = 'count'): number[][] {
  const running = h.series.map(() => 0);
  return h.bins.map((b) =>
    b.counts.map((count, si) => {
      running[si]! += count;
      return show === 'count' ? count : ((show === 'cumulative' ? running[si]! : count) / (h.totals[si] || 1)) * 100;
    }),
  );
}

// ---------------------------------------------------------------- hierarchy

export interface TreeNode {
  id: string;
  name: string;
  value?: number;
  children?: TreeNode[];
}

/** Rows as paths from the top level to a leaf; a NULL ends the path early; zero and negative values are left out. */
export function toTree(rows: Cell[][], levels: number[], value: number, rootName = 'All'): TreeNode {
  const root: TreeNode = { id: 'root', name: rootName, children: [] };
  for (const r of rows) {
    const v = toNumber(r[value]);
    if (v === null || v <= 0) continue;
    let node = root;
    let id = 'root';
    for (const l of levels) {
      const cell = r[l];
      if (cell === null || cell === undefined) break;
      const name = String(cell);
      id = `${id}/${name}`;
      if (!node.children) {
        node.children = [];
        // A node that was a leaf keeps its own value as a child of the same name.
        if (node.value !== undefined) {
          node.children.push({ id: `${node.id}/·`, name: node.name, value: node.value });
          delete node.value;
        }
      }
      let child = node.children.find((c) => c.name === name);
      if (!child) node.children.push((child = { id, name }));
      node = child;
    }
    if (node === root) continue;
    if (node.children?.length) {
      const own = node.children.find((c) => c.id === `${id}/·`);
      if (own) own.value = (own.value ?? 0) + v;
      else node.children.push({ id: `${id}/·`, name: node.name, value: v });
    } else node.value = (node.value ?? 0) + v;
  }
  return root;
}
