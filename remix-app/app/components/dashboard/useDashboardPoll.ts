/**
 * Polls `POST /dashboards/{id}/status` (through the app's resource route, or a sharing link's
 * `/s/{token}/status` given as `statusUrl`) for the current filter parameters, waits
 * `status_check_delay` between polls (2 s while something runs, 60 s once settled), and fetches each
 * ready result from the data server (through /app/data/…) as soon as its token arrives, so every tile
 * draws the moment its own data is there. The signed-in dashboard and the public link page share it.
 */
import { useStore } from 'jotai';
import { useEffect, useRef } from 'react';
import {
  INITIAL_TILE,
  isTransientStatusError,
  nextTile,
  optionsFrom,
  STATUS_RETRYING,
  statusRetryDelay,
  tileAfterStatusFailure,
  type DashboardStatus,
  type ResultData,
  type StatusError,
  type TileState,
} from '../../lib/dashboard-status';
import { filterOptionsAtom, pollAtom, tileAtom } from '../../state/dashboard';
import { dataPageUrl } from '../../lib/tile-rows';

export interface PollInput {
  dashboardId: string;
  /** Where the status is asked (default: the app's `/app/dashboards/{id}/status`). */
  statusUrl?: string;
  /** More members of every status body (a sharing link's `query`). */
  statusBody?: Record<string, unknown>;
  /** `rowLimit`: the rows its tile asks for (lib/tile-rows.ts; default: the whole result). */
  reports: { id: string; noDataMessage: string; rowLimit?: number }[];
  /** Filter id → variable, for query-driven dropdowns. */
  filterVariables: Record<string, string>;
  /** undefined: the body carries no parameters (the status call applies the defaults). */
  parameters: unknown;
  /** Stable key of `parameters`. */
  parametersKey: string;
  /** false: required filters are missing; reports wait (dynamic options still load). */
  reportsEnabled: boolean;
  automaticUpdate: boolean;
  /** Bumped by the refresh button. */
  refreshNonce: number;
  /** The loader's first status answer for `initialKey` (saves a round trip). */
  initial?: { key: string; status: Promise<DashboardStatus | StatusError> } | null;
}

const MIN_DELAY_S = 1;
const MAX_PARALLEL_FETCHES = 4;
const MAX_DELAY_S = 600;
/** How soon, and how often, to ask again when the status answer leaves out a report the page shows. */
const MISSING_DELAY_S = 2;
const MISSING_RETRIES = 5;

function statusUrlOf(dashboardId: string): string {
  return `/app/dashboards/${encodeURIComponent(dashboardId)}/status`;
}

async function postStatus(url: string, body: Record<string, unknown>, signal: AbortSignal): Promise<DashboardStatus | StatusError> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
    body: JSON.stringify(body),
    signal,
  });
  if (res.redirected && res.url.includes('/app/login')) {
    window.location.assign(res.url);
    return new Promise(() => {});
  }
  try {
    return (await res.json()) as DashboardStatus | StatusError;
  } catch {
    return { error: { status: res.status, code: 'bad_response', message: `The server answered ${res.status}.` } };
  }
}

/** A tile's result from the app's data proxy: the first `limit` rows (lib/tile-rows.ts), or the whole result without one. */
export async function fetchResult(key: string, token: string, signal?: AbortSignal, limit?: number): Promise<ResultData> {
  const res = await fetch(limit === undefined ? `/app/data/${key}` : dataPageUrl(key, 0, limit), {
    headers: { Authorization: `Data ${token}`, Accept: 'application/json' },
    signal,
  });
  const body = (await res.json().catch(() => null)) as (ResultData & { errors?: { detail?: string }[] }) | null;
  if (!res.ok || !body || !Array.isArray(body.fields) || !Array.isArray(body.rows)) {
    throw new Error(body?.errors?.[0]?.detail || `The data server answered ${res.status}.`);
  }
  return body;
}

