/**
 * The status poll of a public sharing link: `POST /s/{token}/status` (the page's resource route, which
 * asks the API's public-links module), then each ready result from the data server through the app's
 * `/app/data/{key}` route with the short-lived token the status answer carries. Fills the same jotai
 * atoms as the app's dashboard page, so the app's Tile component draws the link's reports.
 * Waits `status_check_delay` between polls (short while something runs, a minute once settled).
 */
import { useStore } from 'jotai';
import { useEffect, useRef } from 'react';
import { nextTile, optionsFrom, type DashboardStatus, type ResultData, type StatusError, type TileState } from '../../lib/dashboard-status';
import { filterOptionsAtom, pollAtom, tileAtom } from '../../state/dashboard';

export interface PublicPollInput {
  token: string;
  dashboardId: string;
  reports: { id: string; noDataMessage: string }[];
  filterVariables: Record<string, string>;
  /** The page's own query string (filter values, and the signature of signed links). */
  query: string;
  /** The viewer's filter choice; sent only when the link has a filter bar. */
  parameters: unknown;
  parametersKey: string;
  refreshNonce: number;
}

const MIN_DELAY_S = 1;
const MAX_DELAY_S = 600;

async function postStatus(token: string, body: unknown, signal: AbortSignal): Promise<DashboardStatus | StatusError> {
  const res = await fetch(`/s/${encodeURIComponent(token)}/status`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
    body: JSON.stringify(body),
    signal,
  });
  try {
    return (await res.json()) as DashboardStatus | StatusError;
  } catch {
    return { error: { status: res.status, code: 'bad_response', message: `The server answered ${res.status}.` } };
  }
}

async function fetchResult(key: string, token: string, signal: AbortSignal): Promise<ResultData> {
  const res = await fetch(`/app/data/${key}`, { headers: { Authorization: `Data ${token}`, Accept: 'application/json' }, signal });
  const body = (await res.json().catch(() => null)) as (ResultData & { errors?: { detail?: string }[] }) | null;
  if (!res.ok || !body || !Array.isArray(body.fields) || !Array.isArray(body.rows)) {
    throw new Error(body?.errors?.[0]?.detail || `The data server answered ${res.status}.`);
  }
  return body;
}

export function usePublicPoll(input: PublicPollInput): { refresh: () => void } {
  const store = useStore();
  const latest = useRef(input);
  latest.current = input;
  const refreshRef = useRef(false);

  useEffect(() => {
    const { token, dashboardId, reports, filterVariables, query, parameters } = latest.current;
    const controller = new AbortController();
    const { signal } = controller;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const noData = new Map(reports.map((r) => [r.id, r.noDataMessage]));
    const tile = (id: string) => tileAtom(`${dashboardId}:${id}`);
    const setTile = (id: string, update: (t: TileState) => TileState) => store.set(tile(id), update(store.get(tile(id))));
    const poll = pollAtom(dashboardId);
    for (const r of reports) setTile(r.id, (t) => ({ ...t, running: true, phase: t.result || t.phase === 'empty' ? t.phase : 'loading' }));

    const load = (key: string, dataToken: string, apply: (d: ResultData) => void, fail: (m: string) => void) => {
      fetchResult(key, dataToken, signal).then((d) => !signal.aborted && apply(d)).catch((err: unknown) => {
        if (!signal.aborted) fail(err instanceof Error ? err.message : String(err));
      });
    };

    const handle = (answer: DashboardStatus | StatusError): number => {
      if ('error' in answer) {
        store.set(poll, { updatedAt: Date.now(), running: false, error: answer.error.message, refreshing: false });
        for (const r of reports) setTile(r.id, (t) => ({ ...t, phase: t.result ? t.phase : 'error', running: false, message: t.result ? t.message : answer.error.message }));
        return 30;
      }
      for (const e of answer.reports) {
        if (!noData.has(e.report_id)) continue;
        const { tile: next, fetch } = nextTile(store.get(tile(e.report_id)), e, noData.get(e.report_id)!);
        store.set(tile(e.report_id), next);
        if (fetch) {
          load(fetch.key, fetch.token,
            (d) => setTile(e.report_id, (t) => ({ ...t, phase: 'ready', result: d, dataKey: fetch.key, message: null })),
            (m) => setTile(e.report_id, (t) => ({ ...t, phase: t.result ? t.phase : 'error', message: m })));
        }
      }
      for (const e of answer.filters) {
        const variable = filterVariables[e.filter_id];
        if (!variable || e.result_status !== 'success' || !e.data_key || !e.data_access_token) continue;
        load(e.data_key, e.data_access_token, (d) => {
          store.set(filterOptionsAtom(dashboardId), { ...store.get(filterOptionsAtom(dashboardId)), [variable]: optionsFrom(d) });
        }, () => {});
      }
      const running = answer.reports.some((r) => r.running || r.result_status === 'running') || answer.filters.some((f) => f.running || f.result_status === 'running');
      store.set(poll, { updatedAt: Date.now(), running, error: null, refreshing: false });
      const delay = Number(answer.status_check_delay);
      return Math.min(MAX_DELAY_S, Math.max(MIN_DELAY_S, Number.isFinite(delay) ? delay : 60));
    };

    const run = async () => {
      const refresh = refreshRef.current;
      refreshRef.current = false;
      let answer: DashboardStatus | StatusError;
      try {
        answer = await postStatus(token, { query, ...(parameters !== undefined ? { parameters } : {}), refresh_data: refresh }, signal);
      } catch {
        if (signal.aborted) return;
        answer = { error: { status: 0, code: 'network', message: 'The dashboard could not be reached; retrying.' } };
      }
      if (signal.aborted) return;
      timer = setTimeout(run, handle(answer) * 1000);
    };
    if (refreshRef.current) store.set(poll, { ...store.get(poll), refreshing: true });
    void run();
    return () => {
      controller.abort();
      if (timer) clearTimeout(timer);
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [store, input.token, input.parametersKey, input.refreshNonce]);

  return { refresh: () => { refreshRef.current = true; } };
}

