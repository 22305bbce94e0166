/**
 * Loading the search indexes, one file per tag (spec 02 §2 "Search", §7). Each tag is not requested,
 * then loading (every later caller waits for the same fetch), then ready. A failed or non-OK fetch,
 * or a file that is not an index, gives an empty index: search then finds nothing there, and no error
 * is shown.
 */
import { emptySearch, loadSearchIndex, searchIndexFileName, type DocsSearch } from '@cairn/docs';

type TagState = { status: 'not-requested' } | { status: 'loading'; promise: Promise<DocsSearch> } | { status: 'ready'; search: DocsSearch };

export interface IndexLoaderOptions {
  tags: readonly string[];
  /** tag → content hash, sent as `?v=` so the file can be cached for good. */
  versions?: Record<string, string>;
  /** Base URL of the site (`/`). */
  baseUrl?: string;
  fetch?: (url: string) => Promise<Pick<Response, 'ok' | 'json'>>;
}

export interface IndexLoader {
  state(tag: string): TagState['status'];
  /** The tag's index; the same promise for every caller while it loads. Never rejects. */
  load(tag: string): Promise<DocsSearch>;
  /** Every tag's index, in tag order. */
  loadAll(): Promise<DocsSearch[]>;
  /** The indexes already loaded (for searching synchronously). null until every tag is ready. */
  ready(): DocsSearch[] | null;
}

export function createIndexLoader(options: IndexLoaderOptions): IndexLoader {
  const states = new Map<string, TagState>();
  const doFetch = options.fetch ?? ((url: string) => fetch(url, { credentials: 'same-origin' }));
  const base = options.baseUrl ?? '/';

  const urlOf = (tag: string) => {
    const v = options.versions?.[tag];
    return `${base}${searchIndexFileName(tag)}${v ? `?v=${encodeURIComponent(v)}` : ''}`;
  };

  const fetchIndex = async (tag: string): Promise<DocsSearch> => {
    try {
      const res = await doFetch(urlOf(tag));
      if (!res.ok) return emptySearch();
      return loadSearchIndex(await res.json());
    } catch {
      return emptySearch();
    }
  };

  const load = (tag: string): Promise<DocsSearch> => {
    const current = states.get(tag);
    if (current?.status === 'ready') return Promise.resolve(current.search);
    if (current?.status === 'loading') return current.promise;
    const promise = fetchIndex(tag).then((search) => {
      states.set(tag, { status: 'ready', search });
      return search;
    });
    states.set(tag, { status: 'loading', promise });
    return promise;
  };

  return {
    state: (tag) => states.get(tag)?.status ?? 'not-requested',
    load,
    loadAll: () => Promise.all(options.tags.map(load)),
    ready: () => {
      const out: DocsSearch[] = [];
      for (const tag of options.tags) {
        const s = states.get(tag);
        if (s?.status !== 'ready') return null;
        out.push(s.search);
      }
      return out;
    },
  };
}
