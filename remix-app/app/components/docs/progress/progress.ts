/**
 * A slim route progress bar (the nprogress model, written small): it appears only when a navigation
 * takes longer than `delay`, starts at `minimum`, creeps forward by `trickleRate` every
 * `trickleSpeed` ms and moves with `speed` ms transitions; done fills it and fades it out.
 */
export interface ProgressSettings {
  delay: number;
  minimum: number;
  speed: number;
  trickleRate: number;
  trickleSpeed: number;
}

export const PROGRESS_SETTINGS: ProgressSettings = { delay: 200, minimum: 0.08, speed: 200, trickleRate: 0.02, trickleSpeed: 800 };

/** What the bar shows: `value` 0…1 or null when it is not shown. */
export type ProgressView = { value: number; visible: boolean };

export interface Timers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(id: unknown): void;
  setInterval(fn: () => void, ms: number): unknown;
  clearInterval(id: unknown): void;
}

const MAX_TRICKLE = 0.994;

export function createProgress(render: (view: ProgressView) => void, settings = PROGRESS_SETTINGS, timers: Timers = globalThis as unknown as Timers) {
  let value: number | null = null;
  let showTimer: unknown = null;
  let trickleTimer: unknown = null;
  let hideTimer: unknown = null;

  const stopTimers = () => {
    if (showTimer !== null) timers.clearTimeout(showTimer);
    if (trickleTimer !== null) timers.clearInterval(trickleTimer);
    if (hideTimer !== null) timers.clearTimeout(hideTimer);
    showTimer = trickleTimer = hideTimer = null;
  };

  return {
    /** A navigation began. */
    start() {
      if (showTimer !== null || value !== null) return;
      showTimer = timers.setTimeout(() => {
        showTimer = null;
        value = settings.minimum;
        render({ value, visible: true });
        trickleTimer = timers.setInterval(() => {
          if (value === null) return;
          value = Math.min(MAX_TRICKLE, value + settings.trickleRate);
          render({ value, visible: true });
        }, settings.trickleSpeed);
      }, settings.delay);
    },
    /** The navigation finished (or was cancelled). */
    done() {
      const shown = value !== null;
      stopTimers();
      if (!shown) return; // it was fast: the bar never appeared
      value = null;
      render({ value: 1, visible: true });
      hideTimer = timers.setTimeout(() => {
        hideTimer = null;
        render({ value: 1, visible: false });
      }, settings.speed);
    },
    dispose: stopTimers,
  };
}
