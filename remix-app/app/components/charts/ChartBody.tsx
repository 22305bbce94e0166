import { lazy, Suspense, useEffect, useState, type ReactNode } from 'react';
import type { ReportData } from '../../lib/types';
import { Columns } from './columns';
import type { ChartConfig, ChartType } from './config';
import { NumberView } from './NumberView';
import { TableView } from './TableView';

const NivoChart = lazy(() => import('./NivoChart'));

interface Props {
  reportId: string;
  config: ChartConfig;
  configProblem?: string;
  data: ReportData;
  palette: string[];
  title: string;
  /** Shown when the result has no rows, or (numbers) when the value is null. */
  noDataMessage?: string | null;
}

/** Every tile's chart area: one container with a stable test id, whatever state the report is in. */
export function ChartFrame({ reportId, type, state, children }: { reportId: string; type: ChartType; state: string; children: ReactNode }) {
  return (
    <div className="chart" data-testid={`chart-${reportId}`} data-chart-type={type} data-state={state}>
      {children}
    </div>
  );
}

export function ChartSkeleton({ type }: { type: ChartType }) {
  return (
    <div className={`skeleton skeleton--${type}`} role="status" aria-label="Loading the report">
      {type === 'number' ? (
        <>
          <span className="skeleton__block skeleton__block--value" />
          <span className="skeleton__block skeleton__block--label" />
        </>
      ) : type === 'table' ? (
        Array.from({ length: 6 }, (_, i) => <span key={i} className="skeleton__block skeleton__block--row" />)
      ) : type === 'pie' ? (
        <span className="skeleton__ring" />
      ) : (
        <div className="skeleton__bars">
          {[46, 70, 38, 88, 62, 76, 52, 94].map((h, i) => (
            <span key={i} style={{ height: `${h}%` }} />
          ))}
        </div>
      )}
    </div>
  );
}

function EmptyChart({ reportId, type, message }: { reportId: string; type: ChartType; message: string }) {
  return (
    <ChartFrame reportId={reportId} type={type} state="empty">
      <div className="tile-message">
        <span className="tile-message__icon" aria-hidden="true">∅</span>
        <p className="tile-message__text" data-testid="report-empty">{message}</p>
      </div>
    </ChartFrame>
  );
}

function useMounted(): boolean {
  const [mounted, setMounted] = useState(false);
  useEffect(() => setMounted(true), []);
  return mounted;
}

export function ChartBody({ reportId, config, configProblem, data, palette, title, noDataMessage }: Props) {
  const mounted = useMounted();
  if (data.status === 'error') {
    return (
      <ChartFrame reportId={reportId} type={config.type} state="error">
        <div className="tile-message tile-message--error" role="alert">
          <span className="tile-message__icon" aria-hidden="true">!</span>
          <p className="tile-message__title">This report could not be loaded</p>
          <p className="tile-message__text" data-testid="report-error">{data.message}</p>
        </div>
      </ChartFrame>
    );
  }
  if (data.status === 'empty') return <EmptyChart reportId={reportId} type={config.type} message={data.message} />;
  const columns = new Columns(data.fields);
  // An aggregate over no rows answers one row of nulls: that is "no data" too.
  if (config.type === 'number' && columns.has(config.value) && data.rows.every((r) => columns.get(r, config.value) == null)) {
    return <EmptyChart reportId={reportId} type={config.type} message={noDataMessage?.trim() || 'No data'} />;
  }
  const missing =
    config.type === 'bar' || config.type === 'line'
      ? columns.missing([config.x, ...config.y])
      : config.type === 'pie'
        ? columns.missing([config.label, config.value])
        : config.type === 'number'
          ? columns.missing([config.value, config.compare])
          : [];
  if (missing.length > 0) {
    return (
      <ChartFrame reportId={reportId} type={config.type} state="error">
        <div className="tile-message tile-message--error" role="alert">
          <span className="tile-message__icon" aria-hidden="true">!</span>
          <p className="tile-message__title">The chart does not match the data</p>
          <p className="tile-message__text" data-testid="report-error">
            The result has no column {missing.map((m) => `“${m}”`).join(', ')}.
          </p>
        </div>
      </ChartFrame>
    );
  }
  return (
    <ChartFrame reportId={reportId} type={config.type} state={config.type === 'number' || config.type === 'table' || mounted ? 'ready' : 'loading'}>
      {configProblem ? <p className="chart__note">{configProblem}</p> : null}
      {config.type === 'number' ? (
        <NumberView config={config} columns={columns} rows={data.rows} />
      ) : config.type === 'table' ? (
        <TableView columns={columns} rows={data.rows} rowCount={data.rowCount} caption={title} />
      ) : mounted ? (
        <Suspense fallback={<ChartSkeleton type={config.type} />}>
          <div className="chart__canvas">
            <NivoChart config={config} columns={columns} rows={data.rows} palette={palette} title={title} />
          </div>
        </Suspense>
      ) : (
        <ChartSkeleton type={config.type} />
      )}
    </ChartFrame>
  );
}
