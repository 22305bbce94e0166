import { describe, expect, it } from 'vitest';
import { chartControls, readLabelMap, setLabel, setPath, switchChartType } from './editor-chart';

describe('column header labels (label_map)', () => {
  it('the table offers a label_map control for labels', () => {
    expect(chartControls('table').find((c) => c.key === 'labels')?.kind).toBe('label_map');
    expect(chartControls('bar').some((c) => c.kind === 'label_map')).toBe(false);
  });

  it('reads only string entries', () => {
    expect(readLabelMap({ a: 'A', b: 3, c: null })).toEqual({ a: 'A' });
    expect(readLabelMap(['x'])).toEqual({});
    expect(readLabelMap(undefined)).toEqual({});
  });

  it('sets, replaces and removes one column header', () => {
    expect(setLabel(undefined, 'amount', 'Amount (€)')).toEqual({ amount: 'Amount (€)' });
    expect(setLabel({ amount: 'A', city: 'Town' }, 'amount', 'B')).toEqual({ amount: 'B', city: 'Town' });
    expect(setLabel({ amount: 'A', city: 'Town' }, 'amount', '  ')).toEqual({ city: 'Town' });
    expect(setLabel({ amount: 'A' }, 'amount', '')).toBeUndefined();
  });

  it('an emptied map leaves the configuration', () => {
    const config = setPath({ type: 'table' }, 'labels', setLabel(undefined, 'a', 'Alpha'));
    expect(config).toEqual({ type: 'table', labels: { a: 'Alpha' } });
    expect(setPath(config, 'labels', setLabel(config.labels, 'a', ''))).toEqual({ type: 'table' });
  });

  it('does not carry table headers into a bar chart (whose labels is a switch)', () => {
    expect(switchChartType({ type: 'table', labels: { a: 'Alpha' } }, 'bar')).toEqual({ type: 'bar' });
  });
});
