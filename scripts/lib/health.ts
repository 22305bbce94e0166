/**
 * The launcher's health watch: a worker whose process is alive but stops answering its health route
 * (its workerd child died or hangs; wrangler does not notice) is stopped and started again. Each watched
 * process is probed every `intervalMs`; after `failures` probes in a row without an accepted answer
 * within `timeoutMs` its process group is stopped and `respawn()` starts a new one, which must answer
 * within `readyTimeoutMs`. A process that exits is the Supervisor's business (onUnexpectedExit), not ours.
 */
import { waitForHttp } from './http.ts';
import type { Child, Supervisor } from './procs.ts';

export interface Watched {
  name: string;
  /** The URL probed, e.g. http://127.0.0.1:8781/health. */
  url: string;
  accept?: (status: number) => boolean;
  child: Child;
  /** Starts the process again (the same command); the new child replaces `child`. */
  respawn: () => Child;
}

export interface HealthWatchOptions {
  intervalMs?: number;
  timeoutMs?: number;
  failures?: number;
  readyTimeoutMs?: number;
  /** How long a stopped child may take to end before it is killed. */
  stopGraceMs?: number;
  onRestart?: (name: string, why: string) => void;
  onRestarted?: (name: string, ms: number) => void;
  onRestartFailed?: (name: string, err: unknown) => void;
}

async function answers(url: string, timeoutMs: number, accept: (s: number) => boolean): Promise<string | null> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), redirect: 'manual' });
    await res.arrayBuffer().catch(() => undefined);
    return accept(res.status) ? null : `HTTP ${res.status}`;
  } catch (err) {
    const cause = (err as { cause?: { code?: string } }).cause;
    return cause?.code ?? (err as Error).name ?? 'no answer';
  }
}

/** Starts watching; returns a function that stops the watch (call it before stopping the stack). */
export function watchHealth(sup: Supervisor, watched: Watched[], opts: HealthWatchOptions = {}): () => void {
  const intervalMs = opts.intervalMs ?? 5000;
  const timeoutMs = opts.timeoutMs ?? 5000;
  const failuresNeeded = opts.failures ?? 3;
  let stopped = false;
  const timers = new Set<ReturnType<typeof setTimeout>>();

  for (const w of watched) {
    let failures = 0;
    const accept = w.accept ?? ((s: number) => s === 200);
    const tick = async () => {
      if (stopped) return;
      if (w.child.running) {
        const problem = await answers(w.url, timeoutMs, accept);
        if (stopped) return;
        failures = problem ? failures + 1 : 0;
        if (problem && failures >= failuresNeeded) {
          failures = 0;
          opts.onRestart?.(w.name, `${failuresNeeded} health checks of ${w.url} failed (last: ${problem})`);
          const t0 = Date.now();
          try {
            await sup.stopChild(w.child, opts.stopGraceMs ?? 5000);
            if (stopped) return;
            w.child = w.respawn();
            await waitForHttp(w.url, { child: w.child, accept, timeoutMs: opts.readyTimeoutMs ?? 120_000 });
            opts.onRestarted?.(w.name, Date.now() - t0);
          } catch (err) {
            if (!stopped) opts.onRestartFailed?.(w.name, err);
          }
        }
      }
      if (!stopped) schedule();
    };
    const schedule = () => {
      const t = setTimeout(() => {
        timers.delete(t);
        void tick();
      }, intervalMs);
      timers.add(t);
    };
    schedule();
  }
  return () => {
    stopped = true;
    for (const t of timers) clearTimeout(t);
    timers.clear();
  };
}
