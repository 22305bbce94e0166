import { describe, expect, it } from 'vitest';
import { chartControls } from '../../lib/editor-chart';
import { dualAxis, niceDomain } from './axes';
import { parseChartConfig } from './config';
import { resolveRoles } from './resolve';
import type { DataField } from '../../lib/types';

const fields: DataField[] = [
  { idx: 0, name: 'month', data_type: 'Date' },
  { idx: 1, name: 'revenue', data_type: 'Float' },
  { idx: 2, name: 'conversion_rate', data_type: 'Float' },
  { idx: 3, name: 'country', data_type: 'String' },
];

describe('a second y-axis for measures on another scale', () => {
  it('is part of the line chart configuration: columns and a title, wrong types dropped', () => {
    expect(parseChartConfig({ type: 'line', y: ['revenue'], y_right: ['conversion_rate'], y_right_title: 'Rate' }).config).toMatchObject({
      type: 'line',
      y: ['revenue'],
      y_right: ['conversion_rate'],
      y_right_title: 'Rate',
    });
    expect(parseChartConfig({ type: 'line', y_right: 'conversion_rate' }).config).toMatchObject({ y_right: ['conversion_rate'] });
    const bad = parseChartConfig({ type: 'line', y_right: 42, y_right_title: { x: 1 } }).config;
    expect(bad).not.toHaveProperty('y_right');
    expect(bad).not.toHaveProperty('y_right_title');
  });

  it('is offered in the report editor for line charts', () => {
    const keys = chartControls('line').map((c) => c.key);
    expect(keys).toEqual(expect.arrayContaining(['y_right', 'y_right_title']));
    expect(chartControls('line').find((c) => c.key === 'y_right')).toMatchObject({ kind: 'columns', accepts: 'numeric' });
  });

  it('takes its columns out of the left axis, and needs wide data', () => {
    const r = resolveRoles(parseChartConfig({ type: 'line', x: 'month', y_right: ['conversion_rate'] }).config, fields);
    expect(r).toEqual({ ok: true, roles: { x: 0, y: [1], yRight: [2] } });
    const missing = resolveRoles(parseChartConfig({ type: 'line', x: 'month', y_right: ['nope'] }).config, fields);
    expect(missing.ok).toBe(false);
    const long = resolveRoles(parseChartConfig({ type: 'line', x: 'month', y: ['revenue'], series: 'country', y_right: ['conversion_rate'] }).config, fields);
    expect(long).toMatchObject({ ok: false, note: expect.stringContaining('second y-axis') });
  });

  it('maps right values onto the left range and labels the right ticks in their own units', () => {
    const d = dualAxis([12_000, 48_000, 31_000], [0.012, 0.034, 0.027]);
    expect(d.left).toMatchObject({ min: 0, max: 50_000 });
    expect(d.right.min).toBe(0);
    expect(d.right.max).toBeCloseTo(0.04, 10);
    // The right domain's ends sit at the left domain's ends.
    expect(d.toLeft(d.right.min)).toBeCloseTo(d.left.min);
    expect(d.toLeft(d.right.max)).toBeCloseTo(d.left.max);
    expect(d.fromLeft(d.toLeft(0.027))).toBeCloseTo(0.027, 10);
    expect(d.rightTicks.map(d.fromLeft)).toEqual(d.right.ticks);
    // Every value stays inside the plot.
    for (const v of [0.012, 0.034, 0.027]) expect(d.toLeft(v)).toBeLessThanOrEqual(d.left.max);
  });

  it('round domains: zero included for positive values, a flat series still gets a range', () => {
    expect(niceDomain([3, 7, 9])).toMatchObject({ min: 0, max: 10, step: 2, ticks: [0, 2, 4, 6, 8, 10] });
    expect(niceDomain([-5, 12])).toMatchObject({ min: -5, max: 15 });
    const flat = niceDomain([4, 4]);
    expect(flat.max).toBeGreaterThan(flat.min);
    expect(niceDomain([])).toMatchObject({ min: 0, max: 1 });
  });
});
