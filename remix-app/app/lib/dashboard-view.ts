/** Turns the API's dashboard document into what the dashboard page draws (pure; unit-testable). */
import type { ResourceObject } from '@cairn/core';
import type { FilterView } from '../components/FilterBar';
import type { DashboardAttributes, FilterAttributes, LayoutTile, ReportAttributes, SingleDocument } from './types';

export interface TileView {
  reportId: string;
  name: string;
  description: string | null;
  showTitle: boolean;
  chartConfiguration: Record<string, unknown> | null;
  noDataMessage: string | null;
  row: number;
  column: number;
  width: number;
  height: number;
}

const clamp = (n: unknown, min: number, max: number, fallback: number) =>
  typeof n === 'number' && Number.isFinite(n) ? Math.min(max, Math.max(min, Math.round(n))) : fallback;

function relatedIds(resource: ResourceObject<unknown>, name: string): string[] {
  const data = resource.relationships?.[name]?.data;
  return Array.isArray(data) ? data.map((d) => d.id) : [];
}

export function buildTiles(doc: SingleDocument<DashboardAttributes>): TileView[] {
  const reports = new Map(
    (doc.included ?? []).filter((r) => r.type === 'reports').map((r) => [r.id, r as unknown as ResourceObject<ReportAttributes>]),
  );
  const layout: LayoutTile[] = Array.isArray(doc.data.attributes.layout) ? doc.data.attributes.layout : [];
  const tiles: TileView[] = [];
  const placed = new Set<string>();
  for (const t of layout) {
    const report = reports.get(t.id);
    if (!report || placed.has(t.id)) continue;
    placed.add(t.id);
    const column = clamp(t.column, 1, 12, 1);
    tiles.push(toTile(report, { row: clamp(t.row, 1, 10_000, 1), column, width: Math.min(clamp(t.width, 1, 12, 6), 13 - column), height: clamp(t.height, 1, 100, 4) }));
  }
  // Reports that the layout does not place yet go underneath, two per row, in relationship order.
  let nextRow = tiles.reduce((m, t) => Math.max(m, t.row + t.height), 1);
  const order = relatedIds(doc.data, 'reports');
  const rest = [...reports.values()].filter((r) => !placed.has(r.id)).sort((a, b) => order.indexOf(a.id) - order.indexOf(b.id));
  rest.forEach((r, i) => {
    const column = i % 2 === 0 ? 1 : 7;
    tiles.push(toTile(r, { row: nextRow, column, width: 6, height: 4 }));
    if (column === 7) nextRow += 4;
  });
  return tiles.sort((a, b) => a.row - b.row || a.column - b.column);
}

function toTile(r: ResourceObject<ReportAttributes>, box: Pick<TileView, 'row' | 'column' | 'width' | 'height'>): TileView {
  const a = r.attributes;
  return {
    reportId: r.id,
    name: a.name,
    description: a.description ?? null,
    showTitle: a.display_name_as_title !== false,
    chartConfiguration: a.chart_configuration && typeof a.chart_configuration === 'object' ? a.chart_configuration : null,
    noDataMessage: a.no_data_message ?? null,
    ...box,
  };
}

export function buildFilters(doc: SingleDocument<DashboardAttributes>): FilterView[] {
  const byId = new Map(
    (doc.included ?? []).filter((r) => r.type === 'filters').map((r) => [r.id, r as unknown as ResourceObject<FilterAttributes>]),
  );
  const order = relatedIds(doc.data, 'filters');
  const ids = order.length ? order.filter((id) => byId.has(id)) : [...byId.keys()];
  return ids.map((id) => {
    const resource = byId.get(id)!;
    const a = resource.attributes;
    // values/value_names are write-only in the public API; the API sends manual dropdown options to
    // signed-in users (the app) in meta.options.
    const meta = (resource.meta?.options ?? null) as { values?: unknown[]; value_names?: string[] } | null;
    const values = Array.isArray(meta?.values) ? meta.values : Array.isArray(a.values) ? a.values : null;
    const names = Array.isArray(meta?.value_names) ? meta.value_names : Array.isArray(a.value_names) ? a.value_names : [];
    return {
      id,
      label: a.display_name?.trim() || a.variable_name,
      variable: a.variable_name,
      controlType: a.control_type,
      multiple: a.control_type.includes('multi'),
      options: values ? values.map((v, i) => ({ value: String(v), label: names[i] ?? String(v) })) : null,
    };
  });
}
