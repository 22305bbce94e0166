/** Personal settings: where the user is signed in, and "Sign out everywhere else". */
import { Form } from 'react-router';
import { browserOf, type AccountAnswer } from '../../lib/account';
import { formatDateTime } from '../admin/ui';
import { FormMessages } from './FormMessages';

export interface SessionRow {
  id: string;
  current: boolean;
  user_agent: string | null;
  created_at: string;
  /** Updated at most once a minute while the session is used; null until its first request. */
  last_seen_at: string | null;
  expires_at: string;
}

export function SessionList({ sessions, answer, busy }: { sessions: SessionRow[]; answer: AccountAnswer | undefined; busy: boolean }) {
  const mine = answer?.intent === 'sessions' ? answer : undefined;
  const others = sessions.filter((s) => !s.current).length;
  return (
    <div className="card">
      <table className="data-table" data-testid="account-sessions">
        <thead>
          <tr>
            <th>Browser</th>
            <th>Signed in</th>
            <th>Last seen</th>
            <th>Ends</th>
          </tr>
        </thead>
        <tbody>
          {sessions.map((s) => (
            <tr key={s.id} data-testid="account-session">
              <td title={s.user_agent ?? undefined}>
                {browserOf(s.user_agent)} {s.current ? <span className="pill pill--ok">This browser</span> : null}
              </td>
              <td>{formatDateTime(s.created_at)}</td>
              <td data-testid="account-session-last-seen">{s.last_seen_at ? formatDateTime(s.last_seen_at) : '—'}</td>
              <td>{formatDateTime(s.expires_at)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <Form method="post" className="form-actions">
        <input type="hidden" name="intent" value="sessions" />
        <button type="submit" className="button button--danger" disabled={busy || others === 0} data-testid="account-end-others">
          Sign out all other sessions{others ? ` (${others})` : ''}
        </button>
        <FormMessages answer={mine} fields={[]} testId="account-sessions" />
      </Form>
    </div>
  );
}
