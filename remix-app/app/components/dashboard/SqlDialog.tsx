/**
 * A report's SQL, read-only, in a modal dialog above the dashboard: monospace, a copy button, closed by
 * Escape, the close button or a click on the backdrop; focus goes back to `returnFocus` when it closes.
 */
import { useLayoutEffect, useRef, type RefObject } from 'react';
import { createPortal } from 'react-dom';
import { sqlForDisplay } from '../../lib/tile-tools';
import { CopyButton } from '../admin/ui';

export function SqlDialog({
  reportId,
  name,
  sql,
  onClose,
  returnFocus,
}: {
  reportId: string;
  name: string;
  sql: string;
  onClose: () => void;
  returnFocus: RefObject<HTMLElement | null>;
}) {
  const dialog = useRef<HTMLDivElement>(null);
  // A layout effect: Escape works as soon as the dialog is shown (also under Preact).
  useLayoutEffect(() => {
    const opener = returnFocus.current;
    dialog.current?.querySelector<HTMLElement>('[data-autofocus]')?.focus();
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') {
        e.stopPropagation();
        onClose();
      } else if (e.key === 'Tab' && dialog.current) {
        // Keep Tab inside the dialog while it is open.
        const items = [...dialog.current.querySelectorAll<HTMLElement>('button, [tabindex="0"]')];
        const first = items[0];
        const last = items[items.length - 1];
        if (e.shiftKey && document.activeElement === first) {
          e.preventDefault();
          last?.focus();
        } else if (!e.shiftKey && document.activeElement === last) {
          e.preventDefault();
          first?.focus();
        }
      }
    };
    document.addEventListener('keydown', onKey, true);
    return () => {
      document.removeEventListener('keydown', onKey, true);
      opener?.focus();
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);
  const text = sqlForDisplay(sql);
  const titleId = `sql-title-${reportId}`;
  return createPortal(
    <>
      <div className="tile-backdrop" onClick={onClose} aria-hidden="true" />
      <div className="sql-dialog" role="dialog" aria-modal="true" aria-labelledby={titleId} ref={dialog} data-testid="sql-dialog">
        <header className="sql-dialog__header">
          <h2 id={titleId} className="sql-dialog__title">
            SQL of {name}
          </h2>
          <button
            type="button"
            className="tile__tool sql-dialog__close"
            onClick={onClose}
            aria-label="Close"
            title="Close (Esc)"
            data-testid="sql-dialog-close"
          >
            ✕
          </button>
        </header>
        {text ? (
          <pre className="sql-dialog__code" tabIndex={0} aria-label={`SQL of ${name}`} data-testid="sql-dialog-code">
            <code>{text}</code>
          </pre>
        ) : (
          <p className="muted">This report has no SQL.</p>
        )}
        <div className="sql-dialog__actions">
          <span className="muted">Read-only: change the SQL in the report editor.</span>
          <CopyButton text={text} label="Copy SQL" testId="sql-dialog-copy" />
          <button type="button" className="button button--small button--primary" onClick={onClose} data-autofocus>
            Close
          </button>
        </div>
      </div>
    </>,
    document.body,
  );
}
