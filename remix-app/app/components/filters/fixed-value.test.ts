import { describe, expect, it } from 'vitest';
import type { FilterDef } from '../../lib/filters';
import { fixedValueText } from './FilterBar';

function def(controlType: FilterDef['controlType'], extra: Partial<FilterDef> = {}): FilterDef {
  return {
    id: 'f',
    variable: 'v',
    label: 'V',
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
    fixed: true,
    ...extra,
  };
}

describe('a fixed filter value in words', () => {
  it('names options by their labels, and values without a label as they are', () => {
    const manual = def('dropdown_multi_manual', {
      manualOptions: [
        { value: 'DE', label: 'Germany' },
        { value: 'FR', label: 'France' },
      ],
    });
    expect(fixedValueText(manual, 'DE,FR', undefined, 'UTC')).toBe('Germany, France');
    expect(fixedValueText(def('dropdown_dynamic'), 'c_42', [{ value: 'c_42', label: 'Acme' }], 'UTC')).toBe('Acme');
    expect(fixedValueText(def('input'), 'a,b', undefined, 'UTC')).toBe('a,b');
    expect(fixedValueText(def('input_multi'), 'a,b', undefined, 'UTC')).toBe('a, b');
  });

  it('says ranges, aggregations and checkboxes as the controls do', () => {
    expect(fixedValueText(def('date_range', { valueType: 'DATE' }), 'last_7_days', undefined, 'UTC')).toBe('Last 7 days');
    expect(fixedValueText(def('date_range', { valueType: 'DATE' }), '1735689600~1743379200', undefined, 'UTC')).toBe('Jan 1, 2025 – Mar 31, 2025');
    expect(fixedValueText(def('date_time_aggregation'), 'week', undefined, 'UTC')).toBe('Week (Monday)');
    expect(fixedValueText(def('checkbox_two_way'), 'false', undefined, 'UTC')).toBe('No');
    expect(fixedValueText(def('checkbox'), 'true', undefined, 'UTC')).toBe('Yes');
  });
});
