import { describe, expect, it } from 'vitest';
import { unknownVariables } from './editor-variables';

const filters = [
  { variable_name: 'status', control_type: 'dropdown_multi', value_type: 'TEXT' },
  { variable_name: 'country', control_type: 'dropdown', value_type: 'TEXT' },
  { variable_name: 'period', control_type: 'date_time_aggregation', value_type: 'TEXT' },
];

describe('unknownVariables', () => {
  it('names a misspelt variable with the filter it most likely meant', () => {
    expect(unknownVariables('select * from orders where {[status]=stauts}', { filters })).toEqual([{ name: 'stauts', closest: 'status' }]);
  });

  it('accepts the dashboard filters and the built-ins', () => {
    const sql = 'select {[created_at]:period}, {[d]:aggregation} from orders where {[status]=status} and {[country]=country} and {[created_at]=timerange}';
    expect(unknownVariables(sql, { filters })).toEqual([]);
  });

  it('lists each unknown variable once, in order of use, without a guess when nothing is close', () => {
    const sql = 'select 1 where {[a]=letters} and {[b]=warehouse_zone} and {[c]=letters}';
    expect(unknownVariables(sql, { filters })).toEqual([
      { name: 'letters', closest: null },
      { name: 'warehouse_zone', closest: null },
    ]);
  });

  it('reads the variables inside snippets', () => {
    const snippets = [{ name: 'paid', text: 'paid_at is not null and {[region]=regoin}', params: [] }];
    expect(unknownVariables('select * from orders where [paid]', { filters, snippets })).toEqual([{ name: 'regoin', closest: null }]);
  });

  it('every variable is unknown without filters (the standalone editor), and broken SQL answers none', () => {
    expect(unknownVariables('select * where {[s]=status}', { filters: [] }).map((v) => v.name)).toEqual(['status']);
    expect(unknownVariables('select [CAIRN_NOPE] {[s]=status}', { filters: [] })).toEqual([]);
    expect(unknownVariables('select 1', { filters })).toEqual([]);
  });
});
