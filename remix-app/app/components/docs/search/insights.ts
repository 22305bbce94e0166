/**
 * Search insights (spec 02 §2 "Search"): what people search for, what they choose, what finds nothing.
 *
 * - `viewed(query, hits)`: the results shown for a query. Debounced by 400 ms, so only a query the
 *   reader stopped at counts, not every keystroke on the way ("s", "sc", "sch"…).
 * - `chosen(query, hit, position)`: a result was opened (any pending view of that query is recorded first).
 * Events wait in a batch that is sent to the site's own endpoint when it holds 20, when `flush()` is
 * called (the search closes), and when the page is hidden (as a beacon). Nothing about the reader is
 * sent: the query text, the routes shown or chosen, and counts.
 */
export const INSIGHTS_BATCH_SIZE = 20;
export const INSIGHTS_DEBOUNCE_MS = 400;
const INSIGHTS_ENDPOINT = '/docs-insights';

export type InsightsEvent =
  | { type: 'view'; query: string; results: number; routes: string[] }
  | { type: 'click'; query: string; route: string; position: number };

export interface InsightsOptions {
  /** Sends one batch (at most 20 events); `beacon` when the page is going away. */
  send: (events: InsightsEvent[], beacon: boolean) => void;
  setTimer?: (fn: () => void, ms: number) => unknown;
  clearTimer?: (handle: unknown) => void;
}

export interface Insights {
  viewed(query: string, routes: string[]): void;
  chosen(query: string, route: string, position: number): void;
  flush(beacon?: boolean): void;
  /** Recorded events not sent yet (a view still inside its debounce is not one of them). */
  pending(): readonly InsightsEvent[];
}

const normalize = (q: string) => q.replace(/\s+/g, ' ').trim().slice(0, 512);

export function createInsights(options: InsightsOptions): Insights {
  const setTimer = options.setTimer ?? ((fn, ms) => setTimeout(fn, ms));
  const clearTimer = options.clearTimer ?? ((h) => clearTimeout(h as ReturnType<typeof setTimeout>));
  let batch: InsightsEvent[] = [];
  let waiting: { query: string; routes: string[] } | null = null;
  let timer: unknown = null;

  const send = (beacon: boolean) => {
    while (batch.length > 0) options.send(batch.splice(0, INSIGHTS_BATCH_SIZE), beacon);
  };
  const push = (event: InsightsEvent) => {
    batch.push(event);
    if (batch.length >= INSIGHTS_BATCH_SIZE) send(false);
  };
  const recordView = () => {
    if (timer !== null) clearTimer(timer);
    timer = null;
    if (!waiting) return;
    const { query, routes } = waiting;
    waiting = null;
    push({ type: 'view', query, results: routes.length, routes: routes.slice(0, 8) });
  };

  return {
    viewed(query, routes) {
      const q = normalize(query);
      if (!q) return;
      if (timer !== null) clearTimer(timer);
      waiting = { query: q, routes };
      timer = setTimer(recordView, INSIGHTS_DEBOUNCE_MS);
    },
    chosen(query, route, position) {
      const q = normalize(query);
      if (waiting && waiting.query !== q) waiting = null; // a view of some other text was never settled on
      recordView();
      if (q) push({ type: 'click', query: q, route, position });
    },
    flush(beacon = false) {
      recordView();
      send(beacon);
    },
    pending: () => [...batch],
  };
}

/** Sends a batch to the site's endpoint; never throws (insights must not disturb reading). */
export function sendInsights(events: InsightsEvent[], beacon: boolean): void {
  const body = JSON.stringify({ events });
  try {
    if (beacon && typeof navigator !== 'undefined' && navigator.sendBeacon) {
      navigator.sendBeacon(INSIGHTS_ENDPOINT, new Blob([body], { type: 'application/json' }));
      return;
    }
    void fetch(INSIGHTS_ENDPOINT, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body, keepalive: true }).catch(() => {});
  } catch {
    /* ignore */
  }
}
