import { describe, expect, it } from 'vitest';
import { buildFilterDefs } from './filters-defs';
import type { DashboardAttributes, SingleDocument } from './types';

const doc = (config: DashboardAttributes['filters_configuration'], sql: string[]): SingleDocument<Pick<DashboardAttributes, 'filters_configuration'>> => ({
  data: {
    type: 'dashboards',
    id: 'dsh_1',
    attributes: { filters_configuration: config },
    relationships: {
      filters: {
        data: [
          { type: 'filters', id: 'flt_c' },
          { type: 'filters', id: 'flt_k' },
          { type: 'filters', id: 'flt_city' },
        ],
      },
    },
  },
  included: [
    {
      type: 'filters',
      id: 'flt_k',
      attributes: { variable_name: 'kind', control_type: 'dropdown_manual', value_type: 'TEXT', default_values: ['b'], dropdown_validate: true },
      meta: { options: { values: ['a', 'b'], value_names: ['Alpha'] } },
    },
    {
      type: 'filters',
      id: 'flt_c',
      attributes: {
        variable_name: 'country',
        display_name: 'Country',
        control_type: 'dropdown_multi',
        value_type: 'TEXT',
        sql_query: 'SELECT 1',
        required: true,
      },
    },
    {
      type: 'filters',
      id: 'flt_city',
      attributes: { variable_name: 'city', control_type: 'dropdown_multi_dynamic', value_type: 'TEXT', sql_query: 'SELECT 1', relative_range_enabled: false },
      relationships: { parent_filter: { data: { type: 'filters', id: 'flt_c' } } },
    },
    ...sql.map((q, i) => ({ type: 'reports', id: `rep_${i}`, attributes: { name: `R${i}`, sql_query: q } })),
  ] as never,
});

describe('filter definitions', () => {
  it('reads the dashboard filters with options, defaults, parents and the built-ins the reports use', () => {
    const defs = buildFilterDefs(
      doc({ aggregation_options: ['week', 'month'], hidden_parameters: ['kind'] }, [
        "SELECT {o.ordered_at:aggregation} FROM orders o WHERE {ordered_at=timerange} AND '{aggregation}' <> ''",
      ]),
    );
    expect(defs.map((d) => d.variable)).toEqual(['timerange', 'aggregation', 'country', 'kind', 'city']);
    const by = Object.fromEntries(defs.map((d) => [d.variable, d]));
    expect(by.timerange).toMatchObject({ builtin: true, controlType: 'date_time_range' });
    expect(by.aggregation).toMatchObject({ builtin: true, allowedAggregations: ['week', 'month'] });
    expect(by.kind).toMatchObject({
      defaultValue: 'b',
      validate: true,
      hidden: true,
      manualOptions: [
        { value: 'a', label: 'Alpha' },
        { value: 'b', label: 'b' },
      ],
    });
    expect(by.country).toMatchObject({ label: 'Country', queryOptions: true, required: true, manualOptions: null });
    expect(by.city).toMatchObject({ parent: 'country', queryOptions: true });
  });

  it('shows no built-in that no report uses, and sorts by filter_sorting', () => {
    const defs = buildFilterDefs(doc({ filter_sorting: ['city', 'kind'] }, ['SELECT 1 WHERE {x=country}']));
    expect(defs.map((d) => d.variable)).toEqual(['city', 'kind', 'country']);
  });
});
