/**
 * A dashboard: header with data age, refresh and (for analysts and admins) the dashboard menu; the
 * filter bar; the report tiles on the 12-column grid. The server renders the shell and starts the first
 * status call; the browser polls on, fetches each result as it is ready and draws it.
 */
import { useAtomValue } from 'jotai';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { data, Form, Link, redirect, useLocation, useNavigate, useNavigation, useRouteLoaderData, type ShouldRevalidateFunctionArgs } from 'react-router';
import type { Route } from './+types/app.dashboard';
import { preloadCharts } from '../components/charts/ChartBody';
import { parseChartConfig } from '../components/charts/config';
import { DashboardColors, paletteFor } from '../components/charts/palette';
import { useDashboardColors } from '../components/charts/useDashboardColors';
import { Tile, type TileDownloads } from '../components/dashboard/Tile';
import { useDashboardPoll } from '../components/dashboard/useDashboardPoll';
import { rowLimitOf } from '../lib/tile-rows';
import { TILE_PARAM, useMaximizedTile } from '../components/dashboard/useMaximizedTile';
import { useMenu } from '../components/dashboard/useMenu';
import { rememberDashboard } from '../lib/recent-dashboards';
import { DashboardDownloads } from '../components/exports/DashboardDownloads';
import { FilterBar } from '../components/filters/FilterBar';
import { SaveDefaultsButton } from '../components/dashboard-settings/SaveDefaultsButton';
import { ErrorPage } from '../components/ErrorPage';
import { requireApi } from '../lib/api.server';
import type { DashboardStatus, StatusError } from '../lib/dashboard-status';
import { buildTiles, dashboardZone, editorHref, unusedFilters } from '../lib/dashboard-view';
import {
  chosenTz,
  dashboardDefaultValues,
  effectiveValues,
  offeredTimeZones,
  readUrlState,
  toParameters,
  withFilterValues,
  type FilterDef,
} from '../lib/filters';
import { buildFilterDefs } from '../lib/filters-defs';
import { defaultParametersFor, withoutFilterValues } from '../lib/dashboard-defaults';
import { duplicatedId, reportSqlById } from '../lib/tile-tools';
import type { DashboardAttributes, SessionInfo, SingleDocument } from '../lib/types';
import { filterOptionsAtom, pollAtom } from '../state/dashboard';
import '../styles/dashboard.css';
import { readForm } from '../lib/forms.server';

export function meta({ data: d }: Route.MetaArgs) {
  return [{ title: d ? `${d.dashboard.name} · Cairn` : 'Dashboard · Cairn' }];
}

interface Setup {
  defs: FilterDef[];
  defaults: Record<string, string>;
  zones: string[] | null;
  /** default_parameters.tz: the zone the dashboard opens with when the URL has none. */
  defaultTz: string | null;
  timeZoneConfig: DashboardAttributes['time_zone_config'];
  organizationZone: string;
}

/** Everything the parameters depend on, computed the same way on the server and in the browser. */
function parametersFor(setup: Setup, search: string, options: Record<string, { value: string; label: string }[] | undefined>, now: number) {
  const read = readUrlState(new URLSearchParams(search), setup.defs, setup.zones);
  const url = { ...read, tz: chosenTz(read, { tz: setup.defaultTz }, setup.zones) };
  const eff = effectiveValues(setup.defs, url.values, setup.defaults, options);
  const zone = dashboardZone(setup.timeZoneConfig, setup.organizationZone, url.tz);
  const parameters = toParameters(setup.defs, eff.values, { now, zone, tz: url.tz });
  return { url, eff, zone, parameters, key: JSON.stringify(parameters) };
}

