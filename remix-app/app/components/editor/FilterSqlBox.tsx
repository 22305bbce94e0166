/**
 * A dropdown filter's options query in the filter form: the reports' SQL editor (CodeMirror with the
 * datasource's dialect, `{…}` variable completion, Ctrl/⌘+Enter), Run on the chosen datasource with the
 * dashboard's filters at their defaults, and a preview of the options the result gives (first column
 * the values, second the labels), as the filter bar will show them.
 */
import { lazy, Suspense, useEffect, useMemo, useRef, useState } from 'react';
import { optionsFrom } from '../../lib/dashboard-status';
import { dialectFor, editorVariables } from '../../lib/editor-completion';
import { errorPosition } from '../../lib/editor-execution';
import { RunStatus } from './RunStatus';
import type { SqlEditorHandle } from './SqlEditor';
import { useQueryRun } from './useQueryRun';

const SqlEditor = lazy(() => import('./SqlEditor'));

interface Props {
  value: string;
  onChange(value: string): void;
  datasource: { id: string; name: string; database_type?: string } | null;
  dashboardId: string;
  /** The dashboard's filters (a child dropdown's query uses its parent's variable). */
  variables: { variable_name: string; display_name?: string | null; control_type: string }[];
}

const SHOWN = 50;

export function FilterSqlBox({ value, onChange, datasource, dashboardId, variables }: Props) {
  const [mounted, setMounted] = useState(false);
  useEffect(() => setMounted(true), []);
  const run = useQueryRun();
  const editor = useRef<SqlEditorHandle | null>(null);
  const vars = useMemo(() => editorVariables(variables), [variables]);
  const running = run.state.phase === 'running' || run.state.phase === 'fetching';
  const start = () => {
    if (!datasource || !value.trim()) return;
    void run.start(datasource.id, value, {}, dashboardId);
  };
  const rows = run.state.phase === 'done' && run.state.rows.status === 'ok' ? run.state.rows : null;
  const options = rows ? optionsFrom({ fields: rows.fields, rows: rows.rows }) : null;
  const errorLine = run.state.phase === 'failed' ? (errorPosition(run.state.message, run.state.sql)?.line ?? null) : null;
  return (
    <div className="filter-sql" data-testid="filter-sql">
      <span className="field__label">SQL</span>
      <div className="sql-box sql-box--small">
        {mounted ? (
          <Suspense fallback={<textarea className="sql-fallback" readOnly value={value} aria-label="SQL (loading the editor)" />}>
            <SqlEditor
              value={value}
              onChange={onChange}
              dialect={dialectFor(datasource?.database_type)}
              namespace={{}}
              variables={vars}
              snippets={[]}
              onRun={start}
              errorLine={errorLine}
              label="Options SQL"
              handle={editor}
            />
          </Suspense>
        ) : (
          <textarea className="sql-fallback" readOnly value={value} aria-label="SQL (loading the editor)" />
        )}
      </div>
      <p className="field__hint">The first column gives the values, the second (optional) their labels.</p>
      <div className="filter-sql__bar">
        <button
          type="button"
          className="button button--small"
          onClick={start}
          disabled={!datasource || running || !value.trim()}
          data-testid="filter-sql-run"
          title="Ctrl+Enter / ⌘+Enter"
        >
          ▶ Run
        </button>
        {!datasource ? <span className="muted small">Pick the datasource to run the query on.</span> : null}
      </div>
      {run.state.phase !== 'idle' ? (
        <RunStatus state={run.state} elapsed={run.elapsed} onCancel={() => void run.cancel()} onGoTo={(l, c) => editor.current?.goTo(l, c)} />
      ) : null}
      {options ? (
        <div className="filter-sql__preview" data-testid="filter-sql-preview">
          <p className="muted small">
            {options.length.toLocaleString('en')} {options.length === 1 ? 'option' : 'options'}
            {options.length > SHOWN ? ` (the first ${SHOWN} shown)` : ''}
            {rows && rows.rowCount > rows.rows.length ? `; the filter takes the first 10,000 rows of ${rows.rowCount.toLocaleString('en')}` : ''}
          </p>
          <ul className="filter-sql__options">
            {options.slice(0, SHOWN).map((o) => (
              <li key={o.value} data-testid="filter-sql-option">
                {o.label === o.value ? (
                  o.value
                ) : (
                  <>
                    {o.label} <code className="muted">{o.value}</code>
                  </>
                )}
              </li>
            ))}
          </ul>
        </div>
      ) : run.state.phase === 'done' && run.state.rows.status === 'empty' ? (
        <p className="muted small" data-testid="filter-sql-preview">
          The query returned no rows: the dropdown would have no options.
        </p>
      ) : null}
    </div>
  );
}
