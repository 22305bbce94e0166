/** "+ New group" on the dashboard list: a shared or personal group for admins and analysts, a personal one for everyone else. */
import { useCallback, useState } from 'react';
import { creatableKinds } from '../../lib/dashboard-groups';
import { GroupForm } from './GroupForm';
import '../../styles/dashboard-groups.css';

export function NewGroupButton({ canManage }: { canManage: boolean }) {
  const [open, setOpen] = useState(false);
  const close = useCallback(() => setOpen(false), []);
  return (
    <div className="new-group">
      <button type="button" className="button button--small" onClick={() => setOpen(true)} disabled={open} data-testid="new-group">
        + New group
      </button>
      {open ? (
        <div className="group-popover">
          <GroupForm kinds={creatableKinds(canManage)} onDone={close} />
        </div>
      ) : null}
    </div>
  );
}
