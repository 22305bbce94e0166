/**
 * A datasource's schemas → tables → columns with their data types, loaded from
 * `/app/datasources/{id}/schema` (API schema call + data server). In the report editor a click inserts
 * the table or column name into the SQL.
 */
import { useEffect, useMemo, useState } from 'react';
import { useFetcher } from 'react-router';
import type { SchemaAnswer, SchemaData } from '../../lib/editor-completion';

interface Props {
  datasourceId: string;
  /** Schema searched by default: its tables are inserted without the schema name. */
  defaultSchema?: string | null;
  onInsert?: (text: string) => void;
  /** Reports the loaded schema (for completion). */
  onLoaded?: (schema: SchemaData | null) => void;
  /** Admins may reload the schema from the database. */
  canRefresh?: boolean;
}

const quoteIfNeeded = (name: string) => (/^[a-z_][a-z0-9_]*$/.test(name) ? name : `"${name.replace(/"/g, '""')}"`);

export function SchemaBrowser({ datasourceId, defaultSchema, onInsert, onLoaded, canRefresh }: Props) {
  const fetcher = useFetcher<SchemaAnswer>();
  const refresher = useFetcher<{ ok: boolean; message: string }>();
  const [open, setOpen] = useState<Set<string>>(new Set());
  const [query, setQuery] = useState('');
  const url = `/app/datasources/${encodeURIComponent(datasourceId)}/schema`;

  useEffect(() => {
    fetcher.load(url);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [url]);

  const answer = fetcher.data;
  useEffect(() => {
    if (!onLoaded) return;
    onLoaded(answer?.status === 'ok' ? answer.schema : null);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [answer]);

  // After a reload was started, fetch the schema again a little later.
  useEffect(() => {
    if (refresher.state !== 'idle' || !refresher.data?.ok) return;
    const timer = setTimeout(() => fetcher.load(url), 4000);
    return () => clearTimeout(timer);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [refresher.state, refresher.data]);

  const schemas = useMemo(() => {
    if (answer?.status !== 'ok') return [];
    const q = query.trim().toLowerCase();
    if (!q) return answer.schema.schemas;
    return answer.schema.schemas
      .map((s) => ({
        ...s,
        tables: s.tables.filter((t) => t.name.toLowerCase().includes(q) || t.columns.some((c) => c.name.toLowerCase().includes(q))),
      }))
      .filter((s) => s.tables.length > 0);
  }, [answer, query]);

  const toggle = (key: string) =>
    setOpen((prev) => {
      const next = new Set(prev);
      if (next.has(key)) next.delete(key);
      else next.add(key);
      return next;
    });
  const single = answer?.status === 'ok' && answer.schema.schemas.length === 1;
  const expanded = (key: string) => open.has(key) !== (single && !key.includes('.')) || (query.trim() !== '' && !key.includes('.'));

  return (
    <section className="schema-browser" aria-label="Schema browser" data-testid="schema-browser">
      <header className="schema-browser__head">
        <h3>Schema</h3>
        {canRefresh ? (
          <refresher.Form method="post" action={url}>
            <button
              type="submit"
              className="button button--ghost button--small"
              disabled={refresher.state !== 'idle'}
              title="Reload the schema from the database"
            >
              {refresher.state !== 'idle' ? 'Reloading…' : 'Reload'}
            </button>
          </refresher.Form>
        ) : null}
      </header>
      {refresher.data?.message ? <p className={refresher.data.ok ? 'muted small' : 'field__error'}>{refresher.data.message}</p> : null}
      {answer?.status === 'ok' ? (
        <input
          className="schema-browser__search"
          type="search"
          placeholder="Find a table or column"
          value={query}
          onChange={(e) => setQuery(e.target.value)}
          aria-label="Find a table or column"
        />
      ) : null}
      {!answer || (fetcher.state === 'loading' && !answer) ? (
        <p className="muted small" role="status">
          Loading the schema…
        </p>
      ) : answer.status === 'unavailable' ? (
        <p className="notice small" data-testid="schema-unavailable">
          {answer.message}
        </p>
      ) : answer.status === 'error' ? (
        <p className="field__error" role="alert" data-testid="schema-error">
          {answer.message}
        </p>
      ) : schemas.length === 0 ? (
        <p className="muted small">{query ? 'Nothing matches.' : 'This datasource shows no tables.'}</p>
      ) : (
        <ul className="schema-tree" role="tree">
          {schemas.map((s) => (
            <li key={s.name} role="treeitem" aria-expanded={expanded(s.name)}>
              <button type="button" className="schema-tree__node schema-tree__node--schema" onClick={() => toggle(s.name)}>
                <span className="schema-tree__caret" aria-hidden="true">
                  {expanded(s.name) ? '▾' : '▸'}
                </span>
                {s.name} <span className="muted">{s.tables.length}</span>
              </button>
              {expanded(s.name) ? (
                <ul role="group">
                  {s.tables.map((tbl) => {
                    const key = `${s.name}.${tbl.name}`;
                    const name = s.name === defaultSchema ? quoteIfNeeded(tbl.name) : `${quoteIfNeeded(s.name)}.${quoteIfNeeded(tbl.name)}`;
                    return (
                      <li
                        key={key}
                        role="treeitem"
                        aria-expanded={open.has(key) || (query !== '' && tbl.columns.some((c) => c.name.toLowerCase().includes(query.toLowerCase())))}
                      >
                        <div className="schema-tree__row">
                          <button type="button" className="schema-tree__node" onClick={() => toggle(key)} aria-label={`Columns of ${tbl.name}`}>
                            <span className="schema-tree__caret" aria-hidden="true">
                              {open.has(key) ? '▾' : '▸'}
                            </span>
                          </button>
                          <button
                            type="button"
                            className="schema-tree__name"
                            data-testid={`schema-table-${tbl.name}`}
                            onClick={() => (onInsert ? onInsert(name) : toggle(key))}
                            title={onInsert ? `Insert ${name}` : undefined}
                          >
                            {tbl.name}
                          </button>
                          {typeof tbl.row_count === 'number' ? <span className="muted small">{tbl.row_count.toLocaleString('en')} rows</span> : null}
                        </div>
                        {open.has(key) || (query !== '' && tbl.columns.some((c) => c.name.toLowerCase().includes(query.toLowerCase()))) ? (
                          <ul role="group" className="schema-tree__columns">
                            {tbl.columns.map((c) => (
                              <li key={c.name} role="treeitem">
                                <button
                                  type="button"
                                  className="schema-tree__name schema-tree__name--column"
                                  onClick={() => onInsert?.(quoteIfNeeded(c.name))}
                                  title={c.db_type ?? undefined}
                                >
                                  {c.name}
                                </button>
                                <span className="schema-tree__type">{c.data_type ?? c.db_type}</span>
                              </li>
                            ))}
                          </ul>
                        ) : null}
                      </li>
                    );
                  })}
                </ul>
              ) : null}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
