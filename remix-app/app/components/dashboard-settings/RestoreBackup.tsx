/**
 * "Restore from backup" on the dashboard list: pick a backup file (.json, from "Download backup"); the
 * list's `restore` action posts it to POST /dashboards/restore and opens the new dashboard. The API's
 * messages (such as datasources missing in this organization) are listed here when it refuses.
 */
import { useState } from 'react';
import { Form, useNavigation } from 'react-router';

export function RestoreBackup({ errors }: { errors: string[] }) {
  const navigation = useNavigation();
  const [open, setOpen] = useState(errors.length > 0);
  const busy = navigation.state !== 'idle' && navigation.formData?.get('intent') === 'restore';
  if (!open) {
    return (
      <button type="button" className="button button--small" onClick={() => setOpen(true)} data-testid="restore-open">
        Restore from backup
      </button>
    );
  }
  return (
    <Form method="post" encType="multipart/form-data" className="restore-backup" data-testid="restore-form">
      <input type="hidden" name="intent" value="restore" />
      <label className="field field--inline">
        <span className="visually-hidden">Backup file</span>
        <input type="file" name="backup" accept=".json,application/json" required aria-label="Backup file (.json)" data-testid="restore-file" />
      </label>
      <button type="submit" className="button button--primary button--small" disabled={busy} data-testid="restore-submit">
        {busy ? 'Restoring…' : 'Restore'}
      </button>
      <button type="button" className="button button--ghost button--small" onClick={() => setOpen(false)}>
        Cancel
      </button>
    </Form>
  );
}

/** The API's refusal of a restore, every message listed. */
export function RestoreErrors({ errors }: { errors: string[] }) {
  if (!errors.length) return null;
  return (
    <div className="alert alert--error" role="alert" data-testid="restore-errors">
      <p>
        <strong>The backup could not be restored.</strong>
      </p>
      {errors.length === 1 ? (
        <p>{errors[0]}</p>
      ) : (
        <ul>
          {errors.map((m, i) => (
            <li key={i}>{m}</li>
          ))}
        </ul>
      )}
    </div>
  );
}
