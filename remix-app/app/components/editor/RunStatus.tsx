/** The status line under the SQL editor: live progress with elapsed time and Stop, then the outcome. */
import { duration, errorPosition, formatElapsed, statusLabel } from '../../lib/editor-execution';
import type { RunState } from './useQueryRun';

interface Props {
  state: RunState;
  elapsed: number;
  onCancel(): void;
  onGoTo?(line: number, column: number): void;
}

export function RunStatus({ state, elapsed, onCancel, onGoTo }: Props) {
  if (state.phase === 'idle') {
    return (
      <p className="run-status muted" data-testid="run-status" data-phase="idle">
        Run the query (Ctrl+Enter, ⌘+Enter on a Mac) to see its rows.
      </p>
    );
  }
  if (state.phase === 'running' || state.phase === 'fetching') {
    const status = state.phase === 'fetching' ? 'Fetching the rows' : statusLabel(state.execution?.execution_status ?? 'starting');
    return (
      <div
        className="run-status run-status--active"
        data-testid="run-status"
        data-phase={state.phase}
        data-status={state.execution?.execution_status ?? 'starting'}
        role="status"
        aria-live="polite"
      >
        <span className="spinner" aria-hidden="true" />
        <span className="run-status__text" data-testid="run-status-text">
          {status}…
        </span>
        <span className="run-status__elapsed" data-testid="run-elapsed">
          {formatElapsed(elapsed)}
        </span>
        {state.phase === 'running' ? (
          <button type="button" className="button button--small button--danger" onClick={onCancel} disabled={state.cancelling} data-testid="run-cancel">
            {state.cancelling ? 'Stopping…' : 'Stop'}
          </button>
        ) : null}
      </div>
    );
  }
  if (state.phase === 'failed') {
    const cancelled = state.execution?.execution_status === 'cancelled';
    const where = cancelled ? null : errorPosition(state.message, state.sql);
    return (
      <div
        className={`run-status ${cancelled ? 'run-status--cancelled' : 'run-status--error'}`}
        data-testid="run-status"
        data-phase="failed"
        data-status={state.execution?.execution_status ?? 'refused'}
        role={cancelled ? 'status' : 'alert'}
      >
        <p className="run-status__title">
          {cancelled ? 'Cancelled' : state.execution ? statusLabel(state.execution.execution_status) : 'The query could not be run'}
        </p>
        {cancelled ? null : (
          <pre className="run-status__message" data-testid="run-error">
            {state.message}
          </pre>
        )}
        <p className="muted small">
          after {formatElapsed(state.elapsed)}
          {where && onGoTo ? (
            <>
              {' · '}
              <button type="button" className="link-button" onClick={() => onGoTo(where.line, where.column)}>
                go to line {where.line}
              </button>
            </>
          ) : null}
        </p>
      </div>
    );
  }
  const rows = state.rows;
  const took = duration(state.execution);
  return (
    <p className="run-status run-status--done" data-testid="run-status" data-phase="done" data-status="success">
      <span className="run-status__ok" aria-hidden="true">
        ✓
      </span>
      {rows.status === 'ok' ? (
        <span data-testid="run-row-count">
          {rows.rowCount.toLocaleString('en')} {rows.rowCount === 1 ? 'row' : 'rows'}
          {rows.truncated ? ` (in pages of ${rows.rows.length.toLocaleString('en')})` : ''}
        </span>
      ) : rows.status === 'empty' ? (
        <span data-testid="run-row-count">No rows</span>
      ) : (
        <span className="field__error">{rows.message}</span>
      )}
      <span className="muted">
        {' · '}query {formatElapsed(took ?? state.elapsed)}
        {rows.status === 'ok' && rows.dataTimestamp
          ? ` · computed ${new Date(rows.dataTimestamp).toLocaleTimeString('en', { hour: '2-digit', minute: '2-digit', second: '2-digit' })}`
          : ''}
      </span>
    </p>
  );
}
