import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { ResultData } from '../../lib/dashboard-status';
import type { GaugeConfig, NumberConfig } from './config';
import GaugeChart from './views/GaugeChart';
import NumberChart from './views/NumberChart';

const fields = [
  { idx: 0, name: 'share', data_type: 'Float' },
  { idx: 1, name: 'previous', data_type: 'Float' },
] as ResultData['fields'];
const base = { palette: ['#000'], mode: 'light' as const, title: 'T', zone: 'UTC' };

const kpi = (config: NumberConfig, roles: Record<string, number | undefined>, rows: ResultData['rows']) =>
  renderToStaticMarkup(createElement(NumberChart, { ...base, config, roles, data: { fields, rows } } as never));
const gauge = (config: GaugeConfig, rows: ResultData['rows']) =>
  renderToStaticMarkup(createElement(GaugeChart, { ...base, config, roles: { value: 0 }, data: { fields, rows } } as never));

describe('KPI and gauge without a value', () => {
  it('a KPI with a NULL value or no row says "No data", not 0.0 %', () => {
    for (const rows of [[[null, 3]], []] as ResultData['rows'][]) {
      const html = kpi({ type: 'number', format: { percent: true, decimals: 1 } }, { value: 0 }, rows);
      expect(html).toContain('No data');
      expect(html).not.toMatch(/0\.0/);
    }
    // A real zero stays a zero.
    expect(kpi({ type: 'number', format: { percent: true, decimals: 1 } }, { value: 0 }, [[0, null]])).toContain('0.0');
  });

  it('a KPI whose previous period is missing says so instead of comparing', () => {
    const secondRow = kpi({ type: 'number', compare: 'second_row' }, { value: 0, secondRow: 1 }, [[5, null]]);
    expect(secondRow).toContain('No previous period');
    expect(secondRow).not.toContain('▲');
    const column = kpi({ type: 'number', compare: 'previous' }, { value: 0, compare: 1 }, [[5, null]]);
    expect(column).toContain('No previous period');
    // With a previous value the change is shown; without a comparison configured nothing is said.
    expect(kpi({ type: 'number', compare: 'previous' }, { value: 0, compare: 1 }, [[5, 4]])).toContain('▲');
    expect(kpi({ type: 'number' }, { value: 0 }, [[5, null]])).not.toContain('No previous period');
  });

  it('a gauge with a NULL value or no row says "No data"', () => {
    for (const rows of [[[null, 1]], []] as ResultData['rows'][]) {
      const html = gauge({ type: 'gauge', format: { percent: true, decimals: 1 } }, rows);
      expect(html).toContain('No data');
      expect(html).not.toContain('0.0 %');
    }
  });
});
