import { describe, expect, it } from 'vitest';
import { pathTooltipRows, seriesTooltipRows } from './tooltip';

describe('chart tooltips name their columns', () => {
  it('long data: the x column, the series column and the measure column each name their value', () => {
    const rows = seriesTooltipRows({
      x: { column: 'Month', value: 'Mar 2026' },
      series: { column: 'Country', value: 'France' },
      measure: { column: 'Revenue', value: '1,234' },
      color: '#4f46e5',
    });
    expect(rows.map((r) => `${r.name}: ${r.value}`)).toEqual(['Month: Mar 2026', 'Country: France', 'Revenue: 1,234']);
    expect(rows.find((r) => r.color)?.name).toBe('Country');
  });

  it('wide data: the measure line is named after its value column', () => {
    const rows = seriesTooltipRows({ x: { column: 'Day', value: '2026-03-01' }, measure: { column: 'Orders', value: '12' } });
    expect(rows.map((r) => `${r.name}: ${r.value}`)).toEqual(['Day: 2026-03-01', 'Orders: 12']);
  });

  it("a hierarchy node names each level's column, then the measure", () => {
    const rows = pathTooltipRows(['Category', 'Product'], ['Books', 'Atlas'], { column: 'Revenue', value: '99' });
    expect(rows.map((r) => `${r.name}: ${r.value}`)).toEqual(['Category: Books', 'Product: Atlas', 'Revenue: 99']);
  });
});
