/**
 * Lazily loaded pieces of a page (the in-browser diagram renderer, later the search modal): a
 * loading indicator only after `delay` ms, the error text with a Retry button when loading fails,
 * and a full reload when the chunk itself is gone (the site was redeployed under the reader).
 */
import { useCallback, useEffect, useRef, useState } from 'react';

const LOADING_DELAY_MS = 200;
const RELOAD_MARK = 'cairn-docs.chunk-reload';

/** Errors browsers and Vite raise when a dynamically imported file cannot be fetched. */
export function isChunkLoadError(err: unknown): boolean {
  const e = err as { name?: string; message?: string } | null;
  if (!e) return false;
  if (e.name === 'ChunkLoadError') return true;
  return /Failed to fetch dynamically imported module|error loading dynamically imported module|Importing a module script failed|Unable to preload CSS/i.test(
    e.message ?? '',
  );
}

export type LazyState<T> = { status: 'loading'; pastDelay: boolean } | { status: 'ready'; value: T } | { status: 'error'; error: Error };

/** Reloads once per page for a missing chunk; a second failure is shown as an error instead. */
export function reloadForMissingChunk(err: unknown, storage: Pick<Storage, 'getItem' | 'setItem'> | null, path: string, reload: () => void): boolean {
  if (!isChunkLoadError(err)) return false;
  try {
    if (storage?.getItem(RELOAD_MARK) === path) return false;
    storage?.setItem(RELOAD_MARK, path);
  } catch {
    /* no session storage: reload anyway */
  }
  reload();
  return true;
}

function session(): Storage | null {
  try {
    return window.sessionStorage;
  } catch {
    return null;
  }
}

/** Loads `load()` once mounted; `retry` starts over. `load` must be stable (module-level). */
export function useLazy<T>(load: () => Promise<T>, enabled = true): { state: LazyState<T>; retry: () => void } {
  const [state, setState] = useState<LazyState<T>>({ status: 'loading', pastDelay: false });
  const [attempt, setAttempt] = useState(0);
  const alive = useRef(true);
  useEffect(() => {
    if (!enabled) return;
    alive.current = true;
    setState({ status: 'loading', pastDelay: false });
    const timer = window.setTimeout(() => {
      if (alive.current) setState((s) => (s.status === 'loading' ? { status: 'loading', pastDelay: true } : s));
    }, LOADING_DELAY_MS);
    load().then(
      (value) => {
        window.clearTimeout(timer);
        if (alive.current) setState({ status: 'ready', value });
      },
      (err: unknown) => {
        window.clearTimeout(timer);
        if (reloadForMissingChunk(err, session(), window.location.pathname, () => window.location.reload())) return;
        if (alive.current) setState({ status: 'error', error: err instanceof Error ? err : new Error(String(err)) });
      },
    );
    return () => {
      alive.current = false;
      window.clearTimeout(timer);
    };
  }, [load, enabled, attempt]);
  const retry = useCallback(() => setAttempt((n) => n + 1), []);
  return { state, retry };
}
