import { describe, expect, it } from 'vitest';
import type { FilterDef } from './filters';
import { scheduleFilterValues, scheduleParameters } from './schedule-filters';

function def(variable: string, controlType: FilterDef['controlType'], extra: Partial<FilterDef> = {}): FilterDef {
  return {
    id: `flt_${variable}`,
    variable,
    label: variable,
    controlType,
    valueType: 'TEXT',
    builtin: false,
    required: false,
    defaultValue: '',
    validate: false,
    defaultToFirst: false,
    ranges: { relative: true, before: true, after: true, fromTo: true },
    allowedAggregations: null,
    parent: null,
    manualOptions: null,
    queryOptions: false,
    hidden: false,
    ...extra,
  };
}

const country = def('country', 'dropdown_multi_manual', {
  manualOptions: [
    { value: 'DE', label: 'Germany' },
    { value: 'FR', label: 'France' },
  ],
});
const orderDate = def('order_date', 'date_range', { valueType: 'DATE' });
const placed = def('placed', 'date_time_range', { valueType: 'DATE_TIME' });
const timerange = def('timerange', 'date_time_range', { builtin: true, valueType: 'DATE_TIME' });
const aggregation = def('aggregation', 'date_time_aggregation', { builtin: true });
const defs = [timerange, aggregation, country, orderDate, placed];

describe("a schedule's filter values", () => {
  it('keep relative ranges as tokens (the send resolves them) and write only the values set', () => {
    const p = scheduleParameters(defs, { timerange: 'last_7_days', order_date: 'previous_month', country: 'DE,FR' });
    expect(p).toEqual({
      timerange: 'last_7_days',
      filters: [
        { variable_name: 'country', selected_values: ['DE', 'FR'] },
        { variable_name: 'order_date', selected_values: ['previous_month'] },
      ],
    });
  });

  it('write fixed ranges as the API reads them and an unset value as empty', () => {
    const day = String(Date.UTC(2026, 0, 5) / 1000);
    const p = scheduleParameters(defs, { order_date: `${day}~${day}`, country: '' });
    expect(p).toEqual({
      filters: [
        { variable_name: 'country', selected_values: [] },
        { variable_name: 'order_date', selected_values: ['2026-01-05~2026-01-05'] },
      ],
    });
    expect(scheduleParameters(defs, {})).toBeNull();
  });

  it('read back into the same values, keeping what no control shows', () => {
    const stored = {
      timerange: 'this_month',
      aggregation: 'week',
      tz: 'Asia/Tokyo',
      filters: [
        { variable_name: 'country', selected_values: ['FR'] },
        { variable_name: 'placed', selected_values: ['last_24_hours'] },
        { variable_name: 'gone', selected_values: ['x'] },
      ],
    };
    const { values, rest } = scheduleFilterValues(defs, stored);
    expect(values).toEqual({ timerange: 'this_month', aggregation: 'week', country: 'FR', placed: 'last_24_hours' });
    expect(rest).toEqual({ tz: 'Asia/Tokyo', filters: [{ variable_name: 'gone', selected_values: ['x'] }] });
    const again = scheduleParameters(defs, values, rest)!;
    expect(again).toMatchObject({ timerange: 'this_month', aggregation: 'week', tz: 'Asia/Tokyo' });
    expect(again.filters).toEqual(expect.arrayContaining(stored.filters));
    expect((again.filters as unknown[]).length).toBe(3);
  });

  it('keep a stored value the control cannot show as it is', () => {
    const { values, rest } = scheduleFilterValues([def('order_date', 'date_range', { ranges: { relative: false, before: true, after: true, fromTo: true } })], {
      filters: [{ variable_name: 'order_date', selected_values: ['last_7_days'] }],
    });
    expect(values).toEqual({});
    expect(rest).toEqual({ filters: [{ variable_name: 'order_date', selected_values: ['last_7_days'] }] });
  });
});
