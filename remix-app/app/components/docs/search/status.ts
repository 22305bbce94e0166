/**
 * The search status (spec 02 §2 "Search"): idle, loading, and stalled once loading has taken longer
 * than 300 ms (the modal then says the index is still loading).
 */
export type SearchStatus = 'idle' | 'loading' | 'stalled';

export const STALL_THRESHOLD_MS = 300;

/** Calls `onStall` once, 300 ms from now, unless cancelled first. */
export function createStallTimer(
  onStall: () => void,
  ms = STALL_THRESHOLD_MS,
  timers: { set: (fn: () => void, ms: number) => unknown; clear: (h: unknown) => void } = {
    set: (fn, t) => setTimeout(fn, t),
    clear: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
  },
): { cancel: () => void } {
  let handle: unknown = timers.set(() => {
    handle = null;
    onStall();
  }, ms);
  return {
    cancel: () => {
      if (handle !== null) timers.clear(handle);
      handle = null;
    },
  };
}
