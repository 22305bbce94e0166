import { describe, expect, it } from 'vitest';
import { editorFilterState } from './editor-filter-state';
import type { DashboardAttributes, SingleDocument } from './types';

const doc = {
  data: {
    id: 'dsh_1',
    type: 'dashboards',
    attributes: {
      name: 'Shop',
      time_zone_config: { type: 'fixed', fixed_time_zone: 'Europe/Berlin' },
      default_parameters: { filters: [{ variable_name: 'status', selected_values: ['paid'] }] },
    },
    relationships: {
      filters: {
        data: [
          { type: 'filters', id: 'f1' },
          { type: 'filters', id: 'f2' },
        ],
      },
    },
  },
  included: [
    {
      type: 'filters',
      id: 'f1',
      attributes: { variable_name: 'country', control_type: 'dropdown_multi_manual', value_type: 'TEXT' },
      meta: { options: { values: ['DE', 'FR'], value_names: ['Germany', 'France'] } },
    },
    { type: 'filters', id: 'f2', attributes: { variable_name: 'status', control_type: 'dropdown', value_type: 'TEXT' } },
  ],
} as unknown as SingleDocument<DashboardAttributes>;

describe('the dashboard’s filter values in the report editor', () => {
  it('reads the URL as the dashboard does and turns it into the run’s parameters', () => {
    const state = editorFilterState(doc, new URLSearchParams('dashboard=dsh_1&f.country=DE,FR&datasource=x'), 'UTC');
    expect(state.parameters.filters).toEqual([
      { variable_name: 'country', selected_values: ['DE', 'FR'] },
      { variable_name: 'status', selected_values: ['paid'] },
    ]);
    expect(state.values).toMatchObject({ country: 'DE,FR', status: 'paid' });
    expect(state.defaults).toMatchObject({ status: 'paid', country: '' });
    expect(state.zone).toBe('Europe/Berlin');
    expect(state.search).toBe('?f.country=DE%2CFR');
    expect(state.defs.map((d) => d.variable)).toEqual(['country', 'status']);
  });

  it('reports values of filters the dashboard does not have', () => {
    const state = editorFilterState(doc, new URLSearchParams('f.region=EU'), 'UTC');
    expect(state.problems.join(' ')).toContain('region');
    expect(state.parameters.filters?.find((f) => f.variable_name === 'region')).toBeUndefined();
  });
});

describe('a dashboard whose viewers choose the time zone', () => {
  const withZones = (allowed: string[], tz?: string) =>
    ({
      ...doc,
      data: {
        ...doc.data,
        attributes: { ...doc.data.attributes, time_zone_config: { type: 'input', allowed_time_zones: allowed }, default_parameters: tz ? { tz } : null },
      },
    }) as unknown as SingleDocument<DashboardAttributes>;

  it('opens in the default parameters’ zone when the URL names none; the URL wins', () => {
    const opened = editorFilterState(withZones(['Europe/Berlin', 'America/New_York'], 'America/New_York'), new URLSearchParams(''), 'UTC');
    expect(opened.tz).toBe('America/New_York');
    expect(opened.zone).toBe('America/New_York');
    expect(opened.parameters.tz).toBe('America/New_York');
    expect(editorFilterState(withZones(['Europe/Berlin', 'America/New_York'], 'America/New_York'), new URLSearchParams('tz=Europe/Berlin'), 'UTC').tz).toBe(
      'Europe/Berlin',
    );
    // A default the dashboard no longer offers is not used.
    expect(editorFilterState(withZones(['Europe/Berlin'], 'America/New_York'), new URLSearchParams(''), 'UTC').tz).toBeNull();
  });

  it('offers every zone when the allowed list is empty, as the API accepts any then', () => {
    const state = editorFilterState(withZones([]), new URLSearchParams('tz=Asia/Tokyo'), 'UTC');
    expect(state.timeZones).toContain('Asia/Tokyo');
    expect(state.timeZones).toContain('UTC');
    expect(state.tz).toBe('Asia/Tokyo');
    expect(state.problems).toEqual([]);
  });
});
