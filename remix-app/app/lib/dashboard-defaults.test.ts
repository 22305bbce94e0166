import { describe, expect, it } from 'vitest';
import { defaultParametersFor, withoutFilterValues } from './dashboard-defaults';
import { dashboardDefaultValues, type FilterDef } from './filters';

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
const region = def('region', 'input');
const active = def('active', 'checkbox');
const orderDate = def('order_date', 'date_range', { valueType: 'DATE' });
const timerange = def('timerange', 'date_time_range', { builtin: true, valueType: 'DATE_TIME' });
const aggregation = def('aggregation', 'date_time_aggregation', { builtin: true });
const defs = [timerange, aggregation, country, region, active, orderDate];
const ctx = { now: Date.UTC(2025, 2, 15, 12), zone: 'UTC', tz: null };

describe('Save as default: the values in force as default_parameters', () => {
  it('writes filters the way the API expects and leaves unset ones out', () => {
    const p = defaultParametersFor(defs, { country: 'DE,FR', region: '', active: 'true', aggregation: 'month' }, ctx);
    expect(p).toEqual({
      aggregation: 'month',
      filters: [
        { variable_name: 'country', selected_values: ['DE', 'FR'] },
        { variable_name: 'active', selected_values: [true] },
      ],
    });
  });

  it('adds the chosen time zone and resolves relative ranges to the dates they cover now', () => {
    const p = defaultParametersFor(defs, { order_date: 'last_7_days' }, { ...ctx, tz: 'Europe/Berlin' });
    expect(p).toEqual({ tz: 'Europe/Berlin', filters: [{ variable_name: 'order_date', selected_values: ['2025-03-09~2025-03-15'] }] });
  });

  it('reads back as the same values when the dashboard opens', () => {
    const values = { country: 'FR', region: 'North', order_date: '2025-01-01~2025-01-31' };
    const stored = defaultParametersFor(defs, values, ctx);
    expect(dashboardDefaultValues(defs, stored)).toEqual(values);
  });

  it('nothing set: empty defaults', () => {
    expect(defaultParametersFor(defs, {}, ctx)).toEqual({});
  });
});

describe('the address after saving defaults', () => {
  it('drops f.* values and tz, keeps the rest', () => {
    expect(withoutFilterValues('?f.country=DE&tz=UTC&theme=dark')).toBe('?theme=dark');
    expect(withoutFilterValues('?f.country=DE')).toBe('');
  });
});
