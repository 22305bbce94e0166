import { Suspense } from 'react';
import { Await, Link, useLocation, useNavigation } from 'react-router';
import type { Route } from './+types/app.dashboard';
import { ChartBody, ChartFrame, ChartSkeleton } from '../components/charts/ChartBody';
import { parseChartConfig } from '../components/charts/config';
import { paletteFor } from '../components/charts/palette';
import { ErrorPage } from '../components/ErrorPage';
import { FilterBar } from '../components/FilterBar';
import { requireApi } from '../lib/api.server';
import { buildFilters, buildTiles, type TileView } from '../lib/dashboard-view';
import { getEnv } from '../lib/env.server';
import { readFilterValues, toParameters } from '../lib/filters';
import { loadReportData } from '../lib/report-data.server';
import type { DashboardAttributes, ReportData, SingleDocument } from '../lib/types';

export function meta({ data }: Route.MetaArgs) {
  return [{ title: data ? `${data.dashboard.name} · Cairn` : 'Dashboard · Cairn' }];
}

export async function loader({ request, context, params }: Route.LoaderArgs) {
  const api = requireApi(request, context);
  const env = getEnv(context);
  const doc = await api.get<SingleDocument<DashboardAttributes>>(
    `/dashboards/${encodeURIComponent(params.id)}?include=reports,filters`,
  );
  const tiles = buildTiles(doc);
  const filters = buildFilters(doc);
  const url = new URL(request.url);
  const { values, problems } = readFilterValues(
    url.searchParams,
    filters.map((f) => ({ variable_name: f.variable, control_type: f.controlType })),
  );
  const parameters = toParameters(values, filters.map((f) => ({ variable_name: f.variable, control_type: f.controlType })));
  // All reports load in parallel and stream to the page as each one finishes.
  const data: Record<string, Promise<ReportData>> = {};
  for (const t of tiles) data[t.reportId] = loadReportData(api, env.DATA, t.reportId, parameters, t.noDataMessage);
  const a = doc.data.attributes;
  return {
    dashboard: {
      id: doc.data.id,
      name: a.name,
      description: a.description ?? null,
      pageWidth: typeof a.default_page_width === 'number' && a.default_page_width >= 320 ? a.default_page_width : 1600,
      colorScheme: a.color_scheme ?? 'scheme_6',
      locked: Boolean(a.is_locked),
    },
    tiles,
    filters,
    values,
    problems,
    data,
  };
}

function Tile({ tile, data, palette }: { tile: TileView; data: Promise<ReportData>; palette: string[] }) {
  const { config, problem } = parseChartConfig(tile.chartConfiguration);
  return (
    <section
      className={`tile tile--${config.type}`}
      style={{ gridColumn: `${tile.column} / span ${tile.width}`, gridRow: `${tile.row} / span ${tile.height}` }}
      aria-labelledby={`title-${tile.reportId}`}
      data-report-id={tile.reportId}
    >
      <header className={`tile__header${tile.showTitle ? '' : ' visually-hidden'}`}>
        <h2 className="tile__title" id={`title-${tile.reportId}`}>{tile.name}</h2>
        {tile.description ? <p className="tile__desc" title={tile.description}>{tile.description}</p> : null}
      </header>
      <div className="tile__body">
        <Suspense
          fallback={
            <ChartFrame reportId={tile.reportId} type={config.type} state="loading">
              <ChartSkeleton type={config.type} />
            </ChartFrame>
          }
        >
          <Await
            resolve={data}
            errorElement={
              <ChartFrame reportId={tile.reportId} type={config.type} state="error">
                <div className="tile-message tile-message--error" role="alert">
                  <p className="tile-message__text">The report could not be loaded.</p>
                </div>
              </ChartFrame>
            }
          >
            {(result) => (
              <ChartBody reportId={tile.reportId} config={config} configProblem={problem} data={result} palette={palette} title={tile.name} noDataMessage={tile.noDataMessage} />
            )}
          </Await>
        </Suspense>
      </div>
    </section>
  );
}

export default function DashboardPage({ loaderData }: Route.ComponentProps) {
  const { dashboard, tiles, filters, values, problems, data } = loaderData;
  const navigation = useNavigation();
  const location = useLocation();
  const palette = paletteFor(dashboard.colorScheme);
  const refreshing = navigation.state === 'loading' && navigation.location?.pathname === location.pathname;
  return (
    <main className="page page--dashboard" style={{ maxWidth: dashboard.pageWidth }}>
      <nav aria-label="Breadcrumb" className="breadcrumb">
        <Link to="/app/">Dashboards</Link> <span aria-hidden="true">/</span> <span>{dashboard.name}</span>
      </nav>
      <header className="page-header page-header--dashboard">
        <div>
          <h1>{dashboard.name}</h1>
          {dashboard.description ? <p className="muted page-header__desc">{dashboard.description}</p> : null}
        </div>
        <div className="page-header__meta">
          {dashboard.locked ? <span className="badge">Locked</span> : null}
          <span className="muted">{tiles.length === 1 ? '1 report' : `${tiles.length} reports`}</span>
        </div>
      </header>
      <FilterBar key={location.search} filters={filters} values={values} problems={problems} />
      {tiles.length === 0 ? (
        <section className="empty-state">
          <div className="empty-state__art" aria-hidden="true">▦</div>
          <h2>This dashboard has no reports yet</h2>
          <p>Reports added to the dashboard through the API appear here.</p>
        </section>
      ) : (
        <div className={`dashboard-grid${refreshing ? ' is-refreshing' : ''}`} aria-busy={refreshing}>
          {tiles.map((t) => (
            <Tile key={t.reportId} tile={t} data={data[t.reportId]!} palette={palette} />
          ))}
        </div>
      )}
    </main>
  );
}

export function ErrorBoundary({ error }: Route.ErrorBoundaryProps) {
  return <ErrorPage error={error} home={{ href: '/app/', label: 'Back to dashboards' }} />;
}
