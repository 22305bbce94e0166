import { describe, expect, it } from 'vitest';
import { buildTiles, dashboardZone, editorHref, filterSearch, tileActions, unusedFilters } from './dashboard-view';
import type { DashboardAttributes, SingleDocument } from './types';

const report = (id: string, name: string, extra: Record<string, unknown> = {}) => ({
  type: 'reports',
  id,
  attributes: { name, chart_configuration: { type: 'table' }, no_data_message: null, ...extra },
});

const doc = (layout: DashboardAttributes['layout']): SingleDocument<Pick<DashboardAttributes, 'layout'>> => ({
  data: {
    type: 'dashboards',
    id: 'dsh_1',
    attributes: { layout },
    relationships: {
      reports: {
        data: [
          { type: 'reports', id: 'rep_a' },
          { type: 'reports', id: 'rep_b' },
          { type: 'reports', id: 'rep_c' },
        ],
      },
    },
  },
  included: [report('rep_a', 'A'), report('rep_b', 'B', { no_data_message: 'Nothing here', display_name_as_title: false }), report('rep_c', 'C')],
});

describe('dashboard tiles', () => {
  it('places reports by layout, keeps tiles inside 12 columns and leaves out reports the layout does not list', () => {
    const tiles = buildTiles(
      doc([
        { type: 'report', id: 'rep_b', row: 1, column: 9, width: 6, height: 3 },
        { type: 'report', id: 'rep_a', row: 1, column: 1, width: 8, height: 4 },
        { type: 'report', id: 'rep_gone', row: 5, column: 1, width: 12, height: 4 },
      ]),
    );
    expect(tiles.map((t) => [t.reportId, t.row, t.column, t.width, t.height])).toEqual([
      ['rep_a', 1, 1, 8, 4],
      ['rep_b', 1, 9, 4, 3],
    ]);
    expect(tiles[1]).toMatchObject({ noDataMessage: 'Nothing here', showTitle: false });
    expect(tiles[0]!.noDataMessage).toBe('No data');
  });

  it('stacks every report two per row when there is no layout yet', () => {
    expect(buildTiles(doc([])).map((t) => [t.reportId, t.row, t.column])).toEqual([
      ['rep_a', 1, 1],
      ['rep_b', 1, 7],
      ['rep_c', 6, 1],
    ]);
  });

  it('picks the zone for relative ranges', () => {
    expect(dashboardZone({ type: 'organization' }, 'Europe/Berlin', 'Asia/Tokyo')).toBe('Europe/Berlin');
    expect(dashboardZone({ type: 'fixed', fixed_time_zone: 'America/New_York' }, 'Europe/Berlin', null)).toBe('America/New_York');
    expect(dashboardZone({ type: 'input', fixed_time_zone: 'UTC', allowed_time_zones: ['Asia/Tokyo'] }, 'Europe/Berlin', 'Asia/Tokyo')).toBe('Asia/Tokyo');
    expect(dashboardZone(null, null, null)).toBe('UTC');
  });

  it('reads the export switches: PNG/PDF with the download menu, Full CSV only with unlimited_csv_export_enabled and data downloads', () => {
    const build = (extra: Record<string, unknown>) =>
      buildTiles({
        data: { type: 'dashboards', id: 'dsh_1', attributes: { layout: [] }, relationships: { reports: { data: [{ type: 'reports', id: 'rep_a' }] } } },
        included: [report('rep_a', 'A', extra)],
      })[0]!.exports;
    expect(build({})).toEqual({ images: true, data: true, unlimitedCsv: false });
    expect(build({ unlimited_csv_export_enabled: true })).toEqual({ images: true, data: true, unlimitedCsv: true });
    expect(build({ unlimited_csv_export_enabled: true, data_download_enabled: false })).toEqual({ images: true, data: false, unlimitedCsv: false });
    expect(build({ unlimited_csv_export_enabled: true, download_actions_enabled: false })).toEqual({ images: false, data: true, unlimitedCsv: false });
  });

  it('reads the report menu switches: downloads need both download switches, each defaults to on', () => {
    expect(tileActions({})).toEqual({ download: true, maximize: true, refresh: true });
    expect(tileActions({ download_actions_enabled: true, data_download_enabled: false }).download).toBe(false);
    expect(tileActions({ download_actions_enabled: false, data_download_enabled: true }).download).toBe(false);
    expect(tileActions({ maximize_action_enabled: false, refresh_enabled: false })).toEqual({ download: true, maximize: false, refresh: false });
    const tiles = buildTiles({
      data: { type: 'dashboards', id: 'dsh_1', attributes: { layout: [] }, relationships: { reports: { data: [{ type: 'reports', id: 'rep_a' }] } } },
      included: [report('rep_a', 'A', { data_download_enabled: false, maximize_action_enabled: false })],
    });
    expect(tiles[0]!.actions).toEqual({ download: false, maximize: false, refresh: true });
  });

  it('carries the filter part of the dashboard address into the report editor', () => {
    expect(filterSearch('?f.country=DE&f.country=FR&tz=Asia%2FTokyo&other=1')).toBe('?f.country=DE&f.country=FR&tz=Asia%2FTokyo');
    expect(filterSearch('?x=1')).toBe('');
    expect(editorHref('rep_1', 'dsh_1', '?f.order_date=-30d&x=1')).toBe('/app/reports/rep_1?f.order_date=-30d');
    expect(editorHref('rep_1', 'dsh_1', '')).toBe('/app/reports/rep_1');
    expect(editorHref(null, 'dsh_1', '?f.country=DE')).toBe('/app/reports/new?dashboard=dsh_1&f.country=DE');
    expect(editorHref(null, 'dsh 1', '')).toBe('/app/reports/new?dashboard=dsh%201');
  });
});

describe('attribution and the unused-filters warning', () => {
  const withFilters = (extra: Record<string, unknown>): SingleDocument<DashboardAttributes> =>
    ({
      data: { type: 'dashboards', id: 'dsh_1', attributes: { layout: [] }, relationships: { reports: { data: [{ type: 'reports', id: 'rep_a' }] } } },
      included: [
        { ...report('rep_a', 'A', extra), relationships: { filters: { data: [{ type: 'filters', id: 'flt_country' }] } } },
        { type: 'filters', id: 'flt_country', attributes: { variable_name: 'country' } },
        { type: 'filters', id: 'flt_status', attributes: { variable_name: 'status' } },
      ],
    }) as unknown as SingleDocument<DashboardAttributes>;
  const defs = [
    { variable: 'country', label: 'Country' },
    { variable: 'status', label: 'Status' },
    { variable: 'timerange', label: 'Time range', builtin: true },
  ];

  it('names the set filters a warning report does not use, and nothing when the report does not ask', () => {
    const [tile] = buildTiles(withFilters({ unused_filters_warning_enabled: true, attribution: '  Source: ERP  ' }));
    expect(tile!.attribution).toBe('Source: ERP');
    expect(tile!.usedFilters).toEqual(['country']);
    expect(unusedFilters(tile!, defs, { country: 'DE', status: 'paid', timerange: 'last_7_days' })).toEqual(['Status']);
    expect(unusedFilters(tile!, defs, { country: 'DE', status: '' })).toEqual([]);
    const [quiet] = buildTiles(withFilters({}));
    expect(quiet!.usedFilters).toBeNull();
    expect(quiet!.attribution).toBeNull();
    expect(unusedFilters(quiet!, defs, { status: 'paid' })).toEqual([]);
  });
});
