/**
 * Charts take turns to draw their first picture: one tile's chart per task, so the page answers input
 * between them instead of drawing every chart of a dashboard in one long task when their data arrives
 * together (issue 19: the sharing-link page's total blocking time on a phone). A tile asks for a turn once,
 * when its first result is there; later results redraw at once.
 */
import { useEffect, useState } from 'react';

/** Grants queued turns one per call of `schedule`'s callback (a macrotask in the browser). */
export class TurnQueue {
  private readonly waiting: (() => void)[] = [];
  private pending = false;

  constructor(private readonly schedule: (run: () => void) => void) {}

  /** Queues a turn; `grant` runs when it comes. Answers a function that gives the turn up (unmounted). */
  take(grant: () => void): () => void {
    let live = true;
    this.waiting.push(() => live && grant());
    this.next();
    return () => {
      live = false;
    };
  }

  private next(): void {
    if (this.pending || !this.waiting.length) return;
    this.pending = true;
    this.schedule(() => {
      this.pending = false;
      this.waiting.shift()?.();
      this.next();
    });
  }
}

const turns = new TurnQueue((run) => setTimeout(run, 0));

/**
 * True once this chart may draw: at once when its data was there at the first render (the server and the
 * first client render must agree), else after its turn once `ready`.
 */
export function useChartTurn(ready: boolean): boolean {
  const [granted, setGranted] = useState(ready);
  useEffect(() => {
    if (!ready || granted) return;
    return turns.take(() => setGranted(true));
  }, [ready, granted]);
  return granted;
}
