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
  /** Ranked with the every-word hits: it holds every word, or, for a question of three words or more, all but one. */
  nearlyAll: boolean;
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

/** How many results of one index are weighed before the best `limit` are kept. */
const CANDIDATES = 400;

/** Each query term counts once per section heading that names it and the page title does not. */
const HEADING_BOOST = 1.5;
/** A missing query word halves a hit's score. */
const MISSING_WORD = 0.5;

/**
 * The terms of a hit to mark (in its snippet and on the target page): the query's own words. A query
 * term the section holds as it is stands for itself only; the longer words it also matched as a prefix
 * ("password" → "passwordprotect", "dashboard" → "dashboardid") are left unmarked. A term found only as a
 * prefix (a word still being typed: "sched") keeps the words it completed to.
 */
export function wholeQueryTerms(matched: readonly string[], queryTerms: readonly string[]): string[] {
  const have = new Set(matched);
  const out = new Set<string>();
  for (const q of queryTerms) {
    if (have.has(q)) out.add(q);
    else for (const t of matched) if (t.startsWith(q)) out.add(t);
  }
  return [...out];
}

/**
 * Up to `limit` hits of one index, best first. Sections holding every word come first, then
 * sections holding some of the words (so a stray word never empties the list). One OR query finds
 * both: a result whose matched query terms are all the query's terms is an every-word hit.
 *
 * Within each group a section whose own heading names query words ranks higher: a page's sections
 * all share its title and tags, so for a long question ("how do I share a dashboard with a password")
 * every section of the sharing-links page holds every word, and the one that answers it is the one
 * headed "Password". Each query term in the section heading (and not in the page title, which every
 * section of the page has) multiplies the score by 1 + HEADING_BOOST; a page's first section counts every
 * query word when the page's title and address name them all. A question of three words or more
 * is answered by a section that holds all of them but one, too (the Password section of the sharing-links
 * page does not say "dashboard"): such a section ranks with the every-word ones, its score halved.
 */
export function searchDocs(search: DocsSearch, query: string, limit = MAX_RESULTS): DocsSearchHit[] {
  const q = clampQuery(query).trim();
  if (!q || search.documents.length === 0) return [];
  const queryTerms = queryTermsOf(q);
  const wanted = queryTerms.length;
  if (wanted === 0) return [];
  const hits: DocsSearchHit[] = [];
  for (const r of search.miniSearch.search(q, { combineWith: 'OR' })) {
    if (hits.length >= CANDIDATES) break;
    const doc = search.documents[r.id as number];
    if (!doc) continue;
    const found = new Set(r.queryTerms).size;
    const allWords = found >= wanted;
    const missing = Math.max(0, wanted - found);
    const nearlyAll = allWords || (wanted >= 3 && missing === 1);
    const pageTerms = new Set(queryTermsOf(doc.pageTitle));
    const headingTerms = new Set(queryTermsOf(doc.sectionTitle));
    // A page whose title or address names every query word is the answer itself: its first section
    // counts every word ("date range filter" → /filters/date-range, not another page's section
    // headed "… range filter").
    const root = !doc.sectionRoute.includes('#');
    const routeTerms = root ? new Set(queryTermsOf(doc.sectionRoute.replace(/[/#_-]+/g, ' '))) : null;
    const pageNamesAll = routeTerms !== null && queryTerms.every((t) => pageTerms.has(t) || routeTerms.has(t));
    const named = pageNamesAll ? wanted : queryTerms.filter((t) => headingTerms.has(t) && !pageTerms.has(t)).length;
    const score = r.score * (1 + HEADING_BOOST * named) * MISSING_WORD ** missing;
    hits.push({ ...doc, score, terms: wholeQueryTerms(r.terms, queryTerms), allWords, nearlyAll });
  }
  return rank(hits).slice(0, limit);
}

/** Every-word (and nearly-every-word) hits first, each group by score (the sort is stable). */
function rank(hits: DocsSearchHit[]): DocsSearchHit[] {
  return hits.sort((a, b) => Number(b.nearlyAll) - Number(a.nearlyAll) || b.score - a.score);
}

/**
 * Searches several indexes (one per tag): at most `limit` hits from each, then at most `limit` in
 * all. Hits holding every word stay ahead of hits holding only some, whatever their index.
 */
export function searchAll(searches: readonly DocsSearch[], query: string, limit = MAX_RESULTS): DocsSearchHit[] {
  const all = searches.flatMap((search) => searchDocs(search, query, limit));
  return rank(all).slice(0, limit);
}
