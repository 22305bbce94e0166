/**
 * Editing an API key in its table row: rename it and change its permissions (PATCH /api_keys/{id}).
 * The API's 422s are shown at the name or at the permissions; anything else under the form.
 */
import { useEffect } from 'react';
import { useFetcher } from 'react-router';
import type { Grant } from '@cairn/core';
import { RowError } from '../ui';
import { PermissionPicker, type Resources } from './PermissionPicker';

export type KeyUpdateAnswer =
  | { ok: true; intent: 'update'; target: string }
  | { ok: false; intent: 'update'; target: string; errors: Record<string, string[]> };

export function EditKey({
  id,
  name,
  grants,
  resources,
  onDone,
}: {
  id: string;
  name: string;
  grants: Grant[];
  resources: Resources;
  onDone: (saved?: boolean) => void;
}) {
  const fetcher = useFetcher<KeyUpdateAnswer>();
  const result = fetcher.data;
  useEffect(() => {
    if (fetcher.state === 'idle' && result?.ok) onDone(true);
  }, [fetcher.state, result, onDone]);
  const errors = result && !result.ok ? result.errors : {};
  const rest = Object.entries(errors)
    .filter(([f]) => f !== 'name' && f !== 'permissions')
    .flatMap(([, m]) => m);
  return (
    <fetcher.Form method="post" aria-label={`Edit the API key ${name}`} data-testid="key-edit-form">
      <input type="hidden" name="id" value={id} />
      <div className="form-grid">
        <label className="field">
          <span className="field__label">Name</span>
          <input name="name" defaultValue={name} maxLength={200} data-testid="key-edit-name" aria-invalid={errors.name ? true : undefined} />
          {errors.name ? <RowError message={errors.name.join(' ')} /> : null}
        </label>
      </div>
      <fieldset className="fieldset" style={{ marginTop: 14 }}>
        <legend>Permissions</legend>
        <PermissionPicker resources={resources} grants={grants} testPrefix="edit-" />
        {errors.permissions ? (
          <div data-testid="key-edit-permissions-error">
            <RowError message={errors.permissions.join(' ')} />
          </div>
        ) : null}
      </fieldset>
      <div className="form-actions">
        <button
          type="submit"
          name="intent"
          value="update"
          className="button button--primary button--small"
          disabled={fetcher.state !== 'idle'}
          data-testid="key-save"
        >
          Save changes
        </button>
        <button type="button" className="button button--small button--ghost" onClick={() => onDone(false)}>
          Cancel
        </button>
      </div>
      {rest.length ? <RowError message={rest.join(' ')} /> : null}
    </fetcher.Form>
  );
}
