/**
 * "Save as default" in the dashboard's filter bar: after a confirmation, stores the filter values in
 * effect as the dashboard's default_parameters (the dashboard route's `save-defaults` action), then
 * calls `onSaved` (the page drops the f.* values from the address, as they are the defaults now).
 */
import { useEffect, useRef } from 'react';
import { useFetcher } from 'react-router';
import type { InputParameters } from '../../lib/filters';

interface Props {
  parameters: InputParameters;
  onSaved(): void;
}

export function SaveDefaultsButton({ parameters, onSaved }: Props) {
  const fetcher = useFetcher<{ ok?: boolean; defaultsSaved?: boolean; error?: string }>({ key: 'dashboard-save-defaults' });
  const handled = useRef<unknown>(null);
  useEffect(() => {
    if (fetcher.state !== 'idle' || !fetcher.data || handled.current === fetcher.data) return;
    handled.current = fetcher.data;
    if (fetcher.data.defaultsSaved) onSaved();
  }, [fetcher.state, fetcher.data, onSaved]);
  const error = fetcher.state === 'idle' && fetcher.data?.error ? fetcher.data.error : null;
  return (
    <>
      <button
        type="button"
        className="button button--ghost button--small"
        disabled={fetcher.state !== 'idle'}
        title="Open this dashboard with the filter values now in effect"
        onClick={() => {
          if (
            !window.confirm(
              'Save the filter values now in effect as this dashboard’s defaults? Everyone who opens it without filter values in the address will see them.',
            )
          )
            return;
          fetcher.submit({ intent: 'save-defaults', parameters: JSON.stringify(parameters) }, { method: 'post' });
        }}
        data-testid="filter-save-defaults"
      >
        {fetcher.state !== 'idle' ? 'Saving…' : 'Save as default'}
      </button>
      {fetcher.state === 'idle' && fetcher.data?.defaultsSaved ? (
        <span className="badge badge--ok" role="status" data-testid="defaults-saved">
          Defaults saved
        </span>
      ) : null}
      {error ? (
        <span className="badge badge--error" role="alert" data-testid="defaults-error">
          {error}
        </span>
      ) : null}
    </>
  );
}
