/**
 * One report on the grid: title, data age, the report's menu (downloads, maximize, refresh, edit — each
 * only when the report's switches allow it; in the app also "⋯ More": Show SQL, Duplicate) and its chart
 * in whatever state its data is.
 */
import { useAtomValue } from 'jotai';
import { memo, useEffect, useLayoutEffect, useRef, useState } from 'react';
import { Link } from 'react-router';
import { dataAge } from '../../lib/dashboard-status';
import type { TileView } from '../../lib/dashboard-view';
import { tileAtom } from '../../state/dashboard';
import { useChartTurn, useNearViewport } from '../../lib/chart-turns';
import { ChartBody, ChartFrame, ChartSkeleton, preloadCharts, TileMessage } from '../charts/ChartBody';
import { parseChartConfig } from '../charts/config';
import { formatInstant } from '../charts/format';
import { ExportStatus } from '../exports/ExportStatus';
import { ReportExports } from '../exports/ReportExports';
import { useExport } from '../exports/useExport';
import { DownloadMenu } from '../sharing/DownloadMenu';
import { TablePager, useTablePage } from './TablePager';
import { TileMore } from './TileMore';
import { useMenu } from './useMenu';
import './tile.css';

/** Re-renders every half minute so "5 min ago" stays true. */
function useNow(intervalMs = 30_000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), intervalMs);
    return () => clearInterval(t);
  }, [intervalMs]);
  return now;
}

function Age({ timestamp, current, running, zone }: { timestamp: string | null; current: boolean; running: boolean; zone: string }) {
  const now = useNow();
  const age = dataAge(timestamp, now);
  if (!age && !running) return null;
  const when = formatInstant(timestamp, zone);
  return (
    <span
      className={`tile__age${current ? '' : ' is-stale'}`}
      data-testid="tile-age"
      title={when ? `Data from ${when}` : undefined}
      data-time={when ?? undefined}
    >
      {running ? <span className="spinner" aria-label="Updating" /> : null}
      {age ? `updated ${age}` : null}
      {!current && timestamp ? (
        <span className="tile__stale" data-testid="tile-stale">
          {' '}
          · outdated
        </span>
      ) : null}
    </span>
  );
}

/** Where a tile's downloads go: `/app/reports/{id}/download` or a sharing link's `/s/{token}/download/{id}`. */
export interface TileDownloads {
  base: (reportId: string) => string;
  /** The filter parameters the dashboard shows (sent with the download). */
  parameters?: unknown;
  /** Query to keep (a sharing link's own query). */
  keep?: string;
  /** Offer the app's export jobs (PNG, PDF, Full CSV); sharing links leave them out for now. */
  exports?: boolean;
}

export interface TileProps {
  dashboardId: string;
  tile: TileView;
  palette: string[];
  waitingFor: string | null;
  /** The dashboard's time zone (values of date-time columns, data age). */
  zone: string;
  /** The report editor's address with the dashboard's filter state, for analysts; null: no edit link. */
  editHref?: string | null;
  /** null: this page offers no downloads (the tile's own switch is checked as well). */
  downloads?: TileDownloads | null;
  /** Re-runs this report; null: no refresh button on this page. */
  onRefresh?: ((reportId: string) => void) | null;
  /** Follow the report's drill-down when its chart is clicked (the analyst app only). */
  drill?: boolean;
  /** Set filters this report ignores, named for its "unused filters" warning ('' for none). */
  unused?: string;
  /** The report's SQL for the "⋯ More" tool's Show SQL (the analyst app only); null: not offered. */
  sql?: string | null;
  /** Offer Duplicate in the "⋯ More" tool (analysts and admins, dashboard not locked). */
  canDuplicate?: boolean;
  /**
   * The page keeps the maximized tile in its address (Back restores it): whether this tile is the one,
   * and how to change that. Without them the tile keeps the state itself.
   */
  maximized?: boolean;
  onMaximize?: ((reportId: string, on: boolean) => void) | null;
  /**
   * Fetch the chart's code and draw its first picture only once the tile comes near the viewport (a
   * sharing link's dashboard, lib/chart-turns.ts); without it the page preloads every chart type itself.
   */
  whenNear?: boolean;
}