export async function loader({ request, context, params }: Route.LoaderArgs) {
  const api = requireApi(request, context);
  const [doc, session] = await Promise.all([
    api.get<SingleDocument<DashboardAttributes>>(`/dashboards/${encodeURIComponent(params.id)}?include=reports,filters`),
    api.get<SessionInfo>('/auth/session'),
  ]);
  const a = doc.data.attributes;
  const defs = buildFilterDefs(doc);
  const tzConfig = a.time_zone_config ?? { type: 'organization' };
  const setup: Setup = {
    defs,
    defaults: dashboardDefaultValues(defs, a.default_parameters),
    zones: offeredTimeZones(tzConfig),
    defaultTz: typeof a.default_parameters?.tz === 'string' ? a.default_parameters.tz : null,
    timeZoneConfig: tzConfig,
    organizationZone: session.organization.time_zone ?? 'UTC',
  };
  const tiles = buildTiles(doc);
  const first = parametersFor(setup, new URL(request.url).search, {}, Date.now());
  // The first status call starts now and streams to the page, so the browser can fetch results at once.
  const needsStatus = tiles.length > 0 && (first.eff.missing.length === 0 || defs.some((d) => d.queryOptions));
  const status: Promise<DashboardStatus | StatusError> | null = needsStatus
    ? api
        .call<DashboardStatus>('POST', `/dashboards/${encodeURIComponent(params.id)}/status`, { body: { parameters: first.parameters, refresh_data: false } })
        .then((r) => (r.ok ? r.body : { error: r.problem }))
    : null;
  return {
    dashboard: {
      id: doc.data.id,
      name: a.name,
      description: a.description ?? null,
      pageWidth: typeof a.default_page_width === 'number' && a.default_page_width >= 320 ? a.default_page_width : 1600,
      colorScheme: a.color_scheme ?? 'scheme_6',
      locked: Boolean(a.is_locked),
      applyImmediately: a.filters_configuration?.apply_immediately !== false,
      automaticUpdate: a.automatic_update_enabled !== false,
      seriesColors: (a.series_colors ?? {}) as Record<string, number>,
    },
    setup,
    tiles,
    /** Each report's SQL as the API shows it to this user (the tiles' Show SQL). */
    sql: reportSqlById(doc),
    initial: status ? { key: first.key, status } : null,
  };
}

export async function action({ request, context, params }: Route.ActionArgs) {
  const api = requireApi(request, context);
  const form = await readForm(request);
  const intent = String(form.get('intent') ?? '');
  const id = encodeURIComponent(params.id);
  const fail = (message: string, status: number) => data({ error: message }, { status });
  if (intent === 'lock' || intent === 'unlock') {
    const r = await api.call(intent === 'lock' ? 'POST' : 'DELETE', `/dashboards/${id}/lock`);
    return r.ok ? { ok: true } : fail(r.problem.message, r.problem.status);
  }
  if (intent === 'duplicate') {
    const r = await api.call<{ data?: { id?: string } }>('POST', `/dashboards/${id}/duplicate`);
    if (!r.ok) return fail(r.problem.message, r.problem.status);
    const copy = r.body?.data?.id;
    return copy ? redirect(`/app/dashboards/${encodeURIComponent(copy)}`) : redirect('/app/');
  }
  if (intent === 'duplicate-report') {
    // The API copies the report (SQL, datasource, settings, chart, tile size) onto this dashboard, below the other tiles.
    const report = String(form.get('report') ?? '');
    if (!report) return fail('Choose the report to duplicate.', 400);
    const r = await api.call('POST', `/reports/${encodeURIComponent(report)}/duplicate`, { body: {} });
    if (!r.ok) return data({ ok: false as const, error: r.problem.message }, { status: r.problem.status });
    return { ok: true as const, copyId: duplicatedId(r.body) };
  }
  if (intent === 'save-defaults') {
    let parameters: unknown;
    try {
      parameters = JSON.parse(String(form.get('parameters') ?? ''));
    } catch {
      return fail('The page sent filter values the app cannot read.', 400);
    }
    const r = await api.call('PATCH', `/dashboards/${id}`, {
      jsonapi: true,
      body: { data: { type: 'dashboards', id: params.id, attributes: { default_parameters: parameters } } },
    });
    return r.ok ? { ok: true, defaultsSaved: true } : fail(r.problem.message, r.problem.status);
  }
  if (intent === 'delete') {
    const r = await api.call('DELETE', `/dashboards/${id}`);
    return r.ok ? redirect('/app/') : fail(r.problem.message, r.problem.status);
  }
  return fail('Unknown action.', 400);
}

