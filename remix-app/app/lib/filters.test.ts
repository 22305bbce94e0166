import { describe, expect, it } from 'vitest';
import {
  checkValue,
  dashboardDefaultValues,
  daysToInstantRange,
  dayToUnix,
  effectiveValues,
  readUrlState,
  sideToDay,
  toParameters,
  withFilterValues,
  type FilterDef,
} from './filters';

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

const orderDate = def('order_date', 'date_range', { valueType: 'DATE' });
const country = def('country', 'dropdown_multi_manual', {
  manualOptions: [
    { value: 'DE', label: 'Germany' },
    { value: 'FR', label: 'France' },
    { value: 'US', label: 'United States' },
  ],
});
const timerange = def('timerange', 'date_time_range', { builtin: true, valueType: 'DATE_TIME' });
const aggregation = def('aggregation', 'date_time_aggregation', { builtin: true, allowedAggregations: ['day', 'week', 'month'] });
const defs = [timerange, aggregation, orderDate, country];
const UTC = { now: Date.UTC(2025, 2, 15, 12), zone: 'UTC', tz: null };

describe('filter values in the URL', () => {
  it('reads known filters and reports unknown or malformed ones', () => {
    const q = new URLSearchParams('f.country=DE,FR&f.order_date=1735689600~1738281600&f.nope=1&f.timerange=9~3&theme=dark');
    const { values, problems } = readUrlState(q, defs);
    expect(values).toEqual({ country: 'DE,FR', order_date: '1735689600~1738281600' });
    expect(problems).toHaveLength(2);
    expect(problems.join(' ')).toContain('"nope"');
    expect(problems.join(' ')).toContain('ends before it starts');
  });

  it('rejects ranges that are neither start~end nor a relative range', () => {
    for (const bad of ['soon', '1~2~3', '~', 'a~b', '2025-02-30~']) {
      const { values, problems } = readUrlState(new URLSearchParams({ 'f.order_date': bad }), defs);
      expect(values, bad).toEqual({});
      expect(problems, bad).toHaveLength(1);
      expect(problems[0]).toContain('order_date');
    }
    expect(readUrlState(new URLSearchParams({ 'f.order_date': '~1738281600' }), defs).values).toEqual({ order_date: '~1738281600' });
    expect(readUrlState(new URLSearchParams({ 'f.order_date': 'last_30_days' }), defs).values).toEqual({ order_date: 'last_30_days' });
    // Hours make no sense on a range of days.
    expect(readUrlState(new URLSearchParams({ 'f.order_date': 'last_24_hours' }), defs).problems).toHaveLength(1);
  });

  it('honours the kinds of range a filter allows', () => {
    const strict = def('period', 'date_range', { ranges: { relative: false, before: false, after: true, fromTo: true } });
    expect(checkValue(strict, 'this_month')).toHaveProperty('problem');
    expect(checkValue(strict, '~2025-01-31')).toHaveProperty('problem');
    expect(checkValue(strict, '2025-01-01~')).toEqual({ value: '2025-01-01~' });
    expect(checkValue(strict, '2025-01-01~2025-01-31')).toEqual({ value: '2025-01-01~2025-01-31' });
  });

  it('checks single values by control and value type', () => {
    expect(checkValue(def('n', 'input_multi', { valueType: 'NUMBER' }), '1, 2,3')).toEqual({ value: '1,2,3' });
    expect(checkValue(def('n', 'input_multi', { valueType: 'NUMBER' }), '1,abc')).toHaveProperty('problem');
    expect(checkValue(def('c', 'checkbox'), 'true')).toEqual({ value: 'true' });
    expect(checkValue(def('c', 'checkbox'), 'false')).toEqual({ value: '' });
    expect(checkValue(def('c', 'checkbox_two_way'), 'false')).toEqual({ value: 'false' });
    expect(checkValue(def('c', 'checkbox_two_way'), 'maybe')).toHaveProperty('problem');
    expect(checkValue(def('d', 'date'), '2025-02-29')).toHaveProperty('problem');
    expect(checkValue(def('t', 'time'), '18:00')).toEqual({ value: '18:00' });
    expect(checkValue(def('t', 'time'), '25:00')).toHaveProperty('problem');
    expect(checkValue(def('h', 'time_range'), '09:00~16:59:59')).toEqual({ value: '09:00~16:59:59' });
    expect(checkValue(def('h', 'time_range'), '17:00~09:00')).toHaveProperty('problem');
    expect(checkValue(def('dt', 'date_time'), '2025-03-01T09:30')).toEqual({ value: '2025-03-01T09:30' });
    expect(checkValue(aggregation, 'week')).toEqual({ value: 'week' });
    expect(checkValue(aggregation, 'year')).toHaveProperty('problem');
    expect(checkValue(def('a', 'date_time_aggregation'), 'all_time')).toHaveProperty('problem');
    expect(checkValue(def('a', 'date_time_aggregation', { allowedAggregations: ['month', 'all_time'] }), 'all_time')).toEqual({ value: 'all_time' });
  });

  it('writes changes into the URL, leaving defaults out and keeping separators readable', () => {
    const search = withFilterValues('?theme=dark&f.country=US', { country: 'DE,FR', order_date: '1735689600~1738281600' }, {});
    expect(search).toBe('?theme=dark&f.country=DE,FR&f.order_date=1735689600~1738281600');
    expect(new URLSearchParams(search).get('f.country')).toBe('DE,FR');
    // Back to the default: the parameter goes; cleared despite a default: an empty parameter stays.
    expect(withFilterValues(search, { country: 'DE' }, { country: 'DE' })).toBe('?theme=dark&f.order_date=1735689600~1738281600');
    expect(withFilterValues('', { country: '' }, { country: 'DE' })).toBe('?f.country=');
    expect(withFilterValues('', { q: 'a b&c' }, {})).toBe('?f.q=a%20b%26c');
    expect(withFilterValues('?f.x=1', {}, {}, 'Europe/Berlin')).toBe('?f.x=1&tz=Europe%2FBerlin');
  });

  it('round-trips: what the bar writes reads back the same', () => {
    const search = withFilterValues('', { country: 'DE,FR', order_date: 'last_7_days', timerange: '1735689600~1743465599', aggregation: 'week' }, {});
    expect(readUrlState(new URLSearchParams(search), defs)).toEqual({
      values: { country: 'DE,FR', order_date: 'last_7_days', timerange: '1735689600~1743465599', aggregation: 'week' },
      tz: null,
      problems: [],
    });
  });

  it('accepts a time zone only where the dashboard offers it', () => {
    const zones = ['Europe/Berlin', 'America/New_York'];
    expect(readUrlState(new URLSearchParams('tz=Europe/Berlin'), defs, zones).tz).toBe('Europe/Berlin');
    const bad = readUrlState(new URLSearchParams('tz=Asia/Tokyo'), defs, zones);
    expect(bad.tz).toBeNull();
    expect(bad.problems[0]).toContain('Asia/Tokyo');
    expect(readUrlState(new URLSearchParams('tz=Europe/Berlin'), defs, null).tz).toBeNull();
  });
});

