/**
 * The MiniSearch options the docs index is built with. The browser must load the index with
 * these same options: `MiniSearch.loadJSON(file.index, miniSearchOptions)`.
 */
import type { Options, SearchOptions } from 'minisearch';
import type { SearchDocument } from './types.ts';

export const SEARCH_FIELDS = ['title', 'content', 'tags', 'sidebarParentCategories'] as const;

/** The spec caps the search input at 512 characters and the results list at 8 entries. */
export const MAX_QUERY_LENGTH = 512;
export const MAX_RESULTS = 8;

/**
 * AND: every word must occur in the section, which keeps multi-word queries precise
 * ("api key permissions" finds the section about exactly that, not every page saying "api").
 * `searchDocs` falls back to OR when AND finds nothing, so a stray word does not empty the list.
 */
export const searchOptions: SearchOptions = {
  boost: { title: 5, content: 1, tags: 3, sidebarParentCategories: 2 },
  prefix: true,
  fuzzy: (term) => (term.length >= 5 ? 0.2 : false),
  combineWith: 'AND',
};

/** Array fields (tags, categories) are indexed as their joined words. */
export function extractField(document: SearchDocument, fieldName: string): string {
  const value = (document as unknown as Record<string, unknown>)[fieldName];
  if (Array.isArray(value)) return value.join(' ');
  return value == null ? '' : String(value);
}

export const miniSearchOptions: Options<SearchDocument> = {
  idField: 'id',
  fields: [...SEARCH_FIELDS],
  // Results are looked up in the index file's `documents` list by id; nothing else is stored.
  storeFields: [],
  extractField,
  searchOptions,
};
