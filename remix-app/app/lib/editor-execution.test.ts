import { describe, expect, it } from 'vitest';
import { duration, errorPosition, failureMessage, formatElapsed, isError, isFinal, pollDelay, sqlToRun, statusLabel } from './editor-execution';
import { chartControls, columnsFor, getPath, setPath, switchChartType, switchValue } from './editor-chart';
import { CHART_TYPES } from '../components/charts/config';

describe('execution state', () => {
  it('knows the final and error statuses of the engine', () => {
    for (const s of ['starting', 'waiting', 'scheduled', 'running']) expect(isFinal(s)).toBe(false);
    for (const s of ['success', 'query_error', 'timed_out', 'cancelled', 'internal_error', 'internal_timeout']) expect(isFinal(s)).toBe(true);
    expect(isError('cancelled')).toBe(false);
    expect(isError('query_error')).toBe(true);
    expect(statusLabel('waiting')).toMatch(/waiting/i);
    expect(statusLabel('something_new')).toBe('something_new');
  });

  it('backs off polling to every 2 seconds and formats elapsed time', () => {
    expect([0, 1, 2, 9].map(pollDelay)).toEqual([500, 1000, 2000, 2000]);
    expect(formatElapsed(400)).toBe('0.4 s');
    expect(formatElapsed(12_345)).toBe('12.3 s');
    expect(formatElapsed(125_000)).toBe('2 min 05 s');
    expect(duration({ started_at: '2026-01-01T00:00:00.000Z', completed_at: '2026-01-01T00:00:01.500Z' })).toBe(1500);
    expect(duration({ started_at: null, created_at: 'x', completed_at: null })).toBeNull();
  });

  it('shows the database’s message, or explains the status', () => {
    expect(failureMessage({ execution_status: 'query_error', error_message: 'column o.totl does not exist' })).toBe('column o.totl does not exist');
    expect(failureMessage({ execution_status: 'timed_out', error_message: null })).toMatch(/too long/);
  });

  it('finds the line of an error position in the SQL', () => {
    const sql = 'select\n  o.totl\nfrom orders o';
    expect(errorPosition('column o.totl does not exist (position 10)', sql)).toEqual({ line: 2, column: 3 });
    expect(errorPosition("You have an error in your SQL syntax near 'x' at line 3", sql)).toEqual({ line: 3, column: 1 });
    expect(errorPosition('permission denied', sql)).toBeNull();
  });

  it('runs the selection when there is one', () => {
    expect(sqlToRun('select 1; select 2', { from: 10, to: 18 })).toBe('select 2');
    expect(sqlToRun('select 1', { from: 3, to: 3 })).toBe('select 1');
    expect(sqlToRun('select 1\n\n', { from: 8, to: 10 })).toBe('select 1\n\n');
    expect(sqlToRun('select 1', null)).toBe('select 1');
  });
});

