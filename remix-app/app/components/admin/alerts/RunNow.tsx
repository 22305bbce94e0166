/**
 * "Run now": runs the alert's SQL on its datasource at once (whatever its schedule) and, when the run
 * has been evaluated, says what it came to: triggered or not, the e-mail sent, or the query's error.
 */
import { useFetcher } from 'react-router';
import type { RunSummary } from '../../../lib/alert-form';
import { RowError } from '../ui';

export type AlertRunAnswer =
  | { intent: 'run'; ok: true; summary: RunSummary }
  | { intent: 'run'; ok: true; pending: true }
  | { intent: 'run'; ok: false; error: string };

export function RunNow() {
  const fetcher = useFetcher<AlertRunAnswer>();
  const busy = fetcher.state !== 'idle';
  const r = busy ? undefined : fetcher.data;
  return (
    <div>
      <fetcher.Form method="post" className="alert-actions">
        <button type="submit" name="intent" value="run" className="button" disabled={busy} data-testid="alert-run">
          {busy ? 'Running…' : 'Run now'}
        </button>
        <span className="muted small">Runs the query now and sends the e-mails its settings ask for.</span>
      </fetcher.Form>
      {r && !r.ok ? <RowError message={r.error} /> : null}
      {r?.ok && 'pending' in r ? (
        <div className="run-result" role="status" data-testid="alert-run-result">
          The run is still going; its result will show in the list of recent runs.
        </div>
      ) : null}
      {r?.ok && 'summary' in r ? (
        <div className={`run-result run-result--${r.summary.tone}`} role="status" data-testid="alert-run-result">
          <strong data-testid="alert-run-headline">{r.summary.headline}</strong>
          {r.summary.error ? <pre data-testid="alert-run-error">{r.summary.error}</pre> : null}
          {r.summary.mail ? <span data-testid="alert-run-mail">{r.summary.mail}</span> : null}
        </div>
      ) : null}
    </div>
  );
}
