/**
 * A report's "⋯ More" tool in the analyst app: **Show SQL** (whoever sees the report and gets its SQL
 * from the API) and **Duplicate** (analysts and admins on an unlocked dashboard), which posts to the
 * dashboard's action; the dashboard then reloads with the copy, and an API refusal is shown here.
 */
import { useEffect, useRef, useState } from 'react';
import { useFetcher } from 'react-router';
import type { DuplicateAnswer } from '../../lib/tile-tools';
import { SqlDialog } from './SqlDialog';
import { useMenu } from './useMenu';
import './tile-tools.css';

export function TileMore({
  dashboardId,
  reportId,
  name,
  sql,
  canDuplicate,
}: {
  dashboardId: string;
  reportId: string;
  name: string;
  /** The report's SQL; null: no Show SQL. */
  sql: string | null;
  canDuplicate: boolean;
}) {
  const [showSql, setShowSql] = useState(false);
  const ref = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const { open, setOpen, toggle } = useMenu(ref);
  const fetcher = useFetcher<DuplicateAnswer>();
  const busy = fetcher.state !== 'idle';
  const answer = fetcher.state === 'idle' ? fetcher.data : undefined;
  const copyId = answer?.ok ? answer.copyId : null;
  // Once the dashboard shows the copy, bring it into view.
  useEffect(() => {
    if (copyId) document.querySelector(`[data-report-id="${CSS.escape(copyId)}"]`)?.scrollIntoView({ block: 'nearest', behavior: 'smooth' });
  }, [copyId]);
  if (sql === null && !canDuplicate) return null;
  const duplicate = () => {
    setOpen(false);
    fetcher.submit({ intent: 'duplicate-report', report: reportId }, { method: 'post', action: `/app/dashboards/${encodeURIComponent(dashboardId)}` });
  };
  return (
    <div className="menu tile__menu" ref={ref}>
      <button ref={button} type="button" className="tile__tool" aria-haspopup="menu" aria-expanded={open} onClick={toggle} data-testid="tile-more" title="More">
        ⋯<span className="visually-hidden"> More for {name}</span>
      </button>
      {open ? (
        <div className="menu__panel" role="menu">
          {sql !== null ? (
            <button
              type="button"
              role="menuitem"
              onClick={() => {
                setOpen(false);
                setShowSql(true);
              }}
              data-testid="tile-show-sql"
            >
              Show SQL
            </button>
          ) : null}
          {canDuplicate ? (
            <button type="button" role="menuitem" onClick={duplicate} disabled={busy} data-testid="tile-duplicate">
              Duplicate
            </button>
          ) : null}
        </div>
      ) : null}
      {busy ? (
        <span className="tile__more-status muted" role="status">
          Duplicating…
        </span>
      ) : null}
      {answer && !answer.ok ? (
        <span className="tile__more-status tile__more-error" role="alert" data-testid="tile-duplicate-error">
          {answer.error}
        </span>
      ) : null}
      {showSql && sql !== null ? <SqlDialog reportId={reportId} name={name} sql={sql} onClose={() => setShowSql(false)} returnFocus={button} /> : null}
    </div>
  );
}