/** The report's download menu (CSV, Excel; in the app PNG, PDF and Full CSV), as the page and the report's switches allow. */
function TileMenu({ tile, downloads }: { tile: TileView; downloads: TileDownloads | null }) {
  const ref = useRef<HTMLDivElement>(null);
  const { open, setOpen, toggle } = useMenu(ref);
  const exp = useExport();
  const jobs = Boolean(downloads?.exports);
  const images = jobs && tile.exports.images;
  const unlimitedCsv = jobs && tile.actions.download && tile.exports.unlimitedCsv;
  if (!downloads || (!tile.actions.download && !images)) return null;
  return (
    <div className="menu tile__menu" ref={ref}>
      <button type="button" className="tile__tool" aria-haspopup="menu" aria-expanded={open} onClick={toggle} data-testid="tile-downloads" title="Download">
        ⤓<span className="visually-hidden"> Download {tile.name}</span>
      </button>
      {open ? (
        <div
          className="menu__panel"
          role="menu"
          onClick={(e) => {
            if ((e.target as HTMLElement).closest('a,button')) setOpen(false);
          }}
        >
          <DownloadMenu
            base={downloads.base(tile.reportId)}
            reportName={tile.name}
            parameters={downloads.parameters}
            keep={downloads.keep}
            allowed={tile.actions.download}
            layout="menu"
          />
          {jobs ? (
            <ReportExports
              reportId={tile.reportId}
              parameters={downloads.parameters}
              images={images}
              unlimitedCsv={unlimitedCsv}
              disabled={exp.busy}
              run={(req) => void exp.start(req)}
            />
          ) : null}
        </div>
      ) : null}
      {jobs ? (
        <span className="tile__export-status">
          <ExportStatus state={exp.state} onDismiss={exp.dismiss} testId="tile-export-status" />
        </span>
      ) : null}
    </div>
  );
}

