/** Browser- and worker-safe entry. The page loader is `@cairn/docs/runtime` (needs Vite). */
export * from './types.ts';
export { normalizeDocPath, DocPathError } from './paths.ts';
export { miniSearchOptions, searchOptions, SEARCH_FIELDS, MAX_QUERY_LENGTH, MAX_RESULTS, FIELD_BOOSTS, processTerm, tokenize } from './search-options.ts';
export { clampQuery, emptySearch, loadSearchIndex, searchAll, searchDocs, wholeQueryTerms } from './search.ts';
export type { DocsSearch, DocsSearchHit } from './search.ts';
export { DEFAULT_SEARCH_TAG, SEARCH_TAGS, searchIndexFileName, searchTagForRoute } from './search-tags.ts';
export type { SearchTagsFile } from './search-tags.ts';
export { HIGHLIGHT_PARAM, markPieces, matchRanges, termSet } from './search-highlight.ts';
