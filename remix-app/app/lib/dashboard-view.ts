/** Turns the API's dashboard document into what the dashboard page draws (pure; unit-testable). */
import type { ResourceObject } from '@cairn/core';
import { FILTER_PREFIX, TZ_PARAM } from './filters.ts';
import type { DashboardAttributes, LayoutTile, ReportAttributes, SingleDocument } from './types';

export interface TileView {
  reportId: string;
  name: string;
  description: string | null;
  showTitle: boolean;
  chartConfiguration: Record<string, unknown> | null;
  noDataMessage: string;
  /** A source line under the chart (the report's attribution). */
  attribution: string | null;
  /**
   * With unused_filters_warning_enabled: the variables of the dashboard filters this report's SQL uses
   * (the report's `filters` relationship); null when the report does not ask for the warning.
   */
  usedFilters: string[] | null;
  /** The report's menu switches: CSV/XLSX downloads, maximize, its own refresh button. */
  actions: TileActions;
  /** The app's export entries: PNG/PDF (download_actions_enabled), data (data_download_enabled), Full CSV (unlimited_csv_export_enabled too). */
  exports: { images: boolean; data: boolean; unlimitedCsv: boolean };
  row: number;
  column: number;
  width: number;
  height: number;
}

export interface TileActions {
  /** download_actions_enabled and data_download_enabled (on a sharing link: the link's switch too). */
  download: boolean;
  maximize: boolean;
  refresh: boolean;
}

/** The report switches as the tile menu reads them (each defaults to on, as in the API). */
export function tileActions(
  a: Partial<Pick<ReportAttributes, 'download_actions_enabled' | 'data_download_enabled' | 'maximize_action_enabled' | 'refresh_enabled'>>,
): TileActions {
  return {
    download: a.download_actions_enabled !== false && a.data_download_enabled !== false,
    maximize: a.maximize_action_enabled !== false,
    refresh: a.refresh_enabled !== false,
  };
}

const clamp = (n: unknown, min: number, max: number, fallback: number) =>
  typeof n === 'number' && Number.isFinite(n) ? Math.min(max, Math.max(min, Math.round(n))) : fallback;

function relatedIds(resource: ResourceObject<unknown>, name: string): string[] {
  const data = resource.relationships?.[name]?.data;
  return Array.isArray(data) ? data.map((d) => d.id) : [];
}

/**
 * Tiles on the 12-column grid from `layout`. A tile sticking out on the right is cut at column 12;
 * reports the layout leaves out are not shown (docs: dashboard layout) — unless the layout is empty,
 * when every report is stacked two per row in relationship order.
 */
export function buildTiles(doc: SingleDocument<Pick<DashboardAttributes, 'layout'>>): TileView[] {
  const reports = new Map((doc.included ?? []).filter((r) => r.type === 'reports').map((r) => [r.id, r as unknown as ResourceObject<ReportAttributes>]));
  const layout: LayoutTile[] = Array.isArray(doc.data.attributes.layout) ? doc.data.attributes.layout : [];
  const variables = new Map(
    (doc.included ?? []).filter((r) => r.type === 'filters').map((r) => [r.id, (r.attributes as { variable_name?: string }).variable_name ?? '']),
  );
  const tiles: TileView[] = [];
  const placed = new Set<string>();
  for (const t of layout) {
    const report = reports.get(t.id);
    if (!report || placed.has(t.id)) continue;
    placed.add(t.id);
    const column = clamp(t.column, 1, 12, 1);
    tiles.push(
      toTile(report, variables, {
        row: clamp(t.row, 1, 100_000, 1),
        column,
        width: Math.min(clamp(t.width, 1, 12, 6), 13 - column),
        height: clamp(t.height, 1, 100, 4),
      }),
    );
  }
  if (tiles.length === 0) {
    const order = relatedIds(doc.data, 'reports');
    [...reports.values()]
      .sort((a, b) => order.indexOf(a.id) - order.indexOf(b.id))
      .forEach((r, i) => tiles.push(toTile(r, variables, { row: 1 + Math.floor(i / 2) * 5, column: i % 2 === 0 ? 1 : 7, width: 6, height: 5 })));
  }
  return tiles.sort((a, b) => a.row - b.row || a.column - b.column);
}

function toTile(r: ResourceObject<ReportAttributes>, variables: Map<string, string>, box: Pick<TileView, 'row' | 'column' | 'width' | 'height'>): TileView {
  const a = r.attributes;
  const used = relatedIds(r as never, 'filters')
    .map((id) => variables.get(id))
    .filter((v): v is string => Boolean(v));
  return {
    reportId: r.id,
    name: a.name,
    description: a.description ?? null,
    showTitle: a.display_name_as_title !== false,
    chartConfiguration: a.chart_configuration && typeof a.chart_configuration === 'object' ? a.chart_configuration : null,
    noDataMessage: a.no_data_message?.trim() || 'No data',
    attribution: a.attribution?.trim() || null,
    usedFilters: a.unused_filters_warning_enabled ? used : null,
    actions: tileActions(a),
    exports: {
      images: a.download_actions_enabled !== false,
      data: a.data_download_enabled !== false,
      unlimitedCsv: a.download_actions_enabled !== false && a.data_download_enabled !== false && a.unlimited_csv_export_enabled === true,
    },
    ...box,
  };
}

/** The dashboard's time zone for relative ranges and pickers: the viewer's choice, the fixed zone, or the organization's. */
export function dashboardZone(
  config: DashboardAttributes['time_zone_config'] | null | undefined,
  organizationZone: string | null | undefined,
  chosen: string | null,
): string {
  const type = config?.type ?? 'organization';
  if (type === 'input' && chosen) return chosen;
  if ((type === 'input' || type === 'fixed') && config?.fixed_time_zone) return config.fixed_time_zone;
  return organizationZone || 'UTC';
}

/** The filter part of a dashboard address (`f.<variable>` and `tz`), as `?…` or ''. */
export function filterSearch(search: string): string {
  const kept = new URLSearchParams();
  for (const [k, v] of new URLSearchParams(search)) if (k.startsWith(FILTER_PREFIX) || k === TZ_PARAM) kept.append(k, v);
  const qs = kept.toString();
  return qs ? `?${qs}` : '';
}

/**
 * The report editor's address for a report of a dashboard, carrying the dashboard's filter state so
 * that Run in the editor uses the values the dashboard shows (a new report: `reportId` null).
 */
export function editorHref(reportId: string | null, dashboardId: string, search: string): string {
  const filters = filterSearch(search);
  if (reportId) return `/app/reports/${encodeURIComponent(reportId)}${filters}`;
  return `/app/reports/new?dashboard=${encodeURIComponent(dashboardId)}${filters ? `&${filters.slice(1)}` : ''}`;
}

/**
 * The filters a tile's report ignores although they are set (the report's "warn about unused filters"):
 * the display names of the dashboard filters with a value in effect that its SQL does not reference.
 * The built-in timerange and aggregation are left out (a report uses them without the dashboard defining them).
 */
export function unusedFilters(
  tile: Pick<TileView, 'usedFilters'>,
  defs: readonly { variable: string; label: string; builtin?: boolean }[],
  values: Record<string, string>,
): string[] {
  if (!tile.usedFilters) return [];
  const used = new Set(tile.usedFilters);
  return defs.filter((d) => !d.builtin && !used.has(d.variable) && (values[d.variable] ?? '') !== '').map((d) => d.label);
}
