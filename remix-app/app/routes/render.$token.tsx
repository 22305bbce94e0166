/**
 * `/render/{token}`: the print view a headless browser opens to draw a dashboard (or one report of it)
 * as PDF or PNG — exports and scheduled e-mails (worker-api/src/resources/export-jobs/renderer.ts).
 * The render token, signed by the API for a few minutes, is the whole credential: the API's public
 * render routes verify it and answer as a viewer of that one dashboard without a user. The page draws
 * the reports read-only with the app's own tiles and charts — no toolbar, no filter bar, no links, and
 * no more rows per tile than the dashboard's tile fetches (lib/tile-rows.ts) —
 * in the token's colour mode and page width, and marks `<html data-render-state="ready">` once every
 * report has drawn (or "error" with `data-render-error`), which is what the renderer waits for.
 */
import type { ApiSchema } from '@cairn/client';
import { useStore } from 'jotai';
import { useEffect, useMemo, useRef } from 'react';
import { data, isRouteErrorResponse } from 'react-router';
import type { Route } from './+types/render.$token';
import { preloadCharts } from '../components/charts/ChartBody';
import { parseChartConfig } from '../components/charts/config';
import { DashboardColors, paletteFor } from '../components/charts/palette';
import { useDashboardColors } from '../components/charts/useDashboardColors';
import { Tile } from '../components/dashboard/Tile';
import { renderApiCall } from '../components/render/render-api.server';
import { publicDashboard } from '../components/sharing/public-dashboard';
import { fetchResult } from '../components/dashboard/useDashboardPoll';
import { nextTile, type DashboardStatus, type StatusError } from '../lib/dashboard-status';
import { rowLimitOf } from '../lib/tile-rows';
import { dashboardZone } from '../lib/dashboard-view';
import { pollAtom, tileAtom } from '../state/dashboard';
import { themeAtom } from '../state/theme';
import { ThemeScope } from '../components/ThemeScope';
import '../styles/dashboard.css';
import '../components/sharing/public-link.css';
import '../components/render/render.css';

/** The print view's answer: a sharing link's view with the render settings. */
type View = ApiSchema<'PrintView'>;

/** Longest wait for reports that are still running before the page is taken as it is. */
const SETTLE_LIMIT_MS = 45_000;

export function meta({ data: d }: Route.MetaArgs) {
  return [{ title: d ? `${d.view.dashboard.name} · Cairn` : 'Cairn' }, { name: 'robots', content: 'noindex, nofollow' }];
}

export function headers() {
  return { 'Cache-Control': 'private, no-store', 'X-Robots-Tag': 'noindex, nofollow', 'Referrer-Policy': 'no-referrer' };
}

export async function loader({ context, params }: Route.LoaderArgs) {
  const res = await renderApiCall<View>(context, params.token);
  if (!res.ok) throw data({ code: res.problem.code, message: res.problem.message }, { status: res.problem.status >= 500 ? 503 : res.problem.status });
  return { view: res.body, token: params.token };
}

function markState(state: 'ready' | 'error', message?: string) {
  const html = document.documentElement;
  if (message) html.setAttribute('data-render-error', message);
  html.setAttribute('data-render-state', state);
}

/**
 * Polls the status until no report is running (or SETTLE_LIMIT_MS passed), fetching each result as it
 * is ready into the atoms the Tile component reads; then waits until every tile shows a drawn chart,
 * an empty or an error message, and marks the page ready.
 */
