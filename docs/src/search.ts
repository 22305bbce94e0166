/** Browser-side search over the generated indexes (no Node APIs). */
import MiniSearch, { type AsPlainObject } from 'minisearch';
import { MAX_QUERY_LENGTH, MAX_RESULTS, miniSearchOptions, processTerm, tokenize } from './search-options.ts';
import type { SearchDocument, SearchIndexFile, SearchResultDocument } from './types.ts';

export interface DocsSearch {
  miniSearch: MiniSearch<SearchDocument>;
  documents: SearchResultDocument[];
}

export interface DocsSearchHit extends SearchResultDocument {
  score: number;
  /** Matched index terms (processed: lower case, singular), for marking the snippet and the target page. */
  terms: string[];
  /** The section holds every word of the query (else only some of them). */
  allWords: boolean;
}

/** Parses a fetched `search-index-<tag>.json`; throws a clear error when it is not one. */
export function loadSearchIndex(file: unknown): DocsSearch {
  const f = file as Partial<SearchIndexFile> | null;
  if (!f || typeof f !== 'object' || !Array.isArray(f.documents) || !f.index || typeof f.index !== 'object') {
    throw new Error('Not a docs search index: expected {documents: [...], index: {serialized MiniSearch}}');
  }
  return { miniSearch: MiniSearch.loadJS<SearchDocument>(f.index as AsPlainObject, miniSearchOptions), documents: f.documents };
}

/** An index with no documents: what a tag whose file could not be fetched searches. */
export function emptySearch(): DocsSearch {
  return { miniSearch: new MiniSearch<SearchDocument>(miniSearchOptions), documents: [] };
}

/** The query as searched: at most MAX_QUERY_LENGTH characters. */
export function clampQuery(query: string): string {
  return query.length > MAX_QUERY_LENGTH ? query.slice(0, MAX_QUERY_LENGTH) : query;
}

/** The distinct processed terms of a query (what MiniSearch searches for). */
export function queryTermsOf(query: string): string[] {
  const terms = new Set<string>();
  for (const token of tokenize(query)) {
    const t = processTerm(token);
    if (t) terms.add(t);
  }
  return [...terms];
}

/**
 * Up to `limit` hits of one index, best first. Sections holding every word come first, then
 * sections holding some of the words (so a stray word never empties the list). One OR query finds
 * both: a result whose matched query terms are all the query's terms is an every-word hit.
 */
export function searchDocs(search: DocsSearch, query: string, limit = MAX_RESULTS): DocsSearchHit[] {
  const q = clampQuery(query).trim();
  if (!q || search.documents.length === 0) return [];
  const wanted = queryTermsOf(q).length;
  if (wanted === 0) return [];
  // Results come best first: keep the best `limit` of each group.
  const every: DocsSearchHit[] = [];
  const some: DocsSearchHit[] = [];
  for (const r of search.miniSearch.search(q, { combineWith: 'OR' })) {
    const allWords = r.queryTerms.length >= wanted && new Set(r.queryTerms).size >= wanted;
    const group = allWords ? every : some;
    if (group.length >= limit) {
      if (every.length >= limit) break;
      continue;
    }
    const doc = search.documents[r.id as number];
    if (doc) group.push({ ...doc, score: r.score, terms: r.terms, allWords });
  }
  return [...every, ...some].slice(0, limit);
}

/** Every-word hits first, each group by score (the sort is stable). */
function rank(hits: DocsSearchHit[]): DocsSearchHit[] {
  return hits.sort((a, b) => Number(b.allWords) - Number(a.allWords) || b.score - a.score);
}

/**
 * Searches several indexes (one per tag): at most `limit` hits from each, then at most `limit` in
 * all. Hits holding every word stay ahead of hits holding only some, whatever their index.
 */
export function searchAll(searches: readonly DocsSearch[], query: string, limit = MAX_RESULTS): DocsSearchHit[] {
  const all = searches.flatMap((search) => searchDocs(search, query, limit));
  return (searches.length > 1 ? rank(all) : all).slice(0, limit);
}
