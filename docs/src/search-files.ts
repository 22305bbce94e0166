/// <reference types="vite/client" />
/**
 * The search index files for the web app's worker (bundled by Vite from docs/.generated as raw text,
 * each a lazy chunk): served as they are at `/search-index-{tag}.json`.
 */
import type { SearchTagsFile } from './search-tags.ts';

const indexFiles = import.meta.glob<string>('../.generated/search/search-index-*.json', { query: '?raw', import: 'default' });
const tagsFiles = import.meta.glob<SearchTagsFile>('../.generated/search/tags.json', { eager: true, import: 'default' });

export interface SearchIndexAsset {
  tag: string;
  /** Content hash (the ETag). */
  hash: string;
  /** The JSON text. */
  body: string;
}

/** The index file of a tag, or null when there is no such tag (or the docs were not built). */
export async function loadSearchIndexFile(tag: string): Promise<SearchIndexAsset | null> {
  const entry = tagsFiles['../.generated/search/tags.json']?.tags.find((t) => t.tag === tag);
  const load = indexFiles[`../.generated/search/search-index-${tag}.json`];
  if (!entry || !load) return null;
  return { tag, hash: entry.hash, body: await load() };
}