export const Tile = memo(function Tile({
  dashboardId,
  tile,
  palette,
  waitingFor,
  zone,
  editHref = null,
  downloads = null,
  onRefresh = null,
  drill = false,
  unused = '',
  sql = null,
  canDuplicate = false,
  maximized: shownMaximized,
  onMaximize = null,
  whenNear = false,
}: TileProps) {
  const state = useAtomValue(tileAtom(`${dashboardId}:${tile.reportId}`));
  const { config, problem } = parseChartConfig(tile.chartConfiguration);
  // A table tile holds one page of its result; the pager fetches the others.
  const pager = useTablePage(state, config.type === 'table');
  const [ownMaximized, setOwnMaximized] = useState(false);
  const controlled = shownMaximized !== undefined && onMaximize !== null;
  const maximized = controlled ? shownMaximized : ownMaximized;
  const setMaximized = (on: boolean) => (controlled ? onMaximize(tile.reportId, on) : setOwnMaximized(on));
  // On a narrow tile the tools fold behind one button, so the title keeps its room.
  const toolsRef = useRef<HTMLSpanElement>(null);
  const tools = useMenu(toolsRef);
  // A layout effect: Escape works as soon as the enlarged tile is shown (Preact runs passive effects
  // only after the next frame, so a quick Escape could otherwise be missed).
  useLayoutEffect(() => {
    if (!maximized) return;
    const onKey = (e: KeyboardEvent) => e.key === 'Escape' && !e.defaultPrevented && setMaximized(false);
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [maximized]); // eslint-disable-line react-hooks/exhaustive-deps
  const dim = state.result && state.running && state.phase === 'ready';
  // The first picture of each chart waits for its turn (one chart per task: lib/chart-turns.ts), and on
  // pages that ask for it until the tile is near the viewport, which also starts loading its chart's code.
  const sectionRef = useRef<HTMLElement>(null);
  const near = useNearViewport(sectionRef, whenNear);
  useEffect(() => {
    if (whenNear && near) preloadCharts([config.type]);
  }, [whenNear, near, config.type]);
  const drawn = useChartTurn(Boolean(state.result), near);
  let body;
  if (waitingFor) {
    body = (
      <ChartFrame reportId={tile.reportId} type={config.type} state="waiting">
        <TileMessage kind="waiting" text={`Choose a value for ${waitingFor} to see this report.`} testId="report-waiting" />
      </ChartFrame>
    );
  } else if (state.phase === 'error' && !state.result) {
    body = (
      <ChartFrame reportId={tile.reportId} type={config.type} state="error">
        <TileMessage kind="error" title="This report could not be loaded" text={state.message ?? 'The query failed.'} testId="report-error" />
      </ChartFrame>
    );
  } else if (state.phase === 'empty') {
    body = (
      <ChartFrame reportId={tile.reportId} type={config.type} state="empty">
        <TileMessage kind="empty" text={tile.noDataMessage} testId="report-empty" />
      </ChartFrame>
    );
  } else if (state.retrying && !state.result && state.phase === 'loading') {
    body = (
      <ChartFrame reportId={tile.reportId} type={config.type} state="loading">
        <TileMessage kind="waiting" text={state.retrying} testId="report-retrying" />
      </ChartFrame>
    );
  } else if (state.result && drawn) {
    body = (
      <ChartBody
        reportId={tile.reportId}
        config={config}
        configProblem={problem}
        data={pager.paged && pager.data ? pager.data : state.result}
        palette={palette}
        title={tile.name}
        zone={zone}
        drill={drill}
      />
    );
  } else {
    // A result that waits only for its tile to come near the viewport is ready (its data is there); its
    // frame gets `data-drawn` once the chart is drawn, like every chart.
    body = (
      <ChartFrame reportId={tile.reportId} type={config.type} state={state.result && !near ? 'ready' : 'loading'}>
        <ChartSkeleton type={config.type} />
      </ChartFrame>
    );
  }
  const canRefresh = Boolean(onRefresh && tile.actions.refresh && !waitingFor);
  const maximize = tile.actions.maximize ? () => setMaximized(!maximized) : null;
  const section = (
    <section
      ref={sectionRef}
      className={`tile tile--${config.type}${dim ? ' is-updating' : ''}${maximized ? ' is-maximized' : ''}`}
      style={{ ['--col' as string]: tile.column, ['--span' as string]: tile.width, ['--row' as string]: tile.row, ['--rows' as string]: tile.height }}
      aria-labelledby={`title-${tile.reportId}`}
      aria-busy={state.phase === 'loading' || state.running}
      data-report-id={tile.reportId}
      data-maximized={maximized || undefined}
      role={maximized ? 'dialog' : undefined}
      aria-modal={maximized || undefined}
    >
      <header className={`tile__header${tile.showTitle || maximized ? '' : ' tile__header--bare'}`}>
        <h2
          className={`tile__title${tile.showTitle || maximized ? '' : ' visually-hidden'}`}
          id={`title-${tile.reportId}`}
          title={tile.description ?? undefined}
        >
          {tile.name}
        </h2>
        <span className={`tile__tools${tools.open ? ' is-open' : ''}`} ref={toolsRef}>
          <button
            type="button"
            className="tile__tool tile__tools-toggle"
            aria-haspopup="true"
            aria-expanded={tools.open}
            onClick={tools.toggle}
            title="Tools"
            data-testid="tile-tools-toggle"
          >
            ⋮<span className="visually-hidden"> Tools for {tile.name}</span>
          </button>
          <span className="tile__tools-panel">
            <Age timestamp={state.dataTimestamp} current={state.current} running={state.running && !waitingFor} zone={zone} />
            {canRefresh ? (
              <button
                type="button"
                className="tile__tool"
                onClick={() => onRefresh!(tile.reportId)}
                disabled={state.running}
                title="Run this report again now"
                data-testid="tile-refresh"
              >
                ↻<span className="visually-hidden"> Refresh {tile.name}</span>
              </button>
            ) : null}
            {maximize ? (
              <button
                type="button"
                className="tile__tool"
                onClick={maximize}
                title={maximized ? 'Restore size (Esc)' : 'Maximize'}
                aria-pressed={maximized}
                data-testid="tile-maximize"
              >
                {maximized ? '⤡' : '⤢'}
                <span className="visually-hidden">
                  {' '}
                  {maximized ? 'Restore' : 'Maximize'} {tile.name}
                </span>
              </button>
            ) : null}
            <TileMenu tile={tile} downloads={downloads} />
            <TileMore dashboardId={dashboardId} reportId={tile.reportId} name={tile.name} sql={sql} canDuplicate={canDuplicate} />
            {editHref ? (
              <Link
                to={editHref}
                className="tile__tool tile__edit"
                aria-label={`Edit ${tile.name}`}
                title="Edit the report (with the dashboard's filter values)"
                data-testid="tile-edit"
              >
                ✎
              </Link>
            ) : null}
          </span>
        </span>
      </header>
      {tile.description && tile.showTitle ? <p className="tile__desc">{tile.description}</p> : null}
      <div className="tile__body">{body}</div>
      {pager.paged && state.result && !waitingFor ? <TablePager pager={pager} /> : null}
      {unused ? (
        <p className="tile__unused" role="note" data-testid="tile-unused-filters">
          Not filtered by {unused}: this report does not use {unused.includes(',') ? 'these filters' : 'this filter'}.
        </p>
      ) : null}
      {tile.attribution ? (
        <p className="tile__attribution" data-testid="tile-attribution">
          {tile.attribution}
        </p>
      ) : null}
      {state.phase === 'error' && state.result ? (
        <p className="tile__warning" role="alert">
          {state.message}
        </p>
      ) : null}
    </section>
  );
  if (!maximized) return section;
  return (
    <>
      <div className="tile-backdrop" onClick={() => setMaximized(false)} data-testid="tile-backdrop" aria-hidden="true" />
      {section}
    </>
  );
});
