/** One report on the grid: title, data age, and its chart in whatever state its data is. */
import { useAtomValue } from 'jotai';
import { memo, useEffect, useState } from 'react';
import { Link } from 'react-router';
import { dataAge } from '../../lib/dashboard-status';
import type { TileView } from '../../lib/dashboard-view';
import { tileAtom } from '../../state/dashboard';
import { ChartBody, ChartFrame, ChartSkeleton, TileMessage } from '../charts/ChartBody';
import { parseChartConfig } from '../charts/config';

/** Re-renders every half minute so "5 min ago" stays true. */
function useNow(intervalMs = 30_000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), intervalMs);
    return () => clearInterval(t);
  }, [intervalMs]);
  return now;
}

function Age({ timestamp, current, running }: { timestamp: string | null; current: boolean; running: boolean }) {
  const now = useNow();
  const age = dataAge(timestamp, now);
  if (!age && !running) return null;
  return (
    <span className={`tile__age${current ? '' : ' is-stale'}`} data-testid="tile-age" title={timestamp ? `Data from ${new Date(timestamp).toLocaleString('en')}` : undefined}>
      {running ? <span className="spinner" aria-label="Updating" /> : null}
      {age ? `updated ${age}` : null}
      {!current && timestamp ? <span className="tile__stale" data-testid="tile-stale"> · outdated</span> : null}
    </span>
  );
}

export const Tile = memo(function Tile({ dashboardId, tile, palette, waitingFor, editable = false }: { dashboardId: string; tile: TileView; palette: string[]; waitingFor: string | null; editable?: boolean }) {
  const state = useAtomValue(tileAtom(`${dashboardId}:${tile.reportId}`));
  const { config, problem } = parseChartConfig(tile.chartConfiguration);
  const dim = state.result && state.running && state.phase === 'ready';
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
  } else if (state.result) {
    body = <ChartBody reportId={tile.reportId} config={config} configProblem={problem} data={state.result} palette={palette} title={tile.name} />;
  } else {
    body = (
      <ChartFrame reportId={tile.reportId} type={config.type} state="loading">
        <ChartSkeleton type={config.type} />
      </ChartFrame>
    );
  }
  return (
    <section
      className={`tile tile--${config.type}${dim ? ' is-updating' : ''}`}
      style={{ ['--col' as string]: tile.column, ['--span' as string]: tile.width, ['--row' as string]: tile.row, ['--rows' as string]: tile.height }}
      aria-labelledby={`title-${tile.reportId}`}
      aria-busy={state.phase === 'loading' || state.running}
      data-report-id={tile.reportId}
    >
      <header className={`tile__header${tile.showTitle ? '' : ' tile__header--bare'}`}>
        <h2 className={`tile__title${tile.showTitle ? '' : ' visually-hidden'}`} id={`title-${tile.reportId}`} title={tile.description ?? undefined}>{tile.name}</h2>
        <span className="tile__tools">
          <Age timestamp={state.dataTimestamp} current={state.current} running={state.running && !waitingFor} />
          {editable ? (
            <Link to={`/app/reports/${encodeURIComponent(tile.reportId)}`} className="tile__edit" aria-label={`Edit ${tile.name}`} title="Edit the report" data-testid="tile-edit">✎</Link>
          ) : null}
        </span>
      </header>
      {tile.description && tile.showTitle ? <p className="tile__desc">{tile.description}</p> : null}
      <div className="tile__body">{body}</div>
      {state.phase === 'error' && state.result ? <p className="tile__warning" role="alert">{state.message}</p> : null}
    </section>
  );
});
