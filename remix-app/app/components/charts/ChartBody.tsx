/**
 * A tile's chart area: loading skeleton, no-data message, query error, or the chart itself. Each chart
 * type is its own lazily loaded module (nivo, TanStack and the map shapes never weigh on the dashboard
 * shell); `preloadCharts` starts those downloads while the queries still run.
 */
import { useAtomValue } from 'jotai';
import { Suspense, useCallback, useContext, useLayoutEffect, useRef, type ComponentType, type ReactNode } from 'react';
import { useLocation, useNavigate } from 'react-router';
import type { ResultData } from '../../lib/dashboard-status';
import { cutNote } from '../../lib/tile-rows';
import type { Cell } from '../../lib/types';
import { themeAtom } from '../../state/theme';
import type { ChartConfig, ChartType } from './config';
import { drilldownHref } from './drilldown';
import { knownZone } from './format';
import { colorMapFor, DashboardColors, rotatePalette, seriesColors } from './palette';
import { resolveRoles } from './resolve';
import type { ViewProps } from './views/types';
import NumberChart from './views/NumberChart';

type Loader = () => Promise<{ default: ComponentType<ViewProps<never>> }>;
type LazyType = Exclude<ChartType, 'number'>;

const LOADERS: Record<LazyType, Loader> = {
  table: () => import('./views/TableChart') as never,
  pivot: () => import('./views/PivotChart') as never,
  multi_pivot: () => import('./views/MultiPivotChart') as never,
  pie: () => import('./views/PieChart') as never,
  line: () => import('./views/LineChart') as never,
  bar: () => import('./views/BarChart') as never,
  map: () => import('./views/MapChart') as never,
  gauge: () => import('./views/GaugeChart') as never,
  xy_bubble: () => import('./views/XyChart') as never,
  word_cloud: () => import('./views/WordCloudChart') as never,
  histogram: () => import('./views/HistogramChart') as never,
  hierarchy: () => import('./views/HierarchyChart') as never,
};

/** Downloads under way, the view components that arrived and the downloads that failed, by chart type. */
const started = new Map<LazyType, Promise<unknown>>();
const loaded = new Map<LazyType, ComponentType<ViewProps<never>>>();
const failed = new Map<LazyType, unknown>();

function load(t: LazyType): Promise<unknown> {
  let p = started.get(t);
  if (!p) {
    p = LOADERS[t]().then(
      (m) => void loaded.set(t, m.default),
      (err: unknown) => {
        started.delete(t);
        failed.set(t, err);
        throw err;
      },
    );
    started.set(t, p);
  }
  return p;
}

/**
 * A chart type's view. Not `lazy()`: that suspends the first render of each type even when the module
 * arrived long ago (the dashboard preloads them while its queries run), and a suspended tile costs a
 * fallback commit and a second render under React, and is revealed together with other boundaries.
 * Here a loaded view renders at once; only a view still downloading suspends (throws its download).
 */
const VIEWS = Object.fromEntries(
  (Object.keys(LOADERS) as LazyType[]).map((t) => {
    // biome-ignore lint/correctness/noComponentHookFactories: one component per chart type, made once at module load (see above)
    function ChartView(props: ViewProps<never>) {
      const View = loaded.get(t);
      if (View) return <View {...props} />;
      // A failed download goes to the error boundary, as with lazy(); the next dashboard retries it.
      if (failed.has(t)) throw failed.get(t);
      throw load(t);
    }
    ChartView.displayName = `ChartView(${t})`;
    return [t, ChartView];
  }),
) as unknown as Record<LazyType, ComponentType<ViewProps<never>>>;

/** Starts downloading the modules of these chart types (idempotent; retries failed downloads). */
export function preloadCharts(types: Iterable<ChartType>): void {
  for (const t of types) {
    if (t === 'number' || loaded.has(t)) continue;
    failed.delete(t);
    load(t).catch(() => {});
  }
}

export type FrameState = 'loading' | 'ready' | 'empty' | 'error' | 'waiting';

/** Every tile's chart area: one container with a stable test id, whatever state the report is in. */
export function ChartFrame({ reportId, type, state, children }: { reportId: string; type: ChartType; state: FrameState; children: ReactNode }) {
  return (
    <div className="chart" data-testid={`chart-${reportId}`} data-chart-type={type} data-state={state}>
      {children}
    </div>
  );
}

