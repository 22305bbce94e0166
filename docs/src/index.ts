/** Browser- and worker-safe entry. The page loader is `@cairn/docs/runtime` (needs Vite). */
export * from './types.ts';
export { normalizeDocPath, DocPathError } from './paths.ts';
export { miniSearchOptions, searchOptions, SEARCH_FIELDS, MAX_QUERY_LENGTH, MAX_RESULTS } from './search-options.ts';
export { loadSearchIndex, searchDocs } from './search.ts';
export type { DocsSearch, DocsSearchHit } from './search.ts';
