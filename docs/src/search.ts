/** Browser-side search over the generated index (no Node APIs). */
import MiniSearch from 'minisearch';
import { MAX_QUERY_LENGTH, MAX_RESULTS, miniSearchOptions } from './search-options.ts';
import type { SearchDocument, SearchIndexFile, SearchResultDocument } from './types.ts';

export interface DocsSearch {
  miniSearch: MiniSearch<SearchDocument>;
  documents: SearchResultDocument[];
}

export interface DocsSearchHit extends SearchResultDocument {
  score: number;
  /** Matched index terms, for highlighting on the target page. */
  terms: string[];
}

/** Parses a fetched `search-index-<tag>.json`; throws a clear error when it is not one. */
export function loadSearchIndex(file: unknown): DocsSearch {
  const f = file as Partial<SearchIndexFile> | null;
  if (!f || typeof f !== 'object' || !Array.isArray(f.documents) || typeof f.index !== 'string') {
    throw new Error('Not a docs search index: expected {documents: [...], index: "<serialized MiniSearch>"}');
  }
  return { miniSearch: MiniSearch.loadJSON<SearchDocument>(f.index, miniSearchOptions), documents: f.documents };
}

/** Up to `limit` hits, best first: all words must match; if none do, any word may. */
export function searchDocs(search: DocsSearch, query: string, limit = MAX_RESULTS): DocsSearchHit[] {
  const q = query.slice(0, MAX_QUERY_LENGTH).trim();
  if (!q) return [];
  let results = search.miniSearch.search(q);
  if (results.length === 0) results = search.miniSearch.search(q, { combineWith: 'OR' });
  const hits: DocsSearchHit[] = [];
  for (const r of results) {
    const doc = search.documents[r.id as number];
    if (doc) hits.push({ ...doc, score: r.score, terms: r.terms });
    if (hits.length >= limit) break;
  }
  return hits;
}
