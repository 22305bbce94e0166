/**
 * The standalone editor's "Save onto" picker: one of the analyst's dashboards (locked ones cannot take
 * a new report), or a new dashboard with the name typed next to it.
 */
import { FieldErrors } from './Field';

export const NEW_DASHBOARD = '__new__';

interface Props {
  dashboards: { id: string; name: string; locked: boolean }[];
  target: string;
  setTarget: (v: string) => void;
  newName: string;
  setNewName: (v: string) => void;
  errors: Record<string, string[]>;
}

export function SaveTarget({ dashboards, target, setTarget, newName, setNewName, errors }: Props) {
  return (
    <span className="save-target">
      <label>
        <span className="field__label">Save onto</span>
        <select value={target} onChange={(e) => setTarget(e.currentTarget.value)} data-testid="save-target" aria-invalid={Boolean(errors.dashboard)}>
          <option value="">Pick a dashboard</option>
          <option value={NEW_DASHBOARD}>New dashboard…</option>
          {dashboards.map((d) => (
            <option key={d.id} value={d.id} disabled={d.locked}>
              {d.name}
              {d.locked ? ' (locked)' : ''}
            </option>
          ))}
        </select>
      </label>
      {target === NEW_DASHBOARD ? (
        <label>
          <span className="visually-hidden">New dashboard name</span>
          <input value={newName} onChange={(e) => setNewName(e.currentTarget.value)} placeholder="New dashboard name" data-testid="save-target-name" />
        </label>
      ) : null}
      <FieldErrors name="dashboard" errors={errors} />
    </span>
  );
}
