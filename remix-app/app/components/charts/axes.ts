/**
 * A second y-axis (a line chart's `y_right` columns): measures on a different scale share the plot by
 * being mapped onto the left axis' range, and the right axis labels its ticks in their own units.
 * Pure (no nivo): unit-tested on its own.
 */
import { niceWidth } from './data';

export interface NiceDomain {
  min: number;
  max: number;
  step: number;
  ticks: number[];
}

/** A domain covering `values` with round ends and about `count` round steps (zero included when asked and all values are positive). */
export function niceDomain(values: readonly number[], count = 5, zero = true): NiceDomain {
  const finite = values.filter((v) => Number.isFinite(v));
  let lo = finite.length ? Math.min(...finite) : 0;
  let hi = finite.length ? Math.max(...finite) : 1;
  if (zero && lo > 0) lo = 0;
  if (zero && hi < 0) hi = 0;
  if (lo === hi) {
    lo -= Math.abs(lo) || 1;
    hi += Math.abs(hi) || 1;
    if (zero && lo < 0 && hi > 0 && finite.every((v) => v >= 0)) lo = 0;
  }
  const step = niceWidth((hi - lo) / count);
  const min = Math.floor(lo / step + 1e-9) * step;
  const max = Math.ceil(hi / step - 1e-9) * step;
  const ticks: number[] = [];
  for (let t = min; t <= max + step / 2; t += step) ticks.push(Number(t.toPrecision(12)));
  return { min, max, step, ticks };
}

export interface DualAxis {
  left: NiceDomain;
  right: NiceDomain;
  /** A right-axis value in left-axis units (where it is drawn). */
  toLeft(v: number): number;
  /** A position in left-axis units read in right-axis units (the right axis' labels). */
  fromLeft(v: number): number;
  /** The right axis' round ticks, placed in left-axis units. */
  rightTicks: number[];
}

export function dualAxis(left: readonly number[], right: readonly number[], zero = true): DualAxis {
  const l = niceDomain(left, 5, zero);
  const r = niceDomain(right, 5, zero);
  const k = (l.max - l.min) / (r.max - r.min || 1);
  const toLeft = (v: number) => l.min + (v - r.min) * k;
  const fromLeft = (v: number) => Number((r.min + (v - l.min) / k).toPrecision(12));
  return { left: l, right: r, toLeft, fromLeft, rightTicks: r.ticks.map(toLeft) };
}
