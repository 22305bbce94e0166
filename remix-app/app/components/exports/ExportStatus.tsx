/** The line next to a download menu: progress ("Preparing PDF…"), the result, or the failure with a dismiss button. */
import { exportMessage, type ExportState } from '../../lib/exports';
import './exports.css';

export function ExportStatus({ state, note, onDismiss, testId }: { state: ExportState; note?: string | null; onDismiss: () => void; testId: string }) {
  const message = exportMessage(state);
  if (!message) return null;
  const failed = state.phase === 'failed';
  const busy = state.phase === 'starting' || state.phase === 'waiting';
  return (
    <span className={`export-status${failed ? ' export-status--error' : ''}`} role={failed ? 'alert' : 'status'} data-testid={testId} data-phase={state.phase}>
      {busy ? <span className="spinner" aria-hidden="true" /> : null}
      {message}
      {note ? <span className="export-status__note"> {note}</span> : null}
      {!busy ? (
        <button type="button" className="export-status__close" onClick={onDismiss} aria-label="Dismiss">
          ×
        </button>
      ) : null}
    </span>
  );
}