describe('values in force', () => {
  it('takes the URL, then the dashboard default, then the filter default', () => {
    const withDefault = { ...country, defaultValue: 'US' };
    const defaults = dashboardDefaultValues([timerange, orderDate, withDefault], {
      timerange: '1~2',
      filters: [{ variable_name: 'order_date', selected_values: ['2025-01-01~2025-01-31'] }],
    });
    expect(defaults).toEqual({ timerange: '1~2', order_date: '2025-01-01~2025-01-31' });
    const eff = effectiveValues([timerange, orderDate, withDefault], { order_date: '' }, defaults, {});
    expect(eff.values).toEqual({ timerange: '1~2', order_date: '', country: 'US' });
  });

  it('validates dropdown values, defaults to the first option and lists required filters without a value', () => {
    const validated = { ...country, validate: true };
    const eff = effectiveValues([validated], { country: 'DE,XX' }, {}, {});
    expect(eff.values.country).toBe('DE');
    expect(eff.notes[0]).toContain('"XX"');

    const dynamic = def('city', 'dropdown_dynamic', { queryOptions: true, defaultToFirst: true, required: true });
    expect(effectiveValues([dynamic], {}, {}, {}).missing.map((d) => d.variable)).toEqual(['city']);
    const withOptions = effectiveValues(
      [dynamic],
      {},
      {},
      {
        city: [
          { value: 'Berlin', label: 'Berlin' },
          { value: 'Paris', label: 'Paris' },
        ],
      },
    );
    expect(withOptions.values.city).toBe('Berlin');
    expect(withOptions.missing).toEqual([]);
    // An explicit empty choice is respected.
    expect(effectiveValues([dynamic], { city: '' }, {}, { city: [{ value: 'Berlin', label: 'Berlin' }] }).values.city).toBe('');
  });
});

