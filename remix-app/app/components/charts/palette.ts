import { createContext } from 'react';

/** Colour schemes scheme_1 … scheme_8 of a dashboard (scheme_6 is the default). */
const SCHEMES: Record<string, string[]> = {
  scheme_1: ['#2563eb', '#0ea5e9', '#14b8a6', '#22c55e', '#84cc16', '#eab308', '#f97316', '#ef4444'],
  scheme_2: ['#7c3aed', '#a855f7', '#d946ef', '#ec4899', '#f43f5e', '#fb7185', '#f59e0b', '#10b981'],
  scheme_3: ['#0f766e', '#0d9488', '#14b8a6', '#2dd4bf', '#5eead4', '#0891b2', '#0284c7', '#1d4ed8'],
  scheme_4: ['#b45309', '#d97706', '#f59e0b', '#fbbf24', '#65a30d', '#15803d', '#0f766e', '#1e40af'],
  scheme_5: ['#334155', '#475569', '#64748b', '#94a3b8', '#0ea5e9', '#6366f1', '#a855f7', '#ec4899'],
  scheme_6: ['#4f46e5', '#06b6d4', '#f59e0b', '#10b981', '#ec4899', '#8b5cf6', '#f97316', '#64748b'],
  scheme_7: ['#dc2626', '#ea580c', '#d97706', '#ca8a04', '#65a30d', '#059669', '#0891b2', '#2563eb'],
  scheme_8: ['#1e3a8a', '#1d4ed8', '#3b82f6', '#60a5fa', '#93c5fd', '#0e7490', '#0891b2', '#22d3ee'],
};

export function paletteFor(scheme: string | undefined | null): string[] {
  return SCHEMES[scheme ?? ''] ?? SCHEMES.scheme_6!;
}

/** The scheme's colours starting at `start` (a chart's color_start), the skipped ones appended at the end. */
export function rotatePalette(palette: string[], start: number | undefined): string[] {
  if (!start || palette.length === 0) return palette;
  const s = ((Math.round(start) % palette.length) + palette.length) % palette.length;
  return [...palette.slice(s), ...palette.slice(0, s)];
}

/** FNV-1a hash of a series value: where its colour is looked for first. */
export function nameHash(name: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) {
    h ^= name.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/**
 * Colours pinned by series value (a line's, a bar's, a slice's name): "France" keeps the colour it got
 * the first time, whatever subset of values a filter leaves and whichever chart shows it. A new value
 * takes the colour its name hashes to when no pinned value has it yet, else the colour used by the
 * fewest pinned values, so the colour follows the value and not its position in the result. Within one
 * chart two values never share a colour while the scheme has a free one (the later value borrows a free
 * colour for that chart only, without changing its pin).
 */
export class ColorMap {
  private readonly pins = new Map<string, number>();
  private readonly counts: number[];
  /** A dashboard's stored map (seeded): new values take the next ordinal, as the API gives them. */
  private ordinal: number | null = null;
  /** Called with each value pinned for the first time (a dashboard hands them to its stored map). */
  onNew: ((name: string) => void) | null = null;

  constructor(readonly size: number) {
    this.counts = new Array<number>(Math.max(1, size)).fill(0);
  }

  /**
   * Pins the values of a dashboard's series_colors (value → colour ordinal in order of first sight);
   * from then on a new value takes the next ordinal, so this browser colours it as the API will store it.
   */
  seed(stored: Readonly<Record<string, number>>): this {
    const n = this.counts.length;
    let next = this.ordinal ?? 0;
    for (const [name, ord] of Object.entries(stored)) {
      if (!Number.isInteger(ord) || ord < 0) continue;
      if (!this.pins.has(name)) this.counts[ord % n]!++;
      this.pins.set(name, ord % n);
      next = Math.max(next, ord + 1);
    }
    this.ordinal = next;
    return this;
  }

  /** The pinned colour index of a value (pins it on first sight). */
  indexOf(name: string): number {
    let i = this.pins.get(name);
    if (i !== undefined) return i;
    if (this.ordinal !== null) {
      i = this.ordinal++ % this.counts.length;
      this.pins.set(name, i);
      this.counts[i]!++;
      this.onNew?.(name);
      return i;
    }
    const n = this.counts.length;
    const start = nameHash(name) % n;
    i = start;
    for (let k = 0; k < n; k++) {
      const j = (start + k) % n;
      if (this.counts[j]! < this.counts[i]!) i = j;
      if (this.counts[i] === 0) break;
    }
    this.pins.set(name, i);
    this.counts[i]!++;
    return i;
  }

  /** Colour indexes of the values one chart shows, in their order: pinned ones first keep theirs. */
  indexesFor(names: readonly string[]): number[] {
    const n = this.counts.length;
    const pinnedBefore = names.map((name) => this.pins.has(name));
    const out = new Array<number>(names.length);
    const used = new Set<number>();
    // Values pinned earlier choose first, so a value new to this chart never takes their colour here.
    for (const pass of [true, false]) {
      names.forEach((name, k) => {
        if (pinnedBefore[k] !== pass) return;
        let i = this.indexOf(name);
        if (used.has(i) && used.size < n) {
          while (used.has(i)) i = (i + 1) % n;
        }
        used.add(i);
        out[k] = i;
      });
    }
    return out;
  }
}

/**
 * The colour map of the dashboard being shown, when it has one (its stored series_colors): every chart
 * of the page colours through it. Without one, charts use one map per colour scheme (colorMapFor).
 */
export const DashboardColors = createContext<ColorMap | null>(null);

/** One colour map per colour scheme in the browser (server renders start afresh: no state across requests). */
const maps = new WeakMap<readonly string[], ColorMap>();
export function colorMapFor(palette: readonly string[]): ColorMap {
  if (typeof window === 'undefined') return new ColorMap(palette.length);
  let m = maps.get(palette);
  if (!m) maps.set(palette, (m = new ColorMap(palette.length)));
  return m;
}

/** Each name's colour: its pinned index in the chart's palette (the scheme turned by the chart's color_start). */
export function seriesColors(map: ColorMap, palette: readonly string[], names: readonly string[]): Map<string, string> {
  const idx = map.indexesFor(names);
  return new Map(names.map((name, k) => [name, palette[idx[k]! % palette.length]!]));
}