/** Filter changes only change the URL's query: the browser recomputes the parameters; no loader round trip. */
export function shouldRevalidate({ currentUrl, nextUrl, formMethod, defaultShouldRevalidate }: ShouldRevalidateFunctionArgs) {
  if (!formMethod && currentUrl.pathname === nextUrl.pathname) return false;
  return defaultShouldRevalidate;
}

function DashboardMenu({ id, locked, canManage, search }: { id: string; locked: boolean; canManage: boolean; search: string }) {
  const ref = useRef<HTMLDivElement>(null);
  const { open, setOpen, toggle } = useMenu(ref);
  if (!canManage) return null;
  const base = `/app/dashboards/${encodeURIComponent(id)}`;
  return (
    <div className="menu" ref={ref}>
      {/* A plain form post (outside the router's Form): the answer is the backup file, downloaded in place. */}
      <form method="post" action={`${base}/backup`} id="dashboard-backup-form" hidden />
      <button type="button" className="button button--small" aria-haspopup="menu" aria-expanded={open} onClick={toggle} data-testid="dashboard-menu">
        ⋯ <span className="visually-hidden">Dashboard menu</span>
      </button>
      {open ? (
        <Form
          method="post"
          className="menu__panel"
          role="menu"
          onSubmit={(e) => {
            const intent = ((e.nativeEvent as SubmitEvent).submitter as HTMLButtonElement | null)?.value;
            if (intent === 'delete' && !window.confirm('Delete this dashboard and all its reports? This cannot be undone.')) e.preventDefault();
            setOpen(false);
          }}
        >
          {!locked ? (
            <>
              <Link to={editorHref(null, id, search)} role="menuitem" data-testid="dashboard-add-report">
                Add report
              </Link>
              <Link to={`${base}/edit`} role="menuitem" data-testid="dashboard-edit">
                Edit layout
              </Link>
              <Link to={`${base}/edit/filters`} role="menuitem">
                Filters
              </Link>
            </>
          ) : null}
          <Link to={`${base}/settings`} role="menuitem" data-testid="dashboard-settings">
            Settings
          </Link>
          <Link to={`${base}/share`} role="menuitem">
            Share…
          </Link>
          <button type="submit" form="dashboard-backup-form" role="menuitem" onClick={() => setTimeout(() => setOpen(false), 0)} data-testid="dashboard-backup">
            Download backup
          </button>
          <button type="submit" name="intent" value={locked ? 'unlock' : 'lock'} role="menuitem" data-testid={locked ? 'dashboard-unlock' : 'dashboard-lock'}>
            {locked ? 'Unlock' : 'Lock'}
          </button>
          <button type="submit" name="intent" value="duplicate" role="menuitem" data-testid="dashboard-duplicate">
            Duplicate
          </button>
          {!locked ? (
            <button type="submit" name="intent" value="delete" role="menuitem" className="menu__danger" data-testid="dashboard-delete">
              Delete…
            </button>
          ) : null}
        </Form>
      ) : null}
    </div>
  );
}

