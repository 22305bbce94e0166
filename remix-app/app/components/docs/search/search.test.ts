/** The docs search in the browser, without the browser: index loading, stall timer, insights, links. */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { buildTaggedSearchIndexes } from '../../../../../docs/src/build/search-index.ts';
import { searchAll, SEARCH_TAGS } from '@cairn/docs';
import { highlightTerms } from './highlight';
import { hitHref } from './hit-href';
import { createInsights, INSIGHTS_BATCH_SIZE, INSIGHTS_DEBOUNCE_MS, type InsightsEvent } from './insights';
import { createIndexLoader } from './loader';
import { createStallTimer, STALL_THRESHOLD_MS } from './status';

/** Real index files, as the docs build writes them. */
const built = buildTaggedSearchIndexes([
  {
    route: '/sharing/scheduled-emails',
    title: 'Scheduled e-mails',
    tags: [],
    sidebarParentCategories: ['Sharing'],
    sections: [{ title: null, anchor: null, text: 'Send a dashboard weekly by e-mail.' }],
  },
  {
    route: '/api/v2024-06-01',
    title: 'API reference',
    tags: [],
    sidebarParentCategories: [],
    sections: [{ title: 'Create a dashboard schedule', anchor: 'create-a-dashboard-schedule', text: 'POST /dashboard_schedules' }],
  },
]);

function response(body: string, ok = true) {
  return { ok, json: async () => JSON.parse(body) as unknown };
}

describe('index loader', () => {
  it('goes from not requested to loading to ready, one fetch per tag shared by concurrent callers', async () => {
    const calls: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const loader = createIndexLoader({
      tags: SEARCH_TAGS,
      versions: { 'docs-default-current': 'abc123' },
      fetch: async (url) => {
        calls.push(url);
        await gate;
        const name = /search-index-[^?]+\.json/.exec(url)![0];
        return response(built.files.get(name)!);
      },
    });
    const tag = 'docs-default-current';
    expect(loader.state(tag)).toBe('not-requested');
    expect(loader.ready()).toBeNull();
    const a = loader.load(tag);
    const b = loader.load(tag);
    expect(a).toBe(b);
    expect(loader.state(tag)).toBe('loading');
    const all = loader.loadAll();
    release();
    const [search] = await Promise.all([a, all]);
    expect(loader.state(tag)).toBe('ready');
    // One request per tag, the versioned URL where a version is known.
    expect(calls.sort()).toEqual(['/search-index-default.json', '/search-index-docs-api-v2024-06-01.json', '/search-index-docs-default-current.json?v=abc123']);
    expect(search.documents).toHaveLength(1);
    // Later callers get the loaded index without fetching again.
    await loader.load(tag);
    expect(calls).toHaveLength(3);
    const ready = loader.ready()!;
    expect(ready).toHaveLength(3);
    expect(searchAll(ready, 'weekly email')[0]?.sectionRoute).toBe('/sharing/scheduled-emails');
    expect(searchAll(ready, 'dashboard schedule').map((h) => h.sectionRoute)).toContain('/api/v2024-06-01#create-a-dashboard-schedule');
  });

  it('gives an empty index, without an error, for a failed fetch, a non-OK answer or a file that is not an index', async () => {
    const answers: Record<string, () => Promise<ReturnType<typeof response>>> = {
      default: async () => {
        throw new TypeError('Failed to fetch');
      },
      'docs-api-v2024-06-01': async () => response('{"errors":[]}', false),
      'docs-default-current': async () => response('{"not":"an index"}'),
    };
    const loader = createIndexLoader({
      tags: SEARCH_TAGS,
      fetch: (url) => answers[/search-index-(.+)\.json/.exec(url)![1]!]!(),
    });
    const all = await loader.loadAll();
    expect(all.map((s) => s.documents.length)).toEqual([0, 0, 0]);
    expect(SEARCH_TAGS.map((t) => loader.state(t))).toEqual(['ready', 'ready', 'ready']);
    expect(searchAll(all, 'anything')).toEqual([]);
  });
});

