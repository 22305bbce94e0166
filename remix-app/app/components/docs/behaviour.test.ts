import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { isChunkLoadError, reloadForMissingChunk } from './lazy/lazy';
import { navbarVisible } from './navbar/hideOnScroll';
import { createProgress, PROGRESS_SETTINGS, type ProgressView } from './progress/progress';
import { collapseDuration } from './sidebar/collapse';
import { pickActiveHeading } from './toc/activeHeading';

describe('navbar hide on scroll', () => {
  const frame = { navbarHeight: 60, viewportHeight: 800, documentHeight: 5000 };
  it('hides when scrolling down past its height and shows when scrolling up', () => {
    expect(navbarVisible({ ...frame, previousY: 100, y: 300 })).toBe(false);
    expect(navbarVisible({ ...frame, previousY: 300, y: 250 })).toBe(true);
  });
  it('stays visible near the top and near the bottom', () => {
    expect(navbarVisible({ ...frame, previousY: 10, y: 40 })).toBe(true);
    expect(navbarVisible({ ...frame, previousY: 4100, y: 4150 })).toBe(true);
    expect(navbarVisible({ ...frame, previousY: 4000, y: 4100 })).toBe(false);
  });
});

describe('category collapse duration', () => {
  it('grows with the content height, within bounds', () => {
    const d = [0, 100, 400, 1600, 10_000].map((h) => collapseDuration(h));
    for (let i = 1; i < d.length; i++) expect(d[i]).toBeGreaterThanOrEqual(d[i - 1]!);
    expect(d[0]).toBe(150);
    expect(collapseDuration(400)).toBeGreaterThan(collapseDuration(100));
    expect(d[4]).toBe(450);
  });
  it('is 1 ms with reduced motion', () => {
    expect(collapseDuration(800, true)).toBe(1);
  });
});

describe('active table-of-contents heading', () => {
  it('is the last heading above the line', () => {
    expect(pickActiveHeading([-400, -20, 50, 300], 96, 800)).toBe(2);
    expect(pickActiveHeading([-400, -20, 150, 300], 96, 800)).toBe(1);
  });
  it('is the first heading while it is on screen before any was passed', () => {
    expect(pickActiveHeading([400, 900], 96, 800)).toBe(0);
    expect(pickActiveHeading([1400, 1900], 96, 800)).toBe(-1);
    expect(pickActiveHeading([], 96, 800)).toBe(-1);
  });
});

describe('route progress bar', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('never appears for a navigation under 200 ms', () => {
    const views: ProgressView[] = [];
    const p = createProgress((v) => views.push(v));
    p.start();
    vi.advanceTimersByTime(150);
    p.done();
    vi.advanceTimersByTime(2000);
    expect(views).toEqual([]);
  });

  it('starts at the minimum after 200 ms, trickles by 0.02 every 800 ms and fades after done', () => {
    const views: ProgressView[] = [];
    const p = createProgress((v) => views.push(v));
    p.start();
    vi.advanceTimersByTime(199);
    expect(views).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(views).toEqual([{ value: 0.08, visible: true }]);
    vi.advanceTimersByTime(800 * 3);
    expect(views.map((v) => Number(v.value.toFixed(3)))).toEqual([0.08, 0.1, 0.12, 0.14]);
    p.done();
    expect(views.at(-1)).toEqual({ value: 1, visible: true });
    vi.advanceTimersByTime(PROGRESS_SETTINGS.speed);
    expect(views.at(-1)).toEqual({ value: 1, visible: false });
  });
});

describe('lazily loaded chunks', () => {
  it('recognises a missing chunk', () => {
    expect(isChunkLoadError(new TypeError('Failed to fetch dynamically imported module: http://x/assets/a.js'))).toBe(true);
    expect(isChunkLoadError(new Error('Network down'))).toBe(false);
  });
  it('reloads once per page for a missing chunk, then lets the error show', () => {
    const store = new Map<string, string>();
    const storage = { getItem: (k: string) => store.get(k) ?? null, setItem: (k: string, v: string) => void store.set(k, v) };
    const reload = vi.fn();
    const gone = new TypeError('Failed to fetch dynamically imported module: /assets/m.js');
    expect(reloadForMissingChunk(gone, storage, '/filters/overview', reload)).toBe(true);
    expect(reload).toHaveBeenCalledTimes(1);
    expect(reloadForMissingChunk(gone, storage, '/filters/overview', reload)).toBe(false);
    expect(reloadForMissingChunk(new Error('boom'), storage, '/x', reload)).toBe(false);
    expect(reload).toHaveBeenCalledTimes(1);
  });
});
