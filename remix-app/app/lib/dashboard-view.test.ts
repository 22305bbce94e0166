import { describe, expect, it } from 'vitest';
import { buildFilters, buildTiles } from './dashboard-view';
import type { DashboardAttributes, SingleDocument } from './types';

const report = (id: string, name: string) => ({ type: 'reports', id, attributes: { name, chart_configuration: { type: 'table' }, no_data_message: null } });

const doc: SingleDocument<DashboardAttributes> = {
  data: {
    type: 'dashboards',
    id: 'dsh_1',
    attributes: {
      name: 'D',
      layout: [
        { type: 'report', id: 'rep_b', row: 1, column: 9, width: 6, height: 3 },
        { type: 'report', id: 'rep_a', row: 1, column: 1, width: 8, height: 4 },
        { type: 'report', id: 'rep_gone', row: 5, column: 1, width: 12, height: 4 },
      ],
    },
    relationships: {
      reports: { data: [{ type: 'reports', id: 'rep_a' }, { type: 'reports', id: 'rep_b' }, { type: 'reports', id: 'rep_c' }] },
      filters: { data: [{ type: 'filters', id: 'flt_2' }, { type: 'filters', id: 'flt_1' }] },
    },
  },
  included: [
    report('rep_a', 'A'),
    report('rep_b', 'B'),
    report('rep_c', 'C'),
    { type: 'filters', id: 'flt_1', attributes: { variable_name: 'country', display_name: 'Country', control_type: 'dropdown_multi_manual', value_type: 'TEXT' } },
    { type: 'filters', id: 'flt_2', attributes: { variable_name: 'kind', control_type: 'dropdown_manual', value_type: 'TEXT', values: ['a', 'b'], value_names: ['Alpha'] } },
  ],
};

describe('dashboard view', () => {
  it('places reports by layout id, keeps tiles inside 12 columns and appends unplaced reports', () => {
    const tiles = buildTiles(doc);
    expect(tiles.map((t) => [t.reportId, t.row, t.column, t.width, t.height])).toEqual([
      ['rep_a', 1, 1, 8, 4],
      ['rep_b', 1, 9, 4, 3],
      ['rep_c', 5, 1, 6, 4],
    ]);
  });

  it('lists filters in relationship order with manual options when the API gives them', () => {
    const filters = buildFilters(doc);
    expect(filters.map((f) => f.variable)).toEqual(['kind', 'country']);
    expect(filters[0]!.options).toEqual([{ value: 'a', label: 'Alpha' }, { value: 'b', label: 'b' }]);
    expect(filters[0]!.multiple).toBe(false);
    expect(filters[1]).toMatchObject({ label: 'Country', options: null, multiple: true });
  });
});