export function ChartSkeleton({ type }: { type: ChartType }) {
  return (
    <div className={`skeleton skeleton--${type}`} role="status" aria-label="Loading the report">
      {type === 'number' || type === 'gauge' ? (
        <>
          <span className="skeleton__block skeleton__block--value" />
          <span className="skeleton__block skeleton__block--label" />
        </>
      ) : type === 'table' || type === 'pivot' || type === 'multi_pivot' ? (
        Array.from({ length: 6 }, (_, i) => <span key={i} className="skeleton__block skeleton__block--row" />)
      ) : type === 'pie' || type === 'hierarchy' ? (
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

export function TileMessage({ kind, title, text, testId }: { kind: 'empty' | 'error' | 'waiting'; title?: string; text: string; testId: string }) {
  return (
    <div className={`tile-message tile-message--${kind}`} role={kind === 'error' ? 'alert' : undefined}>
      <span className="tile-message__icon" aria-hidden="true">
        {kind === 'error' ? '!' : kind === 'waiting' ? '⧗' : '∅'}
      </span>
      {title ? <p className="tile-message__title">{title}</p> : null}
      <p className="tile-message__text" data-testid={testId}>
        {text}
      </p>
    </div>
  );
}

/**
 * Marks the moment a chart's drawing is in the page (performance mark `cairn:drawn:<report>`, and
 * `data-drawn` on the frame): at the first animation frame in which the canvas holds drawn content.
 * Started in a layout effect, i.e. right when the chart's first render is in the DOM, under React
 * and Preact alike: Preact runs passive effects only after the next frame (requestAnimationFrame,
 * then a timeout), so on a busy page a `useEffect` here would start looking hundreds of milliseconds
 * after the chart was already painted.
 */
function useDrawnMark(reportId: string, ref: React.RefObject<HTMLDivElement | null>) {
  useLayoutEffect(() => {
    let frames = 0;
    let id = 0;
    const check = () => {
      const el = ref.current;
      if (el?.querySelector('svg *, canvas, table tbody tr, [data-testid="number-value"]')) {
        performance.mark(`cairn:drawn:${reportId}`);
        el.closest('[data-testid^="chart-"]')?.setAttribute('data-drawn', 'true');
        return;
      }
      if (++frames < 600) id = requestAnimationFrame(check);
    };
    id = requestAnimationFrame(check);
    return () => cancelAnimationFrame(id);
  }, [reportId, ref]);
}

interface Props {
  reportId: string;
  config: ChartConfig;
  configProblem?: string;
  data: ResultData;
  palette: string[];
  title: string;
  /** The dashboard's time zone, for results that do not name theirs. */
  zone?: string | null;
  /** Follow the report's drill-down on a click (the analyst app's dashboards; not sharing links or prints). */
  drill?: boolean;
}

/** The click handler of a configured drill-down: opens the target dashboard with the row's values. */
function useDrill(config: ChartConfig, data: ResultData, enabled: boolean): ((row: Cell[]) => void) | undefined {
  const navigate = useNavigate();
  const location = useLocation();
  const dd = enabled ? config.drilldown : undefined;
  const onDrill = useCallback(
    (row: Cell[]) => {
      if (!dd) return;
      const href = drilldownHref(dd, data.fields, row, location.search);
      if (dd.new_tab) window.open(href, '_blank', 'noopener');
      else navigate(href);
    },
    [dd, data.fields, location.search, navigate],
  );
  return dd ? onDrill : undefined;
}

export function ChartBody({ reportId, config, configProblem, data, palette, title, zone, drill = false }: Props) {
  const mode = useAtomValue(themeAtom);
  const onDrill = useDrill(config, data, drill);
  const ref = useRef<HTMLDivElement>(null);
  useDrawnMark(reportId, ref);
  const resolved = resolveRoles(config, data.fields);
  const shown: ChartConfig = resolved.ok ? config : { type: 'table' };
  const roles = resolved.ok ? resolved.roles : {};
  const note = configProblem ?? (resolved.ok ? undefined : resolved.note);
  // A chart gets at most the rows it can draw (lib/tile-rows.ts); a table tile pages instead.
  const cut = config.type === 'table' ? null : cutNote(data.rows.length, data.row_count);
  const turned = rotatePalette(palette, shown.color_start);
  const dashboardColors = useContext(DashboardColors);
  const colorMap = dashboardColors ?? colorMapFor(palette);
  const colors = (names: readonly string[]) => seriesColors(colorMap, turned, names);
  const props = {
    config: shown as never,
    roles,
    data,
    palette: turned,
    colors,
    mode,
    title,
    zone: knownZone(data.time_zone || zone),
    onDrill: resolved.ok ? onDrill : undefined,
  };
  const View = shown.type === 'number' ? null : VIEWS[shown.type];
  return (
    <ChartFrame reportId={reportId} type={config.type} state="ready">
      {note ? (
        <p className="chart__note" data-testid="chart-note">
          {note}
        </p>
      ) : null}
      {cut ? (
        <p className="chart__note" data-testid="rows-cut-note">
          {cut}
        </p>
      ) : null}
      <div
        className={`chart__canvas chart__canvas--${shown.type}${props.onDrill ? ' chart__canvas--drill' : ''}`}
        ref={ref}
        data-drill={props.onDrill ? config.drilldown!.dashboard_id : undefined}
      >
        {View ? (
          <Suspense fallback={<ChartSkeleton type={shown.type} />}>
            <View {...props} />
          </Suspense>
        ) : (
          <NumberChart {...(props as ViewProps<never>)} />
        )}
      </div>
    </ChartFrame>
  );
}
