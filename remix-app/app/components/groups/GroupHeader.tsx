/**
 * A dashboard group's heading on the dashboard list: name, count, a Personal badge, and for those
 * allowed to (see canEditGroup) Edit and Delete; for Manage Dashboards also Move up / Move down,
 * which send the whole new order to the API's sort call.
 */
import { useCallback, useState } from 'react';
import { useFetcher } from 'react-router';
import type { GroupActionResult } from '../../routes/app.dashboard-groups';
import { canEditGroup, moveGroup, type GroupSummary } from '../../lib/dashboard-groups';
import { GroupForm } from './GroupForm';
import { FormErrors } from './FieldErrors';
import '../../styles/dashboard-groups.css';

interface Props {
  group: GroupSummary;
  count: number;
  /** Every group id in the list's order (for the sort call). */
  order: string[];
  canManage: boolean;
}

export function GroupHeader({ group, count, order, canManage }: Props) {
  const [editing, setEditing] = useState(false);
  const fetcher = useFetcher<GroupActionResult>();
  const close = useCallback(() => setEditing(false), []);
  const editable = canEditGroup(group, canManage);
  const busy = fetcher.state !== 'idle';
  const errors = fetcher.state === 'idle' && fetcher.data && 'errors' in fetcher.data ? fetcher.data.errors : null;
  const move = (direction: -1 | 1) => {
    const ids = moveGroup(order, group.id, direction);
    if (!ids) return;
    const form = new FormData();
    form.set('intent', 'sort');
    for (const id of ids) form.append('ids', id);
    fetcher.submit(form, { method: 'post', action: '/app/dashboard-groups' });
  };
  const remove = () => {
    if (!window.confirm(`Delete the group “${group.name}”? Its dashboards stay.`)) return;
    fetcher.submit({ intent: 'delete', id: group.id }, { method: 'post', action: '/app/dashboard-groups' });
  };
  const at = order.indexOf(group.id);
  return (
    <>
      <div className="dashboard-group__head">
        <h2 className="dashboard-group__title" id={`group-${group.id}`}>
          {group.name} <span className="dashboard-group__count">{count}</span>
          {group.personal ? (
            <span className="badge" data-testid="group-personal-badge">
              Personal
            </span>
          ) : null}
        </h2>
        {editable && !editing ? (
          <div className="dashboard-group__actions">
            {canManage ? (
              <>
                <button type="button" onClick={() => move(-1)} disabled={busy || at <= 0} aria-label={`Move ${group.name} up`} data-testid="group-move-up">
                  ↑
                </button>
                <button
                  type="button"
                  onClick={() => move(1)}
                  disabled={busy || at < 0 || at >= order.length - 1}
                  aria-label={`Move ${group.name} down`}
                  data-testid="group-move-down"
                >
                  ↓
                </button>
              </>
            ) : null}
            <button type="button" onClick={() => setEditing(true)} aria-label={`Edit ${group.name}`} data-testid="group-edit">
              Edit
            </button>
            <button type="button" className="is-danger" onClick={remove} disabled={busy} aria-label={`Delete ${group.name}`} data-testid="group-delete">
              Delete
            </button>
          </div>
        ) : null}
      </div>
      {errors ? <FormErrors errors={errors} shown={[]} /> : null}
      {editing ? <GroupForm group={group} onDone={close} /> : null}
    </>
  );
}