export default function DashboardPage({ loaderData, actionData }: Route.ComponentProps) {
  const { dashboard, setup, tiles, sql, initial } = loaderData;
  const location = useLocation();
  const navigate = useNavigate();
  const navigation = useNavigation();
  const layout = useRouteLoaderData('routes/app.layout') as { user?: { role?: string; email?: string } } | undefined;
  const canManage = layout?.user?.role === 'admin' || layout?.user?.role === 'analyst';
  const userKey = layout?.user?.email ?? '';
  const options = useAtomValue(filterOptionsAtom(dashboard.id));
  const poll = useAtomValue(pollAtom(dashboard.id));
  const palette = paletteFor(dashboard.colorScheme);
  // One colour per series value on every tile, kept by the dashboard (series_colors); new values are saved.
  const colorMap = useDashboardColors(dashboard.id, dashboard.seriesColors, palette.length, true);
  // "now" for relative ranges is taken when the filters change, so the parameters stay stable while polling.
  // (Maximizing a tile changes only ?tile=, which leaves the parameters as they are.)
  const filterSearch = useMemo(() => {
    const p = new URLSearchParams(location.search);
    p.delete(TILE_PARAM);
    return p.toString();
  }, [location.search]);
  const now = useMemo(() => Date.now(), [filterSearch]); // eslint-disable-line react-hooks/exhaustive-deps
  const state = useMemo(() => parametersFor(setup, filterSearch, options, now), [setup, filterSearch, options, now]);
  const [refreshNonce, setRefreshNonce] = useState(0);
  const waitingFor = state.eff.missing.length ? state.eff.missing.map((d) => `“${d.label}”`).join(' and ') : null;
  const filterVariables = useMemo(() => Object.fromEntries(setup.defs.filter((d) => d.queryOptions).map((d) => [d.id, d.variable])), [setup.defs]);
  const reports = useMemo(() => tiles.map((t) => ({ id: t.reportId, noDataMessage: t.noDataMessage, rowLimit: rowLimitOf(t.chartConfiguration) })), [tiles]);
  const { refresh } = useDashboardPoll({
    dashboardId: dashboard.id,
    reports,
    filterVariables,
    parameters: state.parameters,
    parametersKey: state.key,
    reportsEnabled: !waitingFor,
    automaticUpdate: dashboard.automaticUpdate,
    refreshNonce,
    initial,
  });
  useEffect(() => {
    preloadCharts(tiles.map((t) => parseChartConfig(t.chartConfiguration).config.type));
  }, [tiles]);
  // A tile's own refresh: the API re-runs the report, then the poll asks for the status at once.
  const parametersRef = useRef(state.parameters);
  parametersRef.current = state.parameters;
  const refreshReport = useCallback((reportId: string) => {
    void fetch(`/app/reports/${encodeURIComponent(reportId)}/refresh`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify({ parameters: parametersRef.current }),
    })
      .catch(() => null)
      .finally(() => setRefreshNonce((n) => n + 1));
  }, []);
  const downloads = useMemo<TileDownloads>(
    () => ({
      base: (id) => `/app/reports/${encodeURIComponent(id)}/download`,
      parameters: state.parameters,
      exports: true,
    }),
    [state.key],
  ); // eslint-disable-line react-hooks/exhaustive-deps
  const editable = canManage && !dashboard.locked;
  // The maximized tile is in the address (?tile=<report id>): a link opens it so, Back closes it.
  const { maximizedId, onMaximize } = useMaximizedTile('search');
  useEffect(() => {
    if (userKey) rememberDashboard(userKey, { id: dashboard.id, name: dashboard.name });
  }, [userKey, dashboard.id, dashboard.name]);

  const commit = (changes: Record<string, string>, tz?: string | null) => {
    const defaults = Object.fromEntries(setup.defs.map((d) => [d.variable, setup.defaults[d.variable] ?? d.defaultValue]));
    navigate({ pathname: location.pathname, search: withFilterValues(location.search, changes, defaults, tz) }, { preventScrollReset: true });
  };
  const reset = () => {
    const kept = new URLSearchParams(location.search);
    for (const k of [...kept.keys()]) if (k.startsWith('f.') || k === 'tz') kept.delete(k);
    const qs = kept.toString();
    navigate({ pathname: location.pathname, search: qs ? `?${qs}` : '' }, { preventScrollReset: true });
  };
  // Once saved as defaults, the address needs no filter values: the dashboard opens with them anyway.
  const dropUrlValues = useCallback(() => {
    navigate({ pathname: location.pathname, search: withoutFilterValues(location.search) }, { preventScrollReset: true, replace: true });
  }, [navigate, location.pathname, location.search]);
  const busy = navigation.state !== 'idle' && navigation.formMethod !== undefined;
  const problems = [...state.url.problems, ...state.eff.notes];
  const error = actionData && 'error' in actionData ? String(actionData.error) : null;

  return (
    <main
      className="page page--dashboard"
      style={{ maxWidth: dashboard.pageWidth + 48 }}
      data-testid="dashboard-page"
      data-color-scheme={dashboard.colorScheme}
    >
      <nav aria-label="Breadcrumb" className="breadcrumb">
        <Link to="/app/">Dashboards</Link> <span aria-hidden="true">/</span> <span>{dashboard.name}</span>
      </nav>
      <header className="page-header page-header--dashboard">
        <div>
          <h1>{dashboard.name}</h1>
          {dashboard.description ? <p className="muted page-header__desc">{dashboard.description}</p> : null}
        </div>
        <div className="page-header__meta">
          {dashboard.locked ? (
            <span
              className="badge badge--lock"
              data-testid="locked-badge"
              title="Locked: settings, layout and reports cannot be changed until an analyst unlocks it"
            >
              🔒 Locked
            </span>
          ) : null}
          {setup.timeZoneConfig?.type === 'fixed' ? (
            <span className="muted" title="Dates and times of this dashboard are in this time zone" data-testid="dashboard-zone">
              🌐 {state.zone}
            </span>
          ) : null}
          <span className="muted">{tiles.length === 1 ? '1 report' : `${tiles.length} reports`}</span>
          {poll.error ? (
            <span className="badge badge--error" role="alert">
              {poll.error}
            </span>
          ) : null}
          <button
            type="button"
            className="button button--small"
            onClick={() => {
              refresh();
              setRefreshNonce((n) => n + 1);
            }}
            disabled={poll.refreshing || busy}
            data-testid="dashboard-refresh"
            title="Run every report again now"
          >
            <span className={poll.running ? 'spin' : undefined} aria-hidden="true">
              ↻
            </span>{' '}
            Refresh
          </button>
          <DashboardDownloads
            dashboardId={dashboard.id}
            dashboardName={dashboard.name}
            parameters={state.parameters}
            dataAllowed={tiles.some((t) => t.exports.data)}
          />
          <DashboardMenu id={dashboard.id} locked={dashboard.locked} canManage={canManage} search={location.search} />
        </div>
      </header>
      {error ? (
        <p className="alert alert--error" role="alert">
          {error}
        </p>
      ) : null}
      <FilterBar
        defs={setup.defs}
        values={state.eff.values}
        options={options}
        zone={state.zone}
        applyImmediately={dashboard.applyImmediately}
        timeZones={setup.zones}
        tz={state.url.tz}
        problems={problems}
        onCommit={commit}
        onReset={reset}
        actions={
          editable ? (
            <SaveDefaultsButton
              parameters={defaultParametersFor(setup.defs, state.eff.values, { now, zone: state.zone, tz: state.url.tz })}
              onSaved={dropUrlValues}
            />
          ) : null
        }
      />
      {tiles.length === 0 ? (
        <section className="empty-state" data-testid="dashboard-empty">
          <div className="empty-state__art" aria-hidden="true">
            ▦
          </div>
          <h2>This dashboard has no reports yet</h2>
          <p>
            {editable
              ? 'Write a report in the report editor; it appears here.'
              : canManage
                ? 'Unlock the dashboard to add reports.'
                : 'Reports that analysts add appear here.'}
          </p>
          {editable ? (
            <Link to={editorHref(null, dashboard.id, location.search)} className="button button--primary" data-testid="dashboard-empty-add-report">
              Add a report
            </Link>
          ) : null}
        </section>
      ) : (
        <DashboardColors.Provider value={colorMap}>
          <div className="dashboard-grid" data-testid="dashboard-grid">
            {tiles.map((t) => (
              <Tile
                key={t.reportId}
                dashboardId={dashboard.id}
                tile={t}
                palette={palette}
                waitingFor={waitingFor}
                zone={state.zone}
                editHref={editable ? editorHref(t.reportId, dashboard.id, location.search) : null}
                downloads={downloads}
                onRefresh={refreshReport}
                drill
                unused={unusedFilters(t, setup.defs, state.eff.values).join(', ')}
                sql={sql[t.reportId] ?? null}
                canDuplicate={editable}
                maximized={maximizedId === t.reportId}
                onMaximize={onMaximize}
              />
            ))}
          </div>
        </DashboardColors.Provider>
      )}
    </main>
  );
}

export function ErrorBoundary({ error }: Route.ErrorBoundaryProps) {
  return <ErrorPage error={error} home={{ href: '/app/', label: 'Back to dashboards' }} />;
}
