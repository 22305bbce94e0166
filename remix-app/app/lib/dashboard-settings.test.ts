import { describe, expect, it } from 'vitest';
import {
  allTimeZones,
  changedAttributes,
  matchZones,
  settingsAttributes,
  settingsErrors,
  settingsFieldOf,
  settingsForm,
  type SettingsAttributes,
} from './dashboard-settings';

const stored: SettingsAttributes = {
  name: 'Sales',
  description: null,
  time_zone_config: { type: 'organization' },
  data_refresh_rate: 1440,
  data_refresh_anchor_time: null,
  automatic_update_enabled: true,
  thumbnail_enabled: true,
  prewarm: false,
  default_page_width: 1600,
  color_scheme: 'scheme_6',
  filters_configuration: { apply_immediately: true, filter_sorting: ['country'], hidden_parameters: ['secret'] },
};

describe('dashboard settings form ↔ attributes', () => {
  it('fills the spec defaults for attributes the dashboard leaves unset', () => {
    const f = settingsForm({ name: 'Bare' });
    expect(f).toMatchObject({
      name: 'Bare',
      description: '',
      tzType: 'organization',
      fixedZone: '',
      allowedZones: [],
      refreshRate: '1440',
      anchorTime: '',
      automaticUpdate: true,
      thumbnail: true,
      prewarm: false,
      pageWidth: '1600',
      colorScheme: 'scheme_6',
      applyImmediately: true,
      aggregationOptions: [],
    });
  });

  it('round-trips a stored dashboard without changes', () => {
    expect(changedAttributes(settingsForm(stored), stored)).toEqual({});
  });

  it('sends only what changed, keeping the filter options the form does not show', () => {
    const f = { ...settingsForm(stored), name: 'Revenue', colorScheme: 'scheme_2', applyImmediately: false, aggregationOptions: ['day', 'month'] };
    expect(changedAttributes(f, stored)).toEqual({
      name: 'Revenue',
      color_scheme: 'scheme_2',
      filters_configuration: { apply_immediately: false, filter_sorting: ['country'], hidden_parameters: ['secret'], aggregation_options: ['day', 'month'] },
    });
  });

  it('writes the time zone config per type', () => {
    const base = settingsForm(stored);
    expect(settingsAttributes({ ...base, tzType: 'fixed', fixedZone: 'Europe/Berlin', allowedZones: ['UTC'] }).time_zone_config).toEqual({
      type: 'fixed',
      fixed_time_zone: 'Europe/Berlin',
    });
    expect(settingsAttributes({ ...base, tzType: 'fixed', fixedZone: '' }).time_zone_config).toEqual({ type: 'fixed', fixed_time_zone: null });
    expect(settingsAttributes({ ...base, tzType: 'input', allowedZones: ['UTC', 'Asia/Tokyo'] }).time_zone_config).toEqual({
      type: 'input',
      fixed_time_zone: null,
      allowed_time_zones: ['UTC', 'Asia/Tokyo'],
    });
    expect(settingsAttributes({ ...base, tzType: 'input' }).time_zone_config).toEqual({ type: 'input', fixed_time_zone: null, allowed_time_zones: null });
    expect(settingsAttributes({ ...base, tzType: 'disabled', fixedZone: 'UTC' }).time_zone_config).toEqual({ type: 'disabled' });
  });

  it('converts numbers, empty text and anchor times; sends non-numbers as typed for the API to name', () => {
    const a = settingsAttributes({ ...settingsForm(stored), refreshRate: ' 60 ', pageWidth: 'wide', anchorTime: ' 06:30 ', description: '  ' });
    expect(a).toMatchObject({ data_refresh_rate: 60, default_page_width: 'wide', data_refresh_anchor_time: '06:30', description: null });
    expect(settingsAttributes({ ...settingsForm(stored), anchorTime: '' }).data_refresh_anchor_time).toBeNull();
  });
});

describe("the API's 422 errors → settings fields", () => {
  it('maps pointers, nested members and list indexes to fields', () => {
    expect(settingsFieldOf('/data/attributes/name')).toBe('name');
    expect(settingsFieldOf('/data/attributes/time_zone_config/fixed_time_zone')).toBe('fixedZone');
    expect(settingsFieldOf('/data/attributes/time_zone_config/allowed_time_zones/3')).toBe('allowedZones');
    expect(settingsFieldOf('/data/attributes/time_zone_config')).toBe('tzType');
    expect(settingsFieldOf('/data/attributes/data_refresh_anchor_time')).toBe('anchorTime');
    expect(settingsFieldOf('/data/attributes/filters_configuration/aggregation_options/0')).toBe('aggregationOptions');
    expect(settingsFieldOf('/data/attributes/is_locked')).toBe('_form');
    expect(settingsFieldOf('/data/id')).toBe('_form');
    expect(settingsFieldOf(undefined)).toBe('_form');
  });

  it('groups messages by field', () => {
    expect(
      settingsErrors([
        { detail: 'data_refresh_anchor_time: must be a time written HH:MM.', source: { pointer: '/data/attributes/data_refresh_anchor_time' } },
        { title: 'Locked', source: {} },
        { code: 'invalid_attribute', source: { pointer: '/data/attributes/name' } },
      ]),
    ).toEqual({ anchorTime: ['data_refresh_anchor_time: must be a time written HH:MM.'], _form: ['Locked'], name: ['invalid_attribute'] });
  });
});

describe('time zone search', () => {
  const zones = ['UTC', 'America/New_York', 'Europe/Berlin', 'Europe/Busingen', 'Asia/Tokyo'];
  it('matches every word, ignoring case, slashes and underscores', () => {
    expect(matchZones(zones, 'ber')).toEqual(['Europe/Berlin']);
    expect(matchZones(zones, 'new york')).toEqual(['America/New_York']);
    expect(matchZones(zones, 'europe/bu')).toEqual(['Europe/Busingen']);
    expect(matchZones(zones, 'EUROPE', 1)).toEqual(['Europe/Berlin']);
    expect(matchZones(zones, 'mars')).toEqual([]);
  });
  it('lists the runtime zones with UTC first', () => {
    const all = allTimeZones();
    expect(all[0]).toBe('UTC');
    expect(all).toContain('Europe/Berlin');
    expect(all.filter((z) => z === 'UTC')).toHaveLength(1);
  });
});
