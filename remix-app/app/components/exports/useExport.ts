/**
 * The browser side of the app's exports. `start` runs a PDF/PNG/CSV job through the app's routes
 * (start, poll until success or error, then download the file); `downloadData` fetches a dashboard's
 * data file (204: nothing to download). The state says what to show next to the menu.
 */
import type { ApiSchema } from '@cairn/client';
import { useCallback, useEffect, useRef, useState } from 'react';
import {
  dataFileName,
  dispositionFileName,
  errorText,
  EXPORT_TIMEOUT_MS,
  formatLabel,
  isPending,
  nextPollDelay,
  skippedNote,
  type DataFormat,
  type ExportFormat,
  type ExportState,
  type JobStatus,
} from '../../lib/exports';

export interface JobRequest {
  kind: 'dashboard' | 'report';
  id: string;
  format: ExportFormat;
  parameters?: unknown;
  unlimited?: boolean;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Saves a URL (same origin) as a download. */
function saveUrl(href: string, name?: string) {
  const a = document.createElement('a');
  a.href = href;
  a.download = name ?? '';
  a.style.display = 'none';
  document.body.appendChild(a);
  a.click();
  a.remove();
}

export function useExport() {
  const [state, setState] = useState<ExportState>({ phase: 'idle' });
  const [note, setNote] = useState<string | null>(null);
  const run = useRef(0);
  useEffect(
    () => () => {
      run.current++;
    },
    [],
  );
  const busy = state.phase === 'starting' || state.phase === 'waiting';

  const start = useCallback(async (req: JobRequest) => {
    const mine = ++run.current;
    const label = formatLabel(req.format, req.unlimited);
    const live = () => run.current === mine;
    setNote(null);
    setState({ phase: 'starting', label });
    try {
      const res = await fetch('/app/exports', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
        body: JSON.stringify(req),
      });
      const text = await res.text();
      if (!live()) return;
      if (!res.ok) return setState({ phase: 'failed', label, message: errorText(res.status, text) });
      const job = JSON.parse(text) as ApiSchema<'ExportJobStarted'>;
      setState({ phase: 'waiting', label, jobId: job.job_id, reused: job.reused });
      let status = job.job_status;
      let message: string | undefined;
      const until = Date.now() + EXPORT_TIMEOUT_MS;
      for (let attempt = 0; isPending(status); attempt++) {
        if (Date.now() > until) return setState({ phase: 'failed', label, message: 'It took too long. Please try again later.' });
        await sleep(nextPollDelay(attempt));
        if (!live()) return;
        const poll = await fetch(`/app/exports/${encodeURIComponent(job.job_id)}`, { headers: { Accept: 'application/json' } });
        const body = await poll.text();
        if (!live()) return;
        if (!poll.ok) return setState({ phase: 'failed', label, message: errorText(poll.status, body) });
        ({ job_status: status, error_message: message } = JSON.parse(body) as { job_status: JobStatus; error_message?: string });
      }
      if (status === 'error') return setState({ phase: 'failed', label, message: message ?? 'The export failed.' });
      saveUrl(`/app/exports/${encodeURIComponent(job.job_id)}/file`);
      setState({ phase: 'done', label, reused: job.reused });
    } catch {
      if (live()) setState({ phase: 'failed', label, message: 'The app could not be reached. Please try again.' });
    }
  }, []);

  const downloadData = useCallback(async (dashboardId: string, dashboardName: string, format: DataFormat, parameters?: unknown) => {
    const mine = ++run.current;
    const label = formatLabel(format);
    const live = () => run.current === mine;
    setNote(null);
    setState({ phase: 'starting', label });
    try {
      const q = new URLSearchParams({ format });
      if (parameters !== undefined) q.set('parameters', JSON.stringify(parameters));
      const res = await fetch(`/app/dashboards/${encodeURIComponent(dashboardId)}/download?${q.toString()}`);
      if (!live()) return;
      if (res.status === 204) return setState({ phase: 'empty', label });
      if (!res.ok) return setState({ phase: 'failed', label, message: errorText(res.status, await res.text()) });
      const blob = await res.blob();
      if (!live()) return;
      const href = URL.createObjectURL(blob);
      saveUrl(href, dispositionFileName(res.headers.get('Content-Disposition'), dataFileName(dashboardName, format)));
      setTimeout(() => URL.revokeObjectURL(href), 60_000);
      setNote(skippedNote(res.headers.get('X-Cairn-Skipped')));
      setState({ phase: 'done', label, reused: false });
    } catch {
      if (live()) setState({ phase: 'failed', label, message: 'The app could not be reached. Please try again.' });
    }
  }, []);

  const dismiss = useCallback(() => {
    run.current++;
    setNote(null);
    setState({ phase: 'idle' });
  }, []);

  return { state, note, busy, start, downloadData, dismiss };
}
