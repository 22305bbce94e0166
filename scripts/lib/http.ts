/** Waiting for a child's HTTP server to answer. */
import type { Child } from './procs.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface WaitHttpOptions {
  timeoutMs?: number;
  /** Which status counts as "up" (default: 200–499, i.e. the server answered and did not crash). */
  accept?: (status: number) => boolean;
  /** The process that should serve it: waiting stops at once when it exits. */
  child?: Child;
  /** Aborts the wait (Ctrl-C). */
  signal?: AbortSignal;
}

/** Polls `url` until it answers with an accepted status; throws a message that says why it did not. */
export async function waitForHttp(url: string, opts: WaitHttpOptions = {}): Promise<number> {
  const timeoutMs = opts.timeoutMs ?? 90_000;
  const accept = opts.accept ?? ((s: number) => s >= 200 && s < 500);
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer yet';
  while (Date.now() < deadline) {
    if (opts.signal?.aborted) throw new Error(`stopped while waiting for ${url}`);
    if (opts.child && !opts.child.running) throw new Error(opts.child.describeExit());
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(5000), redirect: 'manual' });
      await res.arrayBuffer().catch(() => undefined);
      if (accept(res.status)) return res.status;
      last = `HTTP ${res.status}`;
    } catch (err) {
      const cause = (err as { cause?: { code?: string } }).cause;
      last = cause?.code ?? (err as Error).message;
    }
    await sleep(300);
  }
  const who = opts.child ? `${opts.child.name} ` : '';
  throw new Error(`${who}did not answer ${url} within ${Math.round(timeoutMs / 1000)} s (last: ${last})`);
}
