/**
 * Runs SQL from the editor: starts an execution, polls its status (0.5 s, 1 s, then every 2 s) with a
 * ticking elapsed time, cancels on request, and fetches the first rows once it succeeded.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { isFinal, pollDelay, type Execution, type RowsAnswer } from '../../lib/editor-execution';
import type { InputParameters } from '../../lib/filters';

export type RunState =
  | { phase: 'idle' }
  | { phase: 'running'; execution: Execution | null; startedAt: number; cancelling: boolean }
  | { phase: 'fetching'; execution: Execution; startedAt: number }
  | { phase: 'done'; execution: Execution; elapsed: number; rows: RowsAnswer; sql: string }
  | { phase: 'failed'; execution: Execution | null; elapsed: number; message: string; sql: string };

interface ErrorBody {
  errors?: { detail?: string; title?: string; code?: string }[];
}

const firstError = (body: unknown, status: number) => {
  const e = (body as ErrorBody | null)?.errors?.[0];
  return e?.detail || e?.title || `The request failed with status ${status}.`;
};

async function json(res: Response): Promise<unknown> {
  const text = await res.text();
  try {
    return text ? JSON.parse(text) : null;
  } catch {
    return null;
  }
}

async function sendCancel(executionId: string) {
  try {
    await fetch(`/app/reports/executions/${encodeURIComponent(executionId)}`, { method: 'POST', headers: { Accept: 'application/json' } });
  } catch {
    /* the next poll reports what happened */
  }
}

export function useQueryRun() {
  const [state, setState] = useState<RunState>({ phase: 'idle' });
  const [now, setNow] = useState(() => Date.now());
  const run = useRef(0);
  const current = useRef<string | null>(null);
  /** Stop was pressed before the server named the execution: cancel it as soon as it does. */
  const cancelAsked = useRef(false);

  // The elapsed time ticks while a query runs.
  const active = state.phase === 'running' || state.phase === 'fetching';
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(() => setNow(Date.now()), 100);
    return () => clearInterval(timer);
  }, [active]);

  useEffect(
    () => () => {
      run.current++;
    },
    [],
  );

  const start = useCallback(async (datasourceId: string, sql: string, parameters: InputParameters, dashboardId?: string) => {
    const id = ++run.current;
    cancelAsked.current = false;
    current.current = null;
    const startedAt = Date.now();
    const alive = () => run.current === id;
    setNow(startedAt);
    setState({ phase: 'running', execution: null, startedAt, cancelling: false });
    const fail = (message: string, execution: Execution | null) =>
      alive() && setState({ phase: 'failed', execution, elapsed: Date.now() - startedAt, message, sql });
    let res: Response;
    try {
      res = await fetch('/app/reports/executions', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
        body: JSON.stringify({ datasource_id: datasourceId, sql_query: sql, parameters, ...(dashboardId ? { dashboard_id: dashboardId } : {}) }),
      });
    } catch {
      return fail('The app could not be reached. Check your connection and run again.', null);
    }
    let body = await json(res);
    if (!res.ok) return fail(firstError(body, res.status), null);
    let execution = body as Execution;
    current.current = execution.execution_id;
    if (cancelAsked.current) void sendCancel(execution.execution_id);
    for (let attempt = 0; alive() && !isFinal(execution.execution_status); attempt++) {
      setState((s) => (s.phase === 'running' ? { ...s, execution } : s));
      await new Promise((r) => setTimeout(r, pollDelay(attempt)));
      if (!alive()) return;
      try {
        res = await fetch(`/app/reports/executions/${encodeURIComponent(execution.execution_id)}`, { headers: { Accept: 'application/json' } });
      } catch {
        continue; // a dropped poll is retried
      }
      body = await json(res);
      if (!res.ok) return fail(firstError(body, res.status), execution);
      execution = body as Execution;
    }
    if (!alive()) return;
    current.current = null;
    if (execution.execution_status !== 'success') {
      if (execution.execution_status === 'cancelled') {
        setState({ phase: 'failed', execution, elapsed: Date.now() - startedAt, message: 'The query was cancelled.', sql });
        return;
      }
      return fail(execution.error_message?.trim() || execution.execution_status, execution);
    }
    setState({ phase: 'fetching', execution, startedAt });
    try {
      res = await fetch(`/app/reports/executions/${encodeURIComponent(execution.execution_id)}/data`, { headers: { Accept: 'application/json' } });
    } catch {
      return fail('The result could not be fetched.', execution);
    }
    const rows = (await json(res)) as RowsAnswer | null;
    if (!alive()) return;
    if (!res.ok || !rows) return fail(firstError(rows, res.status), execution);
    setState({ phase: 'done', execution, elapsed: Date.now() - startedAt, rows, sql });
  }, []);

  const cancel = useCallback(async () => {
    setState((s) => (s.phase === 'running' ? { ...s, cancelling: true } : s));
    const id = current.current;
    if (!id) cancelAsked.current = true;
    else await sendCancel(id);
  }, []);

  const elapsed = state.phase === 'running' || state.phase === 'fetching' ? now - state.startedAt : state.phase === 'idle' ? 0 : state.elapsed;
  return { state, elapsed, start, cancel };
}