export function useDashboardPoll(input: PollInput): { refresh: () => void } {
  const store = useStore();
  const latest = useRef(input);
  latest.current = input;
  const refreshRef = useRef(false);
  const reportsKey = input.reports.map((r) => r.id).join(',');
  // The server's first status answer is used once: a poll restarted later asks the API again.
  const usedInitial = useRef<unknown>(null);

  useEffect(() => {
    const { dashboardId, reports, filterVariables, parameters, parametersKey, reportsEnabled, statusBody } = latest.current;
    const url = latest.current.statusUrl ?? statusUrlOf(dashboardId);
    const controller = new AbortController();
    const { signal } = controller;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let first = true;
    let incomplete = false;
    let missingRetries = 0;
    /** Transient failures of the status call in a row (the retry backs off). */
    let failures = 0;
    const noData = new Map(reports.map((r) => [r.id, r.noDataMessage]));
    const tile = (id: string) => tileAtom(`${dashboardId}:${id}`);
    const setTile = (id: string, update: (t: TileState) => TileState) => store.set(tile(id), update(store.get(tile(id))));
    const poll = pollAtom(dashboardId);

    // New parameters: tiles keep their old data (shown dimmed) until the new data arrives.
    for (const r of reports) {
      setTile(r.id, (t) =>
        reportsEnabled
          ? { ...t, running: true, phase: t.result || t.phase === 'empty' ? t.phase : 'loading' }
          : { ...INITIAL_TILE, phase: 'waiting', running: false },
      );
    }

    // Results are fetched in layout order, a few at a time, and each is applied in a task of its own:
    // the first tiles' data does not queue behind twenty JSON parses, and the browser paints in between.
    const queue: (() => Promise<void>)[] = [];
    let active = 0;
    const pump = () => {
      while (active < MAX_PARALLEL_FETCHES && queue.length) {
        const job = queue.shift()!;
        active++;
        void job().finally(() => {
          active--;
          pump();
        });
      }
    };
    const rowLimits = new Map(reports.map((r) => [r.id, r.rowLimit]));
    const loadResult = (id: string, key: string, token: string, apply: (data: ResultData) => void, fail: (message: string) => void) => {
      queue.push(async () => {
        try {
          const data = await fetchResult(key, token, signal, rowLimits.get(id));
          if (signal.aborted) return;
          performance.mark(`cairn:data:${id}`);
          apply(data);
          await new Promise((resolve) => setTimeout(resolve, 0));
        } catch (err) {
          if (!signal.aborted) fail(err instanceof Error ? err.message : String(err));
        }
      });
      pump();
    };

    const handle = (answer: DashboardStatus | StatusError) => {
      if ('error' in answer) {
        // The request failed, not the reports: a transient failure is retried (backing off) and the tiles
        // say so; only a refusal becomes the tiles' error (lib/dashboard-status tileAfterStatusFailure).
        const transient = isTransientStatusError(answer.error);
        failures = transient ? failures + 1 : 0;
        store.set(poll, { updatedAt: Date.now(), running: false, error: transient ? STATUS_RETRYING : answer.error.message, refreshing: false });
        for (const r of reports) setTile(r.id, (t) => tileAfterStatusFailure(t, answer.error));
        return transient ? statusRetryDelay(failures, answer.error.status) : 30;
      }
      failures = 0;
      if (reportsEnabled) {
        const order = new Map(reports.map((r, i) => [r.id, i]));
        const entries = [...answer.reports].sort((x, y) => (order.get(x.report_id) ?? 1e9) - (order.get(y.report_id) ?? 1e9));
        for (const e of entries) {
          if (!noData.has(e.report_id)) continue;
          const { tile: next, fetch } = nextTile(store.get(tile(e.report_id)), e, noData.get(e.report_id)!);
          store.set(tile(e.report_id), next);
          if (fetch) {
            loadResult(
              e.report_id,
              fetch.key,
              fetch.token,
              (data) => setTile(e.report_id, (t) => ({ ...t, phase: 'ready', result: data, dataKey: fetch.key, dataToken: fetch.token, message: null })),
              (message) => setTile(e.report_id, (t) => ({ ...t, phase: t.result ? t.phase : 'error', message })),
            );
          }
        }
      }
      for (const e of answer.filters) {
        const variable = filterVariables[e.filter_id];
        if (!variable || e.result_status !== 'success' || !e.data_key || !e.data_access_token) continue;
        loadResult(
          e.filter_id,
          e.data_key,
          e.data_access_token,
          (data) => {
            const options = store.get(filterOptionsAtom(dashboardId));
            store.set(filterOptionsAtom(dashboardId), { ...options, [variable]: optionsFrom(data) });
          },
          () => {},
        );
      }
      const running =
        answer.reports.some((r) => r.running || r.result_status === 'running') || answer.filters.some((f) => f.running || f.result_status === 'running');
      store.set(poll, { updatedAt: Date.now(), running, error: null, refreshing: false });
      const delay = Number(answer.status_check_delay);
      const wait = Math.min(MAX_DELAY_S, Math.max(MIN_DELAY_S, Number.isFinite(delay) ? delay : 60));
      // A report the answer does not list yet (just duplicated; the API remembers a dashboard for a
      // moment): ask again soon, a few times, rather than after the usual minute.
      const reported = new Set(answer.reports.map((e) => e.report_id));
      incomplete = reportsEnabled && reports.some((r) => !reported.has(r.id)) && missingRetries++ < MISSING_RETRIES;
      return incomplete ? Math.min(wait, MISSING_DELAY_S) : wait;
    };

    const run = async () => {
      const refresh = refreshRef.current;
      refreshRef.current = false;
      const initial = latest.current.initial;
      let answer: DashboardStatus | StatusError;
      try {
        const fresh = first && !refresh && initial && initial.key === parametersKey && usedInitial.current !== initial.status;
        if (fresh) usedInitial.current = initial.status;
        answer = fresh
          ? await initial.status
          : await postStatus(url, { ...statusBody, ...(parameters !== undefined ? { parameters } : {}), refresh_data: refresh }, signal);
      } catch (err) {
        if (signal.aborted) return;
        answer = { error: { status: 0, code: 'network', message: 'The dashboard status could not be loaded; retrying.' } };
      }
      first = false;
      if (signal.aborted) return;
      const delay = handle(answer);
      // A status call that failed on the way is asked again even when automatic updates are off.
      const settled = !store.get(poll).running && !incomplete && failures === 0;
      if (settled && !latest.current.automaticUpdate) return;
      timer = setTimeout(run, delay * 1000);
    };
    if (refreshRef.current) store.set(poll, { ...store.get(poll), refreshing: true });
    void run();
    return () => {
      controller.abort();
      if (timer) clearTimeout(timer);
    };
    // The poll restarts when the parameters change, a refresh is asked for or the reports change (a
    // report duplicated from its tile: the copy's data is fetched at once).
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [store, input.dashboardId, input.statusUrl, input.parametersKey, input.reportsEnabled, input.refreshNonce, reportsKey]);

  return {
    refresh: () => {
      refreshRef.current = true;
    },
  };
}
