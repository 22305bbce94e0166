/**
 * Charts take turns to draw their first picture: one tile's chart per task, so the page answers input
 * between them instead of drawing every chart of a dashboard in one long task when their data arrives
 * together (issue 19: the sharing-link page's total blocking time on a phone). A tile asks for a turn once,
 * when its first result is there; later results redraw at once. Where the page asks for it (a sharing
 * link's dashboard), a tile also waits until it comes near the viewport: a phone shows two tiles of six,
 * and the others' charts are drawn when the viewer scrolls to them (or prints the page).
 */
import { useEffect, useState, type RefObject } from 'react';
import { flushSync } from 'react-dom';

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

/** How far beyond the viewport a tile counts as near (drawn a little ahead of a scroll). */
const NEAR_MARGIN = '200px 0px 200px 0px';

/**
 * Whether the element of `ref` is, or has been, near the viewport (always true when `enabled` is false
 * or the browser has no IntersectionObserver). Once near it stays near; printing the page makes every
 * such element near at once (`beforeprint`, applied before the browser lays the page out for print).
 */
export function useNearViewport(ref: RefObject<Element | null>, enabled: boolean): boolean {
  const [near, setNear] = useState(!enabled);
  useEffect(() => {
    const el = ref.current;
    if (near || !el) return;
    if (typeof IntersectionObserver === 'undefined') {
      setNear(true);
      return;
    }
    const observer = new IntersectionObserver((entries) => entries.some((e) => e.isIntersecting) && setNear(true), { rootMargin: NEAR_MARGIN });
    observer.observe(el);
    const onPrint = () => flushSync(() => setNear(true));
    window.addEventListener('beforeprint', onPrint);
    return () => {
      observer.disconnect();
      window.removeEventListener('beforeprint', onPrint);
    };
  }, [ref, near]);
  return near;
}

/**
 * True once this chart may draw: at once when its data was there at the first render (the server and the
 * first client render must agree), else after its turn once `ready` (and `near`, see useNearViewport).
 */
export function useChartTurn(ready: boolean, near = true): boolean {
  const [granted, setGranted] = useState(ready);
  useEffect(() => {
    if (!ready || !near || granted) return;
    // Rendered within the turn's own task, so two turns never share one (React would batch them).
    return turns.take(() => flushSync(() => setGranted(true)));
  }, [ready, near, granted]);
  return granted;
}