function useRenderPoll(token: string, dashboardId: string, reports: { id: string; noDataMessage: string; rowLimit: number }[]) {
  const store = useStore();
  const started = useRef(false);
  useEffect(() => {
    if (started.current) return;
    started.current = true;
    const noData = new Map(reports.map((r) => [r.id, r.noDataMessage]));
    const rowLimits = new Map(reports.map((r) => [r.id, r.rowLimit]));
    const tile = (id: string) => tileAtom(`${dashboardId}:${id}`);
    const pending = new Set<Promise<unknown>>();
    const begin = Date.now();
    let stopped = false;

    const poll = async (): Promise<void> => {
      let answer: DashboardStatus | StatusError;
      try {
        const res = await fetch(`/render/${encodeURIComponent(token)}/status`, { method: 'POST', headers: { Accept: 'application/json' } });
        answer = (await res.json()) as DashboardStatus | StatusError;
      } catch {
        answer = { error: { status: 0, code: 'network', message: 'The dashboard status could not be read.' } };
      }
      if ('error' in answer) {
        markState('error', answer.error.message);
        return;
      }
      for (const e of answer.reports) {
        if (!noData.has(e.report_id)) continue;
        const { tile: next, fetch } = nextTile(store.get(tile(e.report_id)), e, noData.get(e.report_id)!);
        store.set(tile(e.report_id), next);
        if (fetch) {
          // As many rows as the dashboard's tile asks for (a table's first page, what a chart can draw).
          const p = fetchResult(fetch.key, fetch.token, undefined, rowLimits.get(e.report_id))
            .then((d) => store.set(tile(e.report_id), { ...store.get(tile(e.report_id)), phase: 'ready', result: d, dataKey: fetch.key, message: null }))
            .catch((err: Error) => store.set(tile(e.report_id), { ...store.get(tile(e.report_id)), phase: 'error', message: err.message }));
          pending.add(p);
          void p.finally(() => pending.delete(p));
        }
      }
      const running = answer.reports.some((r) => noData.has(r.report_id) && (r.running || r.result_status === 'running'));
      store.set(pollAtom(dashboardId), { updatedAt: Date.now(), running, error: null, refreshing: false });
      if (running && Date.now() - begin < SETTLE_LIMIT_MS) {
        await new Promise((r) => setTimeout(r, 1000));
        return poll();
      }
      await Promise.allSettled([...pending]);
      waitDrawn();
    };

    // Every tile's chart frame is settled: drawn (data-drawn), empty, in error or waiting.
    const waitDrawn = () => {
      const check = () => {
        if (stopped) return;
        const frames = [...document.querySelectorAll('.dashboard-grid .tile [data-testid^="chart-"]')];
        const settled =
          frames.length >= reports.length &&
          frames.every((f) => {
            const state = f.getAttribute('data-state');
            return state === 'empty' || state === 'error' || state === 'waiting' || (state === 'ready' && f.getAttribute('data-drawn') === 'true');
          });
        if (settled || Date.now() - begin > SETTLE_LIMIT_MS + 10_000) {
          // Two frames more, so the last drawing is painted before the browser takes the picture.
          requestAnimationFrame(() => requestAnimationFrame(() => markState('ready')));
          return;
        }
        setTimeout(check, 100);
      };
      check();
    };

    if (!reports.length) markState('ready');
    else void poll();
    return () => {
      stopped = true;
    };
  }, [store, token, dashboardId, reports]);
}

function RenderView({ view, token }: { view: View; token: string }) {
  const store = useStore();
  const mode = view.render.color_mode;
  // The token's colour mode, whatever the browser prefers.
  useEffect(() => {
    store.set(themeAtom, mode);
    document.documentElement.setAttribute('data-theme', mode);
  }, [store, mode]);
  const { tiles } = useMemo(() => {
    const built = publicDashboard(view);
    // A single report fills the page (the renderer draws it 800 × 600 unless told otherwise).
    if (view.render.report_id) return { ...built, tiles: built.tiles.map((t) => ({ ...t, row: 1, column: 1, width: 12, height: Math.max(t.height, 6) })) };
    return built;
  }, [view]);
  const reports = useMemo(() => tiles.map((t) => ({ id: t.reportId, noDataMessage: t.noDataMessage, rowLimit: rowLimitOf(t.chartConfiguration) })), [tiles]);
  useRenderPoll(token, view.dashboard.id, reports);
  useEffect(() => {
    preloadCharts(tiles.map((t) => parseChartConfig(t.chartConfiguration).config.type));
  }, [tiles]);
  const palette = paletteFor(view.dashboard.color_scheme);
  const colorMap = useDashboardColors(view.dashboard.id, view.dashboard.series_colors, palette.length, false);
  const zone = dashboardZone(view.dashboard.time_zone_config, view.dashboard.organization_time_zone, view.parameters?.tz ?? null);
  const single = view.render.report_id !== null;
  return (
    <main
      className={`page page--dashboard public-link render-view${single ? ' render-view--report' : ''}`}
      style={{ maxWidth: view.render.page_width, width: '100%', margin: 0, boxSizing: 'border-box' }}
      data-testid="render-view"
      data-color-mode={mode}
    >
      {single ? null : (
        <header className="page-header page-header--dashboard">
          <div>
            <h1>{view.dashboard.name}</h1>
            {view.dashboard.description ? <p className="muted page-header__desc">{view.dashboard.description}</p> : null}
          </div>
        </header>
      )}
      {tiles.length === 0 ? (
        <section className="empty-state">
          <h2>This dashboard has no reports yet</h2>
        </section>
      ) : (
        <DashboardColors.Provider value={colorMap}>
          <div className="dashboard-grid" data-testid="dashboard-grid">
            {tiles.map((t) => (
              <Tile key={t.reportId} dashboardId={view.dashboard.id} tile={t} palette={palette} waitingFor={null} zone={zone} downloads={null} />
            ))}
          </div>
        </DashboardColors.Provider>
      )}
    </main>
  );
}

export default function RenderPage({ loaderData }: Route.ComponentProps) {
  return (
    <ThemeScope>
      <RenderView view={loaderData.view} token={loaderData.token} />
    </ThemeScope>
  );
}

export function ErrorBoundary({ error }: Route.ErrorBoundaryProps) {
  const status = isRouteErrorResponse(error) ? error.status : 500;
  const payload = isRouteErrorResponse(error) ? (error.data as { message?: string } | null) : null;
  const message = payload?.message ?? (error instanceof Error ? error.message : 'The print view could not be opened.');
  useEffect(() => markState('error', message), [message]);
  return (
    <main className="error-page" data-status={status}>
      <p className="error-page__status">{status}</p>
      <h1>This print view cannot be drawn</h1>
      <p>{message}</p>
    </main>
  );
}
