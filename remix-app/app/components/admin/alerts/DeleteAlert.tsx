/** Deleting an alert (and its results), asked once more; the API's refusal is shown beside the button. */
import { useFetcher } from 'react-router';
import { ConfirmButton, RowError } from '../ui';

export function DeleteAlert() {
  const fetcher = useFetcher<{ intent: 'delete'; error: string }>();
  return (
    <fetcher.Form method="post" className="alert-actions" data-testid="alert-delete-form">
      <ConfirmButton
        label="Delete alert"
        confirmLabel="Delete"
        question="Delete this alert and its results?"
        value="delete"
        disabled={fetcher.state !== 'idle'}
      />
      {fetcher.data?.error ? <RowError message={fetcher.data.error} /> : null}
    </fetcher.Form>
  );
}
