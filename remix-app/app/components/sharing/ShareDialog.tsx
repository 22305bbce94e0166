/**
 * Who inside the organization sees a dashboard: nobody but its creator and the admins, all users, all
 * analysts, or chosen groups (POST /dashboards/{id}/share). Posts to the share route's action.
 */
import { useState } from 'react';
import { useFetcher } from 'react-router';
import type { DashboardAttributes } from '../../lib/types';

/** Who sees a dashboard (the API's share_mode). */
export type ShareMode = DashboardAttributes['share_mode'];

const MODES: { value: ShareMode; label: string; hint: string }[] = [
  { value: 'none', label: 'Private', hint: 'Only its creator and the admins.' },
  { value: 'all_users', label: 'All users', hint: 'Everyone in the organization, viewers included.' },
  { value: 'all_analysts', label: 'All analysts', hint: 'Analysts and admins.' },
  { value: 'custom', label: 'Chosen groups', hint: 'Members of the groups below.' },
];

export interface ShareState {
  mode: ShareMode;
  groupIds: string[];
}

export function ShareDialog({ action, state, groups, locked }: { action: string; state: ShareState; groups: { id: string; name: string }[]; locked: boolean }) {
  const fetcher = useFetcher<{ ok: boolean; error?: string; message?: string }>();
  const [mode, setMode] = useState<ShareMode>(state.mode);
  const busy = fetcher.state !== 'idle';
  return (
    <fetcher.Form method="post" action={action} className="card" aria-label="Share with people in the organization" data-testid="share-form">
      <input type="hidden" name="intent" value="share" />
      <h3 className="card__title">People in your organization</h3>
      {locked ? <p className="alert alert--error">This dashboard is locked: unlock it before you change who sees it.</p> : null}
      <div className="choice-list" role="radiogroup" aria-label="Share mode">
        {MODES.map((m) => (
          <label key={m.value} className="check">
            <input
              type="radio"
              name="share_mode"
              value={m.value}
              checked={mode === m.value}
              onChange={() => setMode(m.value)}
              data-testid={`share-${m.value}`}
            />
            <span>
              {m.label}
              <small>{m.hint}</small>
            </span>
          </label>
        ))}
      </div>
      {mode === 'custom' ? (
        <fieldset className="fieldset" style={{ marginTop: 12 }}>
          <legend>Groups</legend>
          {groups.length ? (
            <div className="check-grid">
              {groups.map((g) => (
                <label key={g.id} className="check">
                  <input type="checkbox" name="group" value={g.id} defaultChecked={state.groupIds.includes(g.id)} /> {g.name}
                </label>
              ))}
            </div>
          ) : (
            <p className="muted small">There are no groups you can see.</p>
          )}
        </fieldset>
      ) : null}
      <label className="check" style={{ marginTop: 12 }}>
        <input type="checkbox" name="notify_new_users" />
        <span>
          Notify the people who newly get access
          <small>
            Each person who can open the dashboard after this change but could not before gets an e-mail with a link to it, if this installation has a mail
            server configured; the message after saving says how many e-mails were sent and why any were not. The sharing is saved either way.
          </small>
        </span>
      </label>
      <div className="form-actions">
        <button type="submit" className="button button--primary" disabled={busy || locked} data-testid="share-save">
          {busy ? 'Saving…' : 'Save sharing'}
        </button>
        {fetcher.data?.ok && fetcher.data.message ? (
          <span className="row-ok" role="status" data-testid="share-saved">
            {fetcher.data.message}
          </span>
        ) : null}
      </div>
      {fetcher.data && !fetcher.data.ok ? (
        <p className="row-error" role="alert">
          {fetcher.data.error}
        </p>
      ) : null}
    </fetcher.Form>
  );
}
