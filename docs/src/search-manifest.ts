/// <reference types="vite/client" />
/**
 * Each search index tag's content hash, for the browser (bundled by Vite from docs/.generated). The
 * site fetches `/search-index-{tag}.json?v={hash}`: a new build changes the URL, so the file itself can
 * be cached for good.
 */
import type { SearchTagsFile } from './search-tags.ts';

const files = import.meta.glob<SearchTagsFile>('../.generated/search/tags.json', { eager: true, import: 'default' });

/** tag → hash; empty when the docs were not built (every tag then loads without a version). */
export function searchTagVersions(): Record<string, string> {
  const file = files['../.generated/search/tags.json'];
  return Object.fromEntries((file?.tags ?? []).map((t) => [t.tag, t.hash]));
}
