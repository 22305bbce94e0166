/**
 * Buttons that insert the dashboard's filter variables (and the built-ins timerange and aggregation)
 * and SQL snippets at the cursor. A selected expression becomes the filtered column.
 */
import { useState } from 'react';
import { builtInSnippets, snippetCall, variableSnippet, type SnippetInfo, type VariableInfo } from '../../lib/editor-completion';

interface Props {
  variables: VariableInfo[];
  snippets: SnippetInfo[];
  /** The selected SQL text, used as the column of a condition. */
  selectedText(): string;
  onInsert(text: string): void;
}

export function InsertBar({ variables, snippets, selectedText, onInsert }: Props) {
  const [showBuiltIns, setShowBuiltIns] = useState(false);
  const column = () => selectedText().trim() || 'column';
  return (
    <section className="insert-bar" aria-label="Insert into the SQL">
      <h3>Filter variables</h3>
      <p className="muted small">Select a column in the SQL first to filter it.</p>
      <ul className="insert-bar__list" data-testid="insert-variables">
        {variables.map((v) => (
          <li key={v.name}>
            <button
              type="button"
              className="insert-chip"
              title={v.detail}
              onClick={() => onInsert(variableSnippet(v, column()))}
              data-testid={`insert-variable-${v.name}`}
            >
              <code>{v.aggregation ? `:${v.name}` : `=${v.name}`}</code>
            </button>
            {v.range ? (
              <>
                <button
                  type="button"
                  className="insert-chip insert-chip--small"
                  title="Start of the range as a value"
                  onClick={() => onInsert(`{${v.name}.start}`)}
                >
                  .start
                </button>
                <button
                  type="button"
                  className="insert-chip insert-chip--small"
                  title="End of the range as a value"
                  onClick={() => onInsert(`{${v.name}.end}`)}
                >
                  .end
                </button>
              </>
            ) : null}
          </li>
        ))}
      </ul>
      <h3>SQL snippets</h3>
      {snippets.length === 0 ? <p className="muted small">No snippets yet; create them in the dashboard’s edit mode.</p> : null}
      <ul className="insert-bar__list" data-testid="insert-snippets">
        {snippets.map((s) => (
          <li key={s.name}>
            <button
              type="button"
              className="insert-chip"
              title={s.description ?? undefined}
              onClick={() => onInsert(snippetCall(s))}
              data-testid={`insert-snippet-${s.name}`}
            >
              <code>
                [{s.name}
                {s.params.length ? `(${s.params.join(', ')})` : ''}]
              </code>
            </button>
          </li>
        ))}
      </ul>
      <button type="button" className="link-button small" onClick={() => setShowBuiltIns((x) => !x)} aria-expanded={showBuiltIns}>
        {showBuiltIns ? 'Hide' : 'Show'} built-in snippets
      </button>
      {showBuiltIns ? (
        <ul className="insert-bar__list">
          {builtInSnippets().map((s) => (
            <li key={s.name}>
              <button type="button" className="insert-chip" onClick={() => onInsert(`[${s.name}]`)}>
                <code>[{s.name}]</code>
              </button>
            </li>
          ))}
        </ul>
      ) : null}
    </section>
  );
}
