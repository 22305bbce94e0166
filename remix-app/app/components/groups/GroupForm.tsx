/**
 * The fields of a dashboard group (name, description; on create also shared or personal), posted to
 * /app/dashboard-groups. The API's errors show under their field; others above the buttons.
 */
import { useEffect } from 'react';
import { useFetcher } from 'react-router';
import type { GroupActionResult } from '../../routes/app.dashboard-groups';
import type { GroupSummary } from '../../lib/dashboard-groups';
import { FieldErrors, FormErrors } from './FieldErrors';

interface Props {
  /** Absent: a new group. */
  group?: GroupSummary;
  /** Which kinds a new group may be (see creatableKinds). */
  kinds?: ('shared' | 'personal')[];
  onDone: () => void;
}

export function GroupForm({ group, kinds = ['shared'], onDone }: Props) {
  const fetcher = useFetcher<GroupActionResult>();
  const result = fetcher.state === 'idle' ? fetcher.data : undefined;
  const errors = result && 'errors' in result ? result.errors : {};
  useEffect(() => {
    if (result?.ok) onDone();
  }, [result, onDone]);
  const prefix = group ? `group-${group.id}` : 'new-group';
  return (
    <fetcher.Form method="post" action="/app/dashboard-groups" className="group-form" data-testid={group ? 'group-edit-form' : 'new-group-form'}>
      <input type="hidden" name="intent" value={group ? 'update' : 'create'} />
      {group ? <input type="hidden" name="id" value={group.id} /> : null}
      <label className="field" htmlFor={`${prefix}-name`}>
        <span className="field__label">Group name</span>
        <input
          id={`${prefix}-name`}
          name="name"
          defaultValue={group?.name ?? ''}
          maxLength={200}
          autoFocus
          data-testid="group-name"
          aria-invalid={errors.name ? true : undefined}
        />
        <FieldErrors messages={errors.name} testId="group-name-error" />
      </label>
      <label className="field" htmlFor={`${prefix}-description`}>
        <span className="field__label">Description</span>
        <input id={`${prefix}-description`} name="description" defaultValue={group?.description ?? ''} maxLength={2000} data-testid="group-description" />
        <FieldErrors messages={errors.description} />
      </label>
      {!group ? (
        kinds.includes('shared') ? (
          <label className="group-form__check">
            <input type="checkbox" name="personal" data-testid="group-personal" />
            Personal (only you see it)
          </label>
        ) : (
          <>
            <input type="hidden" name="personal" value="on" />
            <p className="field__hint">The group is personal: only you see it.</p>
          </>
        )
      ) : null}
      <FieldErrors messages={errors.personal} />
      <FormErrors errors={errors} shown={['name', 'description', 'personal']} />
      <div className="form-actions">
        <button type="submit" className="button button--primary button--small" disabled={fetcher.state !== 'idle'} data-testid="group-save">
          {group ? 'Save' : 'Create group'}
        </button>
        <button type="button" className="button button--ghost button--small" onClick={onDone}>
          Cancel
        </button>
      </div>
    </fetcher.Form>
  );
}
