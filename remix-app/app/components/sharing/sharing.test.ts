import { describe, expect, it } from 'vitest';
import { attributesFromForm, optionWords, LINK_DEFAULTS } from './LinkOptions';
import { fileName, parseFormat } from './download.server';
import { downloadHref } from './DownloadMenu';
import { asDashboardDocument, publicDashboard, type PublicLinkView } from './public-dashboard';

const form = (entries: [string, string][]) => {
  const f = new FormData();
  for (const [k, v] of entries) f.append(k, v);
  return f;
};

describe('link options form', () => {
  it('turns unchecked switches into false and keeps the filter bar off without toolbar and parameters', () => {
    const attrs = attributesFromForm(
      form([
        ['name', ' Partner '],
        ['filter_bar_enabled', 'on'],
        ['toolbar_enabled', 'on'],
        ['color_mode', 'dark'],
        ['password_mode', 'keep'],
      ]),
    );
    expect(attrs).toEqual({
      name: 'Partner',
      description: null,
      toolbar_enabled: true,
      parameters_enabled: false,
      filter_bar_enabled: false,
      refresh_enabled: false,
      data_download_enabled: false,
      unlimited_csv_export_enabled: false,
      sharing_secret_required: false,
      color_mode: 'dark',
      ip_whitelist: null,
    });
    const bar = attributesFromForm(
      form([
        ['name', 'x'],
        ['toolbar_enabled', 'on'],
        ['parameters_enabled', 'on'],
        ['filter_bar_enabled', 'on'],
      ]),
    );
    expect(bar.filter_bar_enabled).toBe(true);
  });

  it('sends the password only when it is set or removed', () => {
    expect(
      'sharing_password' in
        attributesFromForm(
          form([
            ['name', 'x'],
            ['password_mode', 'keep'],
          ]),
        ),
    ).toBe(false);
    expect(
      attributesFromForm(
        form([
          ['name', 'x'],
          ['password_mode', 'none'],
        ]),
      ).sharing_password,
    ).toBeNull();
    expect(
      attributesFromForm(
        form([
          ['name', 'x'],
          ['password_mode', 'set'],
          ['sharing_password', 'pw 1'],
        ]),
      ).sharing_password,
    ).toBe('pw 1');
  });

  it('keeps an allow-list as written (the API checks and normalizes it) and an unknown colour as light', () => {
    const attrs = attributesFromForm(
      form([
        ['name', 'x'],
        ['ip_whitelist', ' 10.0.0.0/8, ::1 '],
        ['color_mode', 'purple'],
      ]),
    );
    expect(attrs.ip_whitelist).toBe('10.0.0.0/8, ::1');
    expect(attrs.color_mode).toBe('light');
  });

  it('names the protections of a link', () => {
    expect(optionWords({ ...LINK_DEFAULTS, name: 'x', token: 't', sharing_password_set: true, ip_whitelist: '1.2.3.4', color_mode: 'dark' })).toEqual([
      'password',
      'IP allow-list',
      'downloads',
      'dark',
    ]);
  });
});

describe('downloads', () => {
  it('accepts csv and xlsx only and makes safe file names', () => {
    expect(parseFormat('csv')).toBe('csv');
    expect(parseFormat('xlsx')).toBe('xlsx');
    expect(parseFormat('pdf')).toBeNull();
    expect(fileName('Revenue / country "2025"', 'csv')).toBe('Revenue country 2025.csv');
    expect(fileName('Umsätze', 'xlsx')).toBe('Umsatze.xlsx');
    expect(fileName('../../etc/passwd', 'csv')).toBe('....etcpasswd.csv');
    expect(fileName('', 'csv')).toBe('report.csv');
  });

  it('builds download links with the parameters and what the page must keep', () => {
    const href = downloadHref('/s/tok/download/rep_1', 'csv', 'Sales', { filters: [{ variable_name: 'c', selected_values: ['DE'] }] }, 'query=f.c%3DDE');
    const url = new URL(href, 'https://x.test');
    expect(url.pathname).toBe('/s/tok/download/rep_1');
    expect(url.searchParams.get('format')).toBe('csv');
    expect(url.searchParams.get('query')).toBe('f.c=DE');
    expect(JSON.parse(url.searchParams.get('parameters')!)).toEqual({ filters: [{ variable_name: 'c', selected_values: ['DE'] }] });
  });
});

