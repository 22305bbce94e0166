import { describe, expect, it } from 'vitest';
import { dateToUnix, readFilterValues, toParameters, unixToDate } from './filters';

const defs = [
  { variable_name: 'order_date', control_type: 'date_range' },
  { variable_name: 'country', control_type: 'dropdown_multi_manual' },
  { variable_name: 'timerange', control_type: 'date_range' },
];

describe('dashboard filters in the URL', () => {
  it('reads known filters and reports unknown or malformed ones', () => {
    const q = new URLSearchParams('f.country=DE,FR&f.order_date=100~200&f.nope=1&f.timerange=9~3&theme=dark');
    const { values, problems } = readFilterValues(q, defs);
    expect(values).toEqual({ country: 'DE,FR', order_date: '100~200' });
    expect(problems).toHaveLength(2);
    expect(problems.join(' ')).toContain('"nope"');
    expect(problems.join(' ')).toContain('ends before it starts');
  });

  it('rejects a range that is not <start>~<end>', () => {
    for (const bad of ['yesterday', '1~2~3', '~', 'a~b']) {
      const { values, problems } = readFilterValues(new URLSearchParams({ 'f.order_date': bad }), defs);
      expect(values).toEqual({});
      expect(problems).toHaveLength(1);
    }
    expect(readFilterValues(new URLSearchParams({ 'f.order_date': '~200' }), defs).values).toEqual({ order_date: '~200' });
  });

  it('turns values into API input parameters', () => {
    expect(toParameters({ country: 'DE, FR,', order_date: '100~200', timerange: '5~6' }, defs)).toEqual({
      timerange: '5~6',
      filters: [
        { variable_name: 'order_date', selected_values: ['100~200'] },
        { variable_name: 'country', selected_values: ['DE', 'FR'] },
      ],
    });
    expect(toParameters({}, defs)).toEqual({});
  });

  it('converts dates of <input type="date"> to unix seconds and back (UTC)', () => {
    expect(dateToUnix('2025-03-01')).toBe(Date.UTC(2025, 2, 1) / 1000);
    expect(dateToUnix('03/01/2025')).toBeNull();
    expect(unixToDate(String(Date.UTC(2025, 2, 31) / 1000))).toBe('2025-03-31');
    expect(unixToDate('abc')).toBe('');
  });
});
