/**
 * The report editor: `/app/reports/new?dashboard=<id>` and `/app/reports/<id>`. The dashboard's filter
 * values come along in the URL (`f.<variable>=…`, as on the dashboard), so a query runs with them.
 * Saving answers the API's errors to the form, or returns to the dashboard. `/app/reports/new` without a
 * dashboard is the standalone SQL editor: pick a datasource, run, then save onto a dashboard of the
 * analyst's choice (or a new one).
 */
import type { ApiSchema } from '@cairn/client';
import { data, redirect } from 'react-router';
import type { Route } from './+types/app.reports.editor';
import { DashboardColors, paletteFor } from '../components/charts/palette';
import { useDashboardColors } from '../components/charts/useDashboardColors';
import { ErrorPage } from '../components/ErrorPage';
import { EditorFilters } from '../components/editor/EditorFilters';
import { ReportEditor } from '../components/editor/ReportEditor';
import { requireApi, type ErrorPayload } from '../lib/api.server';
import { can, EDIT_REFUSED, errorItems, listAll, requireGrant, write } from '../lib/editor.server';
import { readTarget, saveStandalone } from '../lib/standalone-report.server';
import { formFromAttributes, newReportForm, REPORT_FIELDS, type ResourceBody } from '../lib/editor-forms';
import { editorFilterState } from '../lib/editor-filter-state';
import type { DashboardAttributes, FilterAttributes, ReportAttributes, SingleDocument } from '../lib/types';

// The filter bar and the result table are the dashboard's own components, styled there.
import '../styles/dashboard.css';
import '../components/editor/editor.css';

export function meta({ data: d }: Route.MetaArgs) {
  const name = d?.mode === 'update' ? String(d.original.name ?? 'Report') : 'New report';
  return [{ title: `${name} · Report editor · Cairn` }];
}

type DatasourceAttributes = Pick<ApiSchema<'Datasource'>['attributes'], 'name' | 'database_type' | 'is_sample' | 'enabled' | 'default_schema_name'>;
type SnippetAttributes = ApiSchema<'SqlSnippet'>['attributes'];

const relId = (r: { relationships?: Record<string, { data?: unknown }> }, name: string): string | null => {
  const d = r.relationships?.[name]?.data as { id?: string } | null | undefined;
  return d && typeof d.id === 'string' ? d.id : null;
};

