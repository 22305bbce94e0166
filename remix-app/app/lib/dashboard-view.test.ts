import { describe, expect, it } from 'vitest';
import { buildTiles, dashboardZone } from './dashboard-view';
import type { DashboardAttributes, SingleDocument } from './types';

const report = (id: string, name: string, extra: Record<string, unknown> = {}) => ({ type: 'reports', id, attributes: { name, chart_configuration: { type: 'table' }, no_data_message: null, ...extra } });

const doc = (layout: DashboardAttributes['layout']): SingleDocument<DashboardAttributes> => ({
  data: {
    type: 'dashboards',
    id: 'dsh_1',
    attributes: { name: 'D', layout },
    relationships: { reports: { data: [{ type: 'reports', id: 'rep_a' }, { type: 'reports', id: 'rep_b' }, { type: 'reports', id: 'rep_c' }] } },
  },
  included: [report('rep_a', 'A'), report('rep_b', 'B', { no_data_message: 'Nothing here', display_name_as_title: false }), report('rep_c', 'C')],
});

describe('dashboard tiles', () => {
  it('places reports by layout, keeps tiles inside 12 columns and leaves out reports the layout does not list', () => {
    const tiles = buildTiles(doc([
      { type: 'report', id: 'rep_b', row: 1, column: 9, width: 6, height: 3 },
      { type: 'report', id: 'rep_a', row: 1, column: 1, width: 8, height: 4 },
      { type: 'report', id: 'rep_gone', row: 5, column: 1, width: 12, height: 4 },
    ]));
    expect(tiles.map((t) => [t.reportId, t.row, t.column, t.width, t.height])).toEqual([
      ['rep_a', 1, 1, 8, 4],
      ['rep_b', 1, 9, 4, 3],
    ]);
    expect(tiles[1]).toMatchObject({ noDataMessage: 'Nothing here', showTitle: false });
    expect(tiles[0]!.noDataMessage).toBe('No data');
  });

  it('stacks every report two per row when there is no layout yet', () => {
    expect(buildTiles(doc([])).map((t) => [t.reportId, t.row, t.column])).toEqual([['rep_a', 1, 1], ['rep_b', 1, 7], ['rep_c', 6, 1]]);
  });

  it('picks the zone for relative ranges', () => {
    expect(dashboardZone({ type: 'organization' }, 'Europe/Berlin', 'Asia/Tokyo')).toBe('Europe/Berlin');
    expect(dashboardZone({ type: 'fixed', fixed_time_zone: 'America/New_York' }, 'Europe/Berlin', null)).toBe('America/New_York');
    expect(dashboardZone({ type: 'input', fixed_time_zone: 'UTC', allowed_time_zones: ['Asia/Tokyo'] }, 'Europe/Berlin', 'Asia/Tokyo')).toBe('Asia/Tokyo');
    expect(dashboardZone(null, null, null)).toBe('UTC');
  });
});
