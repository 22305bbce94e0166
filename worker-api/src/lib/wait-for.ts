/**
 * Waits until `ready()` gives a value, looking again after 2, 4, 8, then every 16 ms, for at most
 * `maxMs`; undefined if it never does. `BURST_WAIT_MS` is how long a burst waits for the one request
 * doing the work: long enough for a slow first lookup on a busy machine (giving up early would send the
 * whole burst to do it again at once), short enough that a hung request does not hold the rest for long.
 *
 * For concurrent requests of one isolate that need what another request is already fetching (a key
 * lookup, a rate-limit lease, a status answer): workerd does not let a request await a promise that
 * another request will settle (its continuation would run in the other request's context, where I/O
 * fails, and hang once that request ends), so the waiters look at shared memory instead. The growing
 * interval keeps a thousand waiters from keeping the isolate busy.
 */
export const BURST_WAIT_MS = 10_000;

export async function waitFor<T>(ready: () => T | undefined, maxMs = BURST_WAIT_MS): Promise<T | undefined> {
  let value = ready();
  for (let waited = 0, step = 2; value === undefined && waited < maxMs; waited += step, step = Math.min(16, step * 2)) {
    await new Promise((r) => setTimeout(r, step));
    value = ready();
  }
  return value;
}