describe('chart configuration editing', () => {
  it('offers options for every chart type, with the number format everywhere', () => {
    for (const type of CHART_TYPES) {
      const keys = chartControls(type).map((c) => c.key);
      expect(keys.length, type).toBeGreaterThan(5);
      expect(keys).toContain('format.decimals');
    }
    expect(chartControls('bar').map((c) => c.key)).toEqual(expect.arrayContaining(['x', 'y', 'series', 'grouping', 'legend']));
    expect(chartControls('number').map((c) => c.key)).toEqual(expect.arrayContaining(['value', 'compare', 'change_as', 'down_is_good']));
    expect(chartControls('table').map((c) => c.key)).not.toContain('legend');
  });

  it('sets nested options and removes empty ones', () => {
    let c: Record<string, unknown> = { type: 'table' };
    c = setPath(c, 'sort.column', 'revenue');
    c = setPath(c, 'sort.desc', true);
    c = setPath(c, 'format.decimals', 2);
    expect(c).toEqual({ type: 'table', sort: { column: 'revenue', desc: true }, format: { decimals: 2 } });
    expect(getPath(c, 'sort.column')).toBe('revenue');
    c = setPath(c, 'format.decimals', '');
    c = setPath(c, 'sort.column', undefined);
    c = setPath(c, 'sort.desc', undefined);
    expect(c).toEqual({ type: 'table' });
    expect(setPath({ type: 'line' }, 'zero', false)).toEqual({ type: 'line', zero: false });
  });

  it('stores a switch only when it differs from the chart’s default', () => {
    const zero = chartControls('line').find((c) => c.key === 'zero')! as { on?: boolean };
    expect(switchValue(zero, true)).toBeUndefined();
    expect(switchValue(zero, false)).toBe(false);
    expect(switchValue({}, true)).toBe(true);
  });

  it('matches each switch’s default to what the chart draws without the option', () => {
    const control = (type: 'pie' | 'line', key: string) => chartControls(type).find((c) => c.key === key)! as { on?: boolean; explicit?: boolean };
    // A pie is drawn as a donut and lines are smooth unless the option says otherwise: switching off must be stored.
    expect(switchValue(control('pie', 'donut'), false)).toBe(false);
    expect(switchValue(control('pie', 'donut'), true)).toBeUndefined();
    expect(switchValue(control('line', 'smooth'), false)).toBe(false);
    // Point markers and the area fill depend on the data by default, so both states are stored.
    expect(switchValue(control('line', 'points'), false)).toBe(false);
    expect(switchValue(control('line', 'points'), true)).toBe(true);
    expect(switchValue(control('line', 'area'), false)).toBe(false);
  });

  it('offers a legend position only where the chart places a legend', () => {
    for (const type of ['pie', 'line', 'bar', 'xy_bubble', 'histogram'] as const)
      expect(
        chartControls(type).map((c) => c.key),
        type,
      ).toContain('legend');
    for (const type of ['map', 'hierarchy', 'gauge', 'word_cloud'] as const)
      expect(
        chartControls(type).map((c) => c.key),
        type,
      ).not.toContain('legend');
  });

  it('keeps a drill-down when the new type follows one, and drops it otherwise', () => {
    const bar = { type: 'bar', x: 'country', drilldown: { dashboard_id: 'dsh_1', mapping: [] } };
    expect(switchChartType(bar, 'pie').drilldown).toEqual(bar.drilldown);
    expect(switchChartType(bar, 'table').drilldown).toEqual(bar.drilldown);
    expect(switchChartType(bar, 'line')).not.toHaveProperty('drilldown');
  });

  it('carries compatible options over to another chart type', () => {
    const bar = { type: 'bar', x: 'month', y: ['revenue'], series: 'country', grouping: 'stacked', format: { compact: true }, legend: 'right' };
    expect(switchChartType(bar, 'line')).toEqual({ type: 'line', x: 'month', y: ['revenue'], series: 'country', format: { compact: true }, legend: 'right' });
    expect(switchChartType(bar, 'table')).toEqual({ type: 'table', format: { compact: true } });
    expect(switchChartType({ type: 'pie', label: 'country', value: 'revenue' }, 'number')).toEqual({ type: 'number', value: 'revenue' });
    // Axis titles go along between charts with axes; the first colour between charts with colours.
    const titled = { type: 'bar', x_title: 'Month', y_title: 'Revenue (EUR)', color_start: 2 };
    expect(switchChartType(titled, 'line')).toEqual({ type: 'line', x_title: 'Month', y_title: 'Revenue (EUR)', color_start: 2 });
    expect(switchChartType(titled, 'pie')).toEqual({ type: 'pie', color_start: 2 });
    expect(switchChartType(titled, 'table')).toEqual({ type: 'table' });
  });

  it('offers axis titles where there are axes and the first colour where there are colours', () => {
    for (const type of ['line', 'bar', 'xy_bubble', 'histogram'] as const) {
      expect(
        chartControls(type).map((c) => c.key),
        type,
      ).toEqual(expect.arrayContaining(['x_title', 'y_title', 'color_start']));
    }
    expect(chartControls('pie').map((c) => c.key)).not.toContain('x_title');
    expect(chartControls('table').map((c) => c.key)).not.toContain('color_start');
  });

  it('offers the columns of the right type', () => {
    const fields = [
      { name: 'country', data_type: 'String' },
      { name: 'revenue', data_type: 'Float' },
      { name: 'day', data_type: 'Date' },
    ];
    expect(columnsFor('numeric', fields)).toEqual(['revenue']);
    expect(columnsFor('dimension', fields)).toEqual(['country', 'day']);
    expect(columnsFor('any', fields)).toEqual(['country', 'revenue', 'day']);
    expect(columnsFor('numeric', [{ name: 'a', data_type: 'String' }])).toEqual(['a']);
  });
});
