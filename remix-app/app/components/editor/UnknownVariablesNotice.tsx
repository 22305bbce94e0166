/**
 * Under the SQL: the variables that are not filters of the dashboard. The query runs with them unset
 * (every row passes their condition) and saving creates each as a text filter on the dashboard, so a
 * misspelt variable is named here — with the filter it probably meant — before the analyst runs or saves.
 */
import type { UnknownVariable } from '../../lib/editor-variables';

/** The dashboard name meaning “a new dashboard, not named yet”. */
const NEW = '';

interface Props {
  unknown: UnknownVariable[];
  filters: string[];
  /** The dashboard the report goes on; null: none picked yet (the standalone editor). */
  dashboardName: string | null;
}

export function UnknownVariablesNotice({ unknown, filters, dashboardName }: Props) {
  if (unknown.length === 0) return null;
  const names = unknown.map((u) => `{${u.name}}`);
  const list = names.length === 1 ? names[0] : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
  const one = unknown.length === 1;
  return (
    <div className="notice notice--warning unknown-variables" role="status" data-testid="unknown-variables">
      <p>
        <strong>{list}</strong> {one ? 'is not a filter' : 'are not filters'} of{' '}
        {dashboardName === null ? 'a dashboard yet (pick the one to save onto)' : dashboardName === NEW ? 'the new dashboard' : `“${dashboardName}”`}. Until{' '}
        {one ? 'it has' : 'they have'} a value, {one ? 'its condition lets' : 'their conditions let'} every row through; saving creates {one ? 'it' : 'them'} as{' '}
        {one ? 'a text filter' : 'text filters'} on the dashboard.
      </p>
      <ul>
        {unknown
          .filter((u) => u.closest)
          .map((u) => (
            <li key={u.name} data-testid={`unknown-variable-${u.name}`}>
              Did you mean <code>{`{${u.closest}}`}</code> instead of <code>{`{${u.name}}`}</code>?
            </li>
          ))}
      </ul>
      {dashboardName === null ? null : filters.length > 0 ? (
        <p className="muted small">The dashboard’s filters: {filters.map((f) => `{${f}}`).join(', ')}.</p>
      ) : (
        <p className="muted small">The dashboard has no filters yet.</p>
      )}
    </div>
  );
}
