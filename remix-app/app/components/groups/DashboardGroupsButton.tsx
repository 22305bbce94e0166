/**
 * "Groups…" on a dashboard card: a small dialog of checkboxes, one per group the user may change
 * (canEditGroup), to put the dashboard into groups or take it out. Saving sends only the ticks;
 * /app/dashboard-groups reads the current members from the API and patches the groups that change.
 */
import { useEffect, useRef, useState } from 'react';
import { useFetcher } from 'react-router';
import type { GroupActionResult } from '../../routes/app.dashboard-groups';
import { canEditGroup, type GroupSummary } from '../../lib/dashboard-groups';
import { useDismiss } from '../../lib/use-dismiss';
import { FormErrors } from './FieldErrors';
import '../../styles/dashboard-groups.css';

interface Props {
  dashboard: { id: string; name: string };
  groups: GroupSummary[];
  canManage: boolean;
}

export function DashboardGroupsButton({ dashboard, groups, canManage }: Props) {
  const [open, setOpen] = useState(false);
  const ref = useRef<HTMLDivElement>(null);
  useDismiss(open, ref, () => setOpen(false));
  const editable = groups.filter((g) => canEditGroup(g, canManage));
  if (!editable.length) return null;
  return (
    <div className={`dashboard-tile__groups${open ? ' is-open' : ''}`} ref={ref}>
      <button type="button" onClick={() => setOpen(!open)} aria-expanded={open} aria-label={`Groups of ${dashboard.name}`} data-testid="dashboard-card-groups">
        Groups…
      </button>
      {open ? <GroupsDialog dashboard={dashboard} groups={editable} onClose={() => setOpen(false)} /> : null}
    </div>
  );
}

function GroupsDialog({ dashboard, groups, onClose }: { dashboard: { id: string; name: string }; groups: GroupSummary[]; onClose: () => void }) {
  const fetcher = useFetcher<GroupActionResult>();
  const result = fetcher.state === 'idle' ? fetcher.data : undefined;
  useEffect(() => {
    if (result?.ok) onClose();
  }, [result, onClose]);
  return (
    <div className="group-popover group-popover--card" role="dialog" aria-label={`Groups of ${dashboard.name}`} data-testid="dashboard-groups-dialog">
      <fetcher.Form method="post" action="/app/dashboard-groups">
        <input type="hidden" name="intent" value="members" />
        <input type="hidden" name="dashboard" value={dashboard.id} />
        <fieldset className="group-form__list">
          <legend className="field__label">Groups of “{dashboard.name}”</legend>
          {groups.map((g) => (
            <label key={g.id} className="group-form__check">
              <input type="hidden" name="editable" value={g.id} />
              <input type="checkbox" name="groups" value={g.id} defaultChecked={g.dashboardIds.includes(dashboard.id)} data-testid="dashboard-group-check" />
              {g.name}
              {g.personal ? <span className="badge">Personal</span> : null}
            </label>
          ))}
        </fieldset>
        {result && 'errors' in result ? <FormErrors errors={result.errors} shown={[]} /> : null}
        <div className="form-actions">
          <button type="submit" className="button button--primary button--small" disabled={fetcher.state !== 'idle'} data-testid="dashboard-groups-save">
            Save
          </button>
          <button type="button" className="button button--ghost button--small" onClick={onClose}>
            Cancel
          </button>
        </div>
      </fetcher.Form>
    </div>
  );
}