describe('input parameters', () => {
  it('sends built-ins at the top level and filters as selected values', () => {
    const p = toParameters(defs, { timerange: '1735689600~1743465599', aggregation: 'week', country: 'DE,FR', order_date: '1735689600~1738281600' }, UTC);
    expect(p).toEqual({
      timerange: '1735689600~1743465599',
      aggregation: 'week',
      filters: [
        // Date-range days written as UTC-midnight seconds become the days they name, whatever the zone.
        { variable_name: 'order_date', selected_values: ['2025-01-01~2025-01-31'] },
        { variable_name: 'country', selected_values: ['DE', 'FR'] },
      ],
    });
  });

  it('sends unset filters as empty selections so dashboard defaults do not come back', () => {
    const p = toParameters([orderDate, country], { order_date: '', country: '' }, UTC);
    expect(p.filters).toEqual([
      { variable_name: 'order_date', selected_values: [] },
      { variable_name: 'country', selected_values: [] },
    ]);
    expect(toParameters([timerange], { timerange: '' }, UTC)).toEqual({});
  });

  it('resolves relative ranges in the dashboard zone, with inclusive day ends', () => {
    const berlin = { now: Date.UTC(2025, 2, 31, 23, 30), zone: 'Europe/Berlin', tz: 'Europe/Berlin' };
    // 23:30 UTC on 31 March is already 1 April in Berlin.
    expect(toParameters([orderDate], { order_date: 'today' }, berlin)).toEqual({
      filters: [{ variable_name: 'order_date', selected_values: ['2025-04-01~2025-04-01'] }],
      tz: 'Europe/Berlin',
    });
    expect(toParameters([timerange], { timerange: 'previous_month' }, berlin).timerange).toBe('2025-03-01~2025-03-31');
    expect(toParameters([timerange], { timerange: 'last_24_hours' }, berlin).timerange).toBe(
      `${Date.UTC(2025, 2, 30, 23, 30) / 1000}~${Date.UTC(2025, 2, 31, 23, 30) / 1000}`,
    );
  });

  it('sends booleans for checkboxes and keeps single values whole', () => {
    const p = toParameters(
      [def('converted', 'checkbox_two_way', { valueType: 'BOOLEAN' }), def('q', 'input'), def('day', 'date')],
      { converted: 'false', q: 'a,b', day: '2025-03-03' },
      UTC,
    );
    expect(p.filters).toEqual([
      { variable_name: 'converted', selected_values: [false] },
      { variable_name: 'q', selected_values: ['a,b'] },
      { variable_name: 'day', selected_values: ['2025-03-03'] },
    ]);
  });
});

describe('picked days', () => {
  it('turns days into an instant range ending at 23:59:59 local', () => {
    expect(daysToInstantRange('2025-03-01', '2025-03-31', 'UTC')).toBe(`${Date.UTC(2025, 2, 1) / 1000}~${Date.UTC(2025, 3, 1) / 1000 - 1}`);
    // New York is UTC−4 on 31 March 2025 (daylight saving time) and UTC−5 on 1 March.
    expect(daysToInstantRange('2025-03-01', '2025-03-31', 'America/New_York')).toBe(`${Date.UTC(2025, 2, 1, 5) / 1000}~${Date.UTC(2025, 3, 1, 4) / 1000 - 1}`);
    expect(daysToInstantRange('', '2025-03-31', 'UTC')).toBe(`~${Date.UTC(2025, 3, 1) / 1000 - 1}`);
  });

  it('writes date-range days as UTC midnights and reads them back as days', () => {
    expect(dayToUnix('2025-03-01')).toBe(String(Date.UTC(2025, 2, 1) / 1000));
    expect(sideToDay(dayToUnix('2025-03-01'), 'America/New_York', false)).toBe('2025-03-01');
    expect(sideToDay(String(Date.UTC(2025, 3, 1, 4) / 1000 - 1), 'America/New_York', true)).toBe('2025-03-31');
    expect(sideToDay('2025-03-05', 'UTC', true)).toBe('2025-03-05');
  });
});