describe('stall timer', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('reports a stall after 300 ms, not before, and not when cancelled', () => {
    const stalled = vi.fn();
    createStallTimer(stalled);
    vi.advanceTimersByTime(STALL_THRESHOLD_MS - 1);
    expect(stalled).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(stalled).toHaveBeenCalledTimes(1);
    const never = vi.fn();
    createStallTimer(never).cancel();
    vi.advanceTimersByTime(1000);
    expect(never).not.toHaveBeenCalled();
    expect(STALL_THRESHOLD_MS).toBe(300);
  });
});

describe('insights', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  const setup = () => {
    const batches: { events: InsightsEvent[]; beacon: boolean }[] = [];
    const insights = createInsights({ send: (events, beacon) => batches.push({ events, beacon }) });
    return { insights, batches };
  };

  it('records a view only once the query has stayed 400 ms', () => {
    const { insights } = setup();
    insights.viewed('s', ['/a']);
    vi.advanceTimersByTime(200);
    insights.viewed('sch', ['/a', '/b']);
    vi.advanceTimersByTime(INSIGHTS_DEBOUNCE_MS - 1);
    expect(insights.pending()).toEqual([]);
    insights.viewed('schedule', ['/a', '/b', '/c']);
    vi.advanceTimersByTime(INSIGHTS_DEBOUNCE_MS);
    expect(insights.pending()).toEqual([{ type: 'view', query: 'schedule', results: 3, routes: ['/a', '/b', '/c'] }]);
    expect(INSIGHTS_DEBOUNCE_MS).toBe(400);
  });

  it('sends batches of 20, and the rest on flush', () => {
    const { insights, batches } = setup();
    for (let i = 0; i < 45; i++) {
      insights.viewed(`query ${i}`, i % 2 ? ['/x'] : []);
      vi.advanceTimersByTime(INSIGHTS_DEBOUNCE_MS);
    }
    expect(INSIGHTS_BATCH_SIZE).toBe(20);
    expect(batches.map((b) => b.events.length)).toEqual([20, 20]);
    expect(insights.pending()).toHaveLength(5);
    insights.flush();
    expect(batches.map((b) => b.events.length)).toEqual([20, 20, 5]);
    expect(batches[0]!.events[0]).toEqual({ type: 'view', query: 'query 0', results: 0, routes: [] });
    expect(insights.pending()).toEqual([]);
  });

  it('records the settled view before the choice, and flushes as a beacon when asked', () => {
    const { insights, batches } = setup();
    insights.viewed('  date   range ', ['/filters/date-range']);
    insights.chosen('date range', '/filters/date-range', 1);
    expect(insights.pending()).toEqual([
      { type: 'view', query: 'date range', results: 1, routes: ['/filters/date-range'] },
      { type: 'click', query: 'date range', route: '/filters/date-range', position: 1 },
    ]);
    insights.flush(true);
    expect(batches).toEqual([{ events: expect.any(Array), beacon: true }]);
    // Nothing left, nothing sent again.
    vi.advanceTimersByTime(1000);
    insights.flush();
    expect(batches).toHaveLength(1);
  });

  it('ignores blank queries', () => {
    const { insights } = setup();
    insights.viewed('   ', []);
    vi.advanceTimersByTime(INSIGHTS_DEBOUNCE_MS);
    expect(insights.pending()).toEqual([]);
  });
});

describe('links to hits', () => {
  it('go to the section with the terms to highlight', () => {
    expect(hitHref({ sectionRoute: '/filters/date-range#kinds-of-range', terms: ['date', 'rang', 'date'] })).toBe(
      '/filters/date-range?_highlight=date+rang#kinds-of-range',
    );
    expect(hitHref({ sectionRoute: '/', terms: ['welcom'] })).toBe('/?_highlight=welcom');
    expect(highlightTerms('?_highlight=date+rang&x=1')).toEqual(['date', 'rang']);
    expect(highlightTerms('?x=1')).toEqual([]);
  });
});
