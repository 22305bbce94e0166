import type { CancelHandle } from './connector.ts';

/** How long past the statement timeout the database gets to stop on its own before we step in. */
const GRACE_MS = 2_000;
/** How long a cancel request gets before the connection is closed instead. */
const CANCEL_WAIT_MS = 5_000;

/**
 * Watches one run: if the database's own statement timeout does not fire (a database or statement
 * kind without one), or the caller aborts, it cancels the statement from a second connection and,
 * failing that, closes the run's connection. The connector turns the flags into `timed_out` or
 * `cancelled`. It also remembers an error thrown by the sink, which is the caller's, not the query's.
 */
export class RunGuard {
  handle: CancelHandle | null = null;
  timedOut = false;
  cancelled = false;
  sinkError: unknown = undefined;
  private readonly timers: ReturnType<typeof setTimeout>[] = [];
  private readonly onAbort = () => this.stop('cancelled');

  constructor(
    timeoutMs: number,
    private readonly signal: AbortSignal | undefined,
    private readonly actions: { cancel(handle: CancelHandle): Promise<boolean>; destroy(): void },
  ) {
    this.timers.push(setTimeout(() => this.stop('timedOut'), timeoutMs + GRACE_MS));
    if (signal?.aborted) this.cancelled = true;
    else signal?.addEventListener('abort', this.onAbort, { once: true });
  }

  private stop(why: 'timedOut' | 'cancelled'): void {
    if (this.timedOut || this.cancelled) return;
    this[why] = true;
    if (!this.handle) {
      this.actions.destroy();
      return;
    }
    this.actions.cancel(this.handle).catch(() => {});
    this.timers.push(setTimeout(() => this.actions.destroy(), CANCEL_WAIT_MS));
  }

  /** Throws when the run was stopped (the connector reports why). */
  throwIfStopped(): void {
    if (this.timedOut || this.cancelled) throw new Error('stopped');
  }

  done(): void {
    for (const t of this.timers) clearTimeout(t);
    this.signal?.removeEventListener('abort', this.onAbort);
  }
}

/** Calls the sink, remembering its failure so that it is not mistaken for a database error. */
export async function callSink(guard: RunGuard, fn: () => unknown): Promise<void> {
  try {
    await fn();
  } catch (err) {
    guard.sinkError = err;
    throw err;
  }
}