/** Each dashboard with the variables of the filters on it, by name. */
function drillTargets(
  dashboards: { id: string; attributes: DashboardAttributes }[],
  filters: { attributes: FilterAttributes; relationships?: Record<string, { data?: unknown }> }[],
) {
  const variables = new Map<string, Set<string>>();
  for (const f of filters) {
    const on = f.relationships?.dashboards?.data;
    for (const d of Array.isArray(on) ? (on as { id?: string }[]) : []) {
      if (typeof d.id !== 'string') continue;
      if (!variables.has(d.id)) variables.set(d.id, new Set());
      variables.get(d.id)!.add(f.attributes.variable_name);
    }
  }
  return dashboards
    .map((d) => ({ id: d.id, name: d.attributes.name, variables: [...(variables.get(d.id) ?? [])].sort() }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

interface StandaloneInfo {
  /** The dashboards the report may go on (locked ones shown, not pickable), with their filters' variables. */
  dashboards: { id: string; name: string; locked: boolean; variables: string[] }[];
}

/** `/app/reports/new` without a dashboard: the standalone SQL editor. */
async function standaloneLoader(api: ReturnType<typeof requireApi>, session: Awaited<ReturnType<typeof requireGrant>>, url: URL) {
  const [datasources, snippets, dashboards, allFilters] = await Promise.all([
    can(session, 'view_datasources') ? listAll<DatasourceAttributes>(api, '/datasources') : Promise.resolve([]),
    listAll<SnippetAttributes>(api, '/sql_snippets'),
    listAll<DashboardAttributes>(api, '/dashboards'),
    listAll<FilterAttributes>(api, '/filters'),
  ]);
  const sample = datasources.find((d) => d.attributes.is_sample) ?? datasources[0];
  const targets = drillTargets(dashboards, allFilters);
  const locked = new Set(dashboards.filter((d) => d.attributes.is_locked).map((d) => d.id));
  const zone = session.organization.time_zone ?? 'UTC';
  return {
    mode: 'create' as const,
    reportId: null,
    original: {} as Record<string, unknown>,
    originalDatasourceId: null,
    initialForm: newReportForm(),
    initialDatasourceId: url.searchParams.get('datasource') ?? sample?.id ?? null,
    dashboard: { id: '', name: '', locked: false, palette: paletteFor(null), seriesColors: {} as Record<string, number>, backTo: '/app/', zone },
    filters: [] as { variable_name: string; display_name: string | null; control_type: string; value_type: string }[],
    filterState: null,
    datasources: datasources.map((d) => ({
      id: d.id,
      name: d.attributes.name,
      database_type: d.attributes.database_type,
      is_sample: Boolean(d.attributes.is_sample),
      enabled: d.attributes.enabled !== false,
      default_schema_name: d.attributes.default_schema_name ?? null,
    })),
    snippets: snippets.map((s) => ({
      name: s.attributes.name,
      params: s.attributes.params ?? [],
      description: s.attributes.description ?? null,
      text: s.attributes.text ?? null,
    })),
    drillTargets: targets,
    parameters: {},
    canRefreshSchema: can(session, 'manage_datasources'),
    standalone: { dashboards: targets.map((t) => ({ ...t, locked: locked.has(t.id) })) } as StandaloneInfo | null,
  };
}

export async function loader({ request, context, params }: Route.LoaderArgs) {
  const api = requireApi(request, context);
  const session = await requireGrant(api, 'manage_dashboards', EDIT_REFUSED);
  const url = new URL(request.url);
  let dashboardId = url.searchParams.get('dashboard');
  let report: SingleDocument<ReportAttributes>['data'] | null = null;
  if (params.id) {
    report = (await api.get<SingleDocument<ReportAttributes>>(`/reports/${encodeURIComponent(params.id)}`)).data;
    dashboardId = relId(report, 'dashboard');
  }
  if (!dashboardId && report) throw data<ErrorPayload>({ code: 'bad_request', message: 'This report is on no dashboard the app can open.' }, { status: 400 });
  if (!dashboardId) return standaloneLoader(api, session, url);
  const [doc, datasources, snippets, dashboards, allFilters] = await Promise.all([
    api.get<SingleDocument<DashboardAttributes>>(`/dashboards/${encodeURIComponent(dashboardId)}?include=filters,reports`),
    can(session, 'view_datasources') ? listAll<DatasourceAttributes>(api, '/datasources') : Promise.resolve([]),
    listAll<SnippetAttributes>(api, '/sql_snippets'),
    // Drill-down targets: the dashboards this analyst sees, each with its filters' variables.
    listAll<DashboardAttributes>(api, '/dashboards'),
    listAll<FilterAttributes>(api, '/filters'),
  ]);
  const a = doc.data.attributes;
  const filters = (doc.included ?? []).filter((r) => r.type === 'filters').map((r) => r.attributes as unknown as FilterAttributes);
  const { parameters, search, ...filterState } = editorFilterState(doc, url.searchParams, session.organization.time_zone ?? 'UTC');
  const sample = datasources.find((d) => d.attributes.is_sample) ?? datasources[0];
  const pickedDatasource = report ? relId(report, 'datasource') : (url.searchParams.get('datasource') ?? sample?.id ?? null);
  const original = report ? (report.attributes as unknown as Record<string, unknown>) : {};
  return {
    mode: report ? ('update' as const) : ('create' as const),
    reportId: report?.id ?? null,
    original,
    originalDatasourceId: report ? relId(report, 'datasource') : null,
    initialForm: report ? formFromAttributes(REPORT_FIELDS, original) : newReportForm(),
    initialDatasourceId: pickedDatasource,
    dashboard: {
      id: doc.data.id,
      name: a.name,
      locked: Boolean(a.is_locked),
      palette: paletteFor(a.color_scheme),
      // The dashboard's colour map: the preview draws each value in the colour its tiles use (read only).
      seriesColors: (a.series_colors ?? {}) as Record<string, number>,
      backTo: `/app/dashboards/${encodeURIComponent(doc.data.id)}${search}`,
      zone: filterState.zone,
    },
    filters: filters.map((f) => ({
      variable_name: f.variable_name,
      display_name: f.display_name ?? null,
      control_type: f.control_type,
      value_type: f.value_type,
    })),
    filterState,
    datasources: datasources.map((d) => ({
      id: d.id,
      name: d.attributes.name,
      database_type: d.attributes.database_type,
      is_sample: Boolean(d.attributes.is_sample),
      enabled: d.attributes.enabled !== false,
      default_schema_name: d.attributes.default_schema_name ?? null,
    })),
    snippets: snippets.map((s) => ({
      name: s.attributes.name,
      params: s.attributes.params ?? [],
      description: s.attributes.description ?? null,
      text: s.attributes.text ?? null,
    })),
    drillTargets: drillTargets(dashboards, allFilters),
    parameters,
    canRefreshSchema: can(session, 'manage_datasources'),
    standalone: null as StandaloneInfo | null,
  };
}

export async function action({ request, context, params }: Route.ActionArgs) {
  const api = requireApi(request, context);
  let payload: { body?: ResourceBody; backTo?: string; target?: unknown };
  try {
    payload = (await request.json()) as typeof payload;
  } catch {
    return { errors: [{ code: 'malformed_json', detail: 'The editor sent a body the app cannot read.' }] };
  }
  const body = payload.body;
  if (!body?.data || body.data.type !== 'reports' || (params.id ? body.data.id !== params.id : body.data.id !== undefined)) {
    return { errors: [{ code: 'bad_request', detail: 'The editor sent a report body the app cannot use.' }] };
  }
  // The standalone editor: onto the dashboard picked, or a new one.
  if (!params.id && payload.target !== undefined) {
    const saved = await saveStandalone(api, body, readTarget(payload.target));
    if (saved.ok) return redirect(`/app/dashboards/${encodeURIComponent(saved.dashboardId)}`);
    if (saved.status === 401) throw api.toResponse({ status: 401, code: 'unauthorized', message: '' });
    return { errors: saved.errors };
  }
  const res = params.id ? await write(api, 'PATCH', `/reports/${encodeURIComponent(params.id)}`, body) : await write(api, 'POST', '/reports', body);
  if (!res.ok) {
    if (res.status === 401) throw api.toResponse({ status: 401, code: 'unauthorized', message: '' });
    return { errors: res.errors.length ? res.errors : errorItems(res.status, null) };
  }
  const back = typeof payload.backTo === 'string' && payload.backTo.startsWith('/app/dashboards/') ? payload.backTo : '/app/';
  return redirect(back);
}

export default function ReportEditorPage({ loaderData }: Route.ComponentProps) {
  const d = loaderData;
  const colorMap = useDashboardColors(d.dashboard.id, d.dashboard.seriesColors, d.dashboard.palette.length, false);
  return (
    <DashboardColors.Provider value={colorMap}>
      <ReportEditor
        key={d.reportId ?? 'new'}
        mode={d.mode}
        reportId={d.reportId}
        original={d.original}
        originalDatasourceId={d.originalDatasourceId}
        initialForm={d.initialForm}
        initialDatasourceId={d.initialDatasourceId}
        dashboard={d.dashboard}
        filters={d.filters}
        datasources={d.datasources}
        snippets={d.snippets}
        drillTargets={d.drillTargets}
        parameters={d.parameters}
        canRefreshSchema={d.canRefreshSchema}
        standalone={d.standalone}
        filterBar={d.filterState ? <EditorFilters state={d.filterState} dashboardId={d.dashboard.id} parameters={d.parameters} /> : null}
      />
    </DashboardColors.Provider>
  );
}

export function ErrorBoundary({ error }: Route.ErrorBoundaryProps) {
  return <ErrorPage error={error} home={{ href: '/app/', label: 'Back to dashboards' }} />;
}