const view: PublicLinkView = {
  link: {
    name: 'L',
    description: null,
    toolbar_enabled: true,
    parameters_enabled: true,
    filter_bar_enabled: true,
    refresh_enabled: false,
    data_download_enabled: true,
    unlimited_csv_export_enabled: false,
    sharing_secret_required: true,
    password_protected: false,
    color_mode: 'light',
  },
  dashboard: {
    id: 'dsh_1',
    name: 'D',
    description: null,
    default_page_width: 1200,
    color_scheme: 'scheme_2',
    series_colors: {},
    data_refresh_rate: 60,
    filters_configuration: {},
    time_zone_config: { type: 'organization' },
    default_parameters: {},
    organization_time_zone: 'UTC',
    updated_at: '2026-01-01T00:00:00Z',
    layout: [
      { type: 'report', id: 'rep_b', row: 1, column: 7, width: 6, height: 4 },
      { type: 'report', id: 'rep_a', row: 1, column: 1, width: 6, height: 4 },
    ],
  },
  reports: [
    {
      id: 'rep_a',
      name: 'A',
      description: null,
      chart_configuration: { type: 'bar' },
      no_data_message: null,
      display_name_as_title: true,
      attribution: null,
      download_enabled: true,
    },
    {
      id: 'rep_b',
      name: 'B',
      description: 'b',
      chart_configuration: {},
      no_data_message: 'Nothing',
      display_name_as_title: false,
      attribution: null,
      download_enabled: false,
      maximize_enabled: false,
    },
  ],
  filters: [
    {
      id: 'flt_c',
      variable_name: 'country',
      display_name: 'Country',
      control_type: 'dropdown_multi_manual',
      value_type: 'TEXT',
      default_values: ['DE'],
      required: false,
      parent_filter_id: null,
      allowed_aggregations: null,
      dropdown_validate: false,
      dropdown_default_to_first: false,
      query_options: false,
      relative_range_enabled: true,
      before_range_enabled: true,
      after_range_enabled: true,
      from_to_range_enabled: true,
      fixed: true,
      options: { values: ['DE', 'FR'], value_names: ['Germany', 'France'] },
    },
    {
      id: 'flt_s',
      variable_name: 'status',
      display_name: null,
      control_type: 'dropdown_dynamic',
      value_type: 'TEXT',
      default_values: null,
      required: true,
      parent_filter_id: 'flt_c',
      allowed_aggregations: null,
      dropdown_validate: true,
      dropdown_default_to_first: false,
      query_options: true,
      relative_range_enabled: true,
      before_range_enabled: true,
      after_range_enabled: true,
      from_to_range_enabled: true,
      fixed: false,
    },
  ],
  built_ins: { timerange: true, aggregation: false },
  parameters: {},
  fixed_variables: ['country'],
  problems: [],
};

describe('the public link as a dashboard document', () => {
  it('lays the tiles out from the layout, with titles, messages and chart settings', () => {
    const { tiles } = publicDashboard(view);
    expect(tiles.map((t) => [t.reportId, t.column, t.showTitle, t.noDataMessage])).toEqual([
      ['rep_a', 1, true, 'No data'],
      ['rep_b', 7, false, 'Nothing'],
    ]);
    expect(tiles[0]!.chartConfiguration).toEqual({ type: 'bar' });
  });

  it('gives each tile the menu the link allows: downloads as the API decided, maximize per report, no own refresh', () => {
    const { tiles } = publicDashboard(view);
    expect(tiles.map((t) => [t.reportId, t.actions])).toEqual([
      ['rep_a', { download: true, maximize: true, refresh: false }],
      ['rep_b', { download: false, maximize: false, refresh: false }],
    ]);
  });

  it('builds the filter bar: manual options, parents, query options, the built-ins used, and signed values fixed', () => {
    const { defs } = publicDashboard(view);
    const byVar = Object.fromEntries(defs.map((d) => [d.variable, d]));
    expect(byVar.country).toMatchObject({
      label: 'Country',
      fixed: true,
      hidden: false,
      manualOptions: [
        { value: 'DE', label: 'Germany' },
        { value: 'FR', label: 'France' },
      ],
      defaultValue: 'DE',
    });
    expect(byVar.status).toMatchObject({ parent: 'country', queryOptions: true, required: true, validate: true, hidden: false });
    expect(byVar.status!.fixed).toBeFalsy();
    expect(byVar.timerange).toMatchObject({ builtin: true });
    expect(byVar.aggregation).toBeUndefined();
    // No SQL of the reports reaches the document: only the marker of the built-ins.
    const doc = asDashboardDocument(view);
    const sql = (doc.included ?? []).filter((r) => r.type === 'reports').map((r) => (r.attributes as { sql_query: string }).sql_query);
    expect(sql).toEqual(['{timerange.start} ', '']);
  });
});
