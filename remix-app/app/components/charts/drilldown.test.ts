import { describe, expect, it } from 'vitest';
import type { DataField } from '../../lib/types';
import { parseChartConfig } from './config';
import { drilldownHref, parseDrilldown, rowFor } from './drilldown';

const fields: DataField[] = [
  { idx: 0, name: 'country', data_type: 'Text' },
  { idx: 1, name: 'country_code', data_type: 'Text' },
  { idx: 2, name: 'month', data_type: 'Date' },
  { idx: 3, name: 'revenue', data_type: 'Float' },
] as DataField[];

describe('drill-down configuration', () => {
  it('reads the target, the mapping and the switches (carry filters on, same tab by default)', () => {
    expect(parseDrilldown({ dashboard_id: 'dsh_1', mapping: [{ column: 'country_code', variable: 'country' }] })).toEqual({
      dashboard_id: 'dsh_1',
      mapping: [{ column: 'country_code', variable: 'country' }],
      keep_filters: true,
      new_tab: false,
    });
    expect(parseDrilldown({ dashboard_id: 'dsh_1', keep_filters: false, new_tab: true })).toMatchObject({ mapping: [], keep_filters: false, new_tab: true });
    // Unusable parts are dropped, an unusable target means no drill-down.
    expect(parseDrilldown({ dashboard_id: 'dsh_1', mapping: [{ column: '', variable: 'x' }, { column: 'a', variable: '-bad' }, 'x'] })!.mapping).toEqual([]);
    for (const bad of [null, 'dsh_1', {}, { dashboard_id: '../admin' }, { dashboard_id: 7 }]) expect(parseDrilldown(bad)).toBeNull();
    expect(parseChartConfig({ type: 'bar', drilldown: { dashboard_id: 'dsh_2' } }).config.drilldown?.dashboard_id).toBe('dsh_2');
    expect(parseChartConfig({ type: 'bar' }).config.drilldown).toBeUndefined();
  });
});

describe('drill-down address', () => {
  const dd = parseDrilldown({
    dashboard_id: 'dsh_9',
    mapping: [
      { column: 'country_code', variable: 'country' },
      { column: 'month', variable: 'order_day' },
    ],
  })!;
  const row = ['Germany', 'DE', '2026-03-01', 1234.5];

  it('sets the mapped filters from the clicked row and keeps the viewer’s other filters and zone', () => {
    const href = drilldownHref(dd, fields, row, '?f.country=FR,IT&f.status=paid&tz=Europe/Berlin&other=1');
    const url = new URL(href, 'http://x');
    expect(url.pathname).toBe('/app/dashboards/dsh_9');
    expect(url.searchParams.get('f.country')).toBe('DE');
    expect(url.searchParams.get('f.order_day')).toBe('2026-03-01');
    expect(url.searchParams.get('f.status')).toBe('paid');
    expect(url.searchParams.get('tz')).toBe('Europe/Berlin');
    expect(url.searchParams.has('other')).toBe(false);
  });

  it('leaves the viewer’s filters behind when told to; NULL unsets; values are escaped', () => {
    const alone = { ...dd, keep_filters: false };
    expect(drilldownHref(alone, fields, ['x', null, '2026-03-01', 1], '?f.status=paid')).toBe('/app/dashboards/dsh_9?f.country=&f.order_day=2026-03-01');
    const odd = drilldownHref(alone, fields, ['x', 'A&B=C #1', null, 1], '');
    expect(new URL(odd, 'http://x').searchParams.get('f.country')).toBe('A&B=C #1');
    // A mapped column the result no longer has sets nothing.
    expect(drilldownHref({ ...alone, mapping: [{ column: 'gone', variable: 'country' }] }, fields, row, '')).toBe('/app/dashboards/dsh_9');
  });

  it('finds the row behind a bar, by category and series', () => {
    const rows = [
      ['DE', 'paid', 3],
      ['DE', 'open', 1],
      ['FR', 'paid', 2],
      [null, 'paid', 5],
    ];
    expect(rowFor(rows, 0, 'DE')).toBe(rows[0]);
    expect(rowFor(rows, 0, 'DE', 1, 'open')).toBe(rows[1]);
    expect(rowFor(rows, 0, null, 1, 'paid')).toBe(rows[3]);
    expect(rowFor(rows, 0, 'IT')).toBeNull();
  });
});
