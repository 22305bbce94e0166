/**
 * Builds the search indexes: one document per page section (the intro, then each h2/h3), one
 * MiniSearch index per tag (see search-tags.ts). Every field is indexed; the file stores only what
 * the results list shows (titles, route, a short snippet), never the whole text.
 */
import { createHash } from 'node:crypto';
import MiniSearch from 'minisearch';
import { miniSearchOptions } from '../search-options.ts';
import { DEFAULT_SEARCH_TAG, SEARCH_TAGS, searchTagForRoute, type SearchTagsFile } from '../search-tags.ts';
import type { SearchDocument, SearchIndexFile, SearchResultDocument } from '../types.ts';
import type { PageSection } from './remark.ts';

/** Characters of a section's text kept for the results list's snippet. */
export const SNIPPET_LENGTH = 150;

export interface IndexedPage {
  route: string;
  title: string;
  tags: string[];
  sidebarParentCategories: string[];
  sections: PageSection[];
}

/** The start of `text`, at most `max` characters, cut after a whole word; "…" marks a cut. */
export function snippetOf(text: string, max = SNIPPET_LENGTH): string {
  const t = text.replace(/\s+/g, ' ').trim();
  if (t.length <= max) return t;
  const cut = t.slice(0, max);
  const space = cut.lastIndexOf(' ');
  return `${(space > max * 0.6 ? cut.slice(0, space) : cut).replace(/[\s,;:.…\-–—(]+$/, '')}…`;
}

/** The search documents of some pages, ids from 0. */
export function sectionDocuments(pages: IndexedPage[]): SearchDocument[] {
  const docs: SearchDocument[] = [];
  for (const page of pages) {
    for (const section of page.sections) {
      const sectionTitle = section.title ?? page.title;
      docs.push({
        id: docs.length,
        // A section's title is indexed with its page's title, so "api key permissions" ranks the
        // Permissions section of "API keys" above both the page intro and other pages' Permissions.
        title: section.title === null ? page.title : `${sectionTitle} (${page.title})`,
        content: section.text,
        pageTitle: page.title,
        sectionTitle,
        sectionRoute: section.anchor ? `${page.route}#${section.anchor}` : page.route,
        type: 'docs',
        tags: page.tags,
        sidebarParentCategories: page.sidebarParentCategories,
      });
    }
  }
  return docs;
}

/** One index file over `pages` (all of them, whatever their tag). */
export function buildSearchIndex(pages: IndexedPage[]): SearchIndexFile {
  const docs = sectionDocuments(pages);
  const miniSearch = new MiniSearch<SearchDocument>(miniSearchOptions);
  miniSearch.addAll(docs);
  const documents: SearchResultDocument[] = docs.map(({ id, pageTitle, sectionTitle, sectionRoute, type, content }) => ({
    id,
    pageTitle,
    sectionTitle,
    sectionRoute,
    type,
    snippet: snippetOf(content),
  }));
  return { documents, index: miniSearch.toJSON() };
}

export interface TaggedIndexes {
  /** File name (`search-index-{tag}.json`) → its JSON text. */
  files: Map<string, string>;
  /** docs/.generated/search/tags.json */
  tags: SearchTagsFile;
}

/** Every tag's index (an empty one for a tag without pages), serialized, with content hashes. */
export function buildTaggedSearchIndexes(pages: IndexedPage[]): TaggedIndexes {
  const byTag = new Map<string, IndexedPage[]>(SEARCH_TAGS.map((t) => [t, []]));
  for (const page of pages) {
    const tag = searchTagForRoute(page.route);
    (byTag.get(tag) ?? byTag.get(DEFAULT_SEARCH_TAG)!).push(page);
  }
  const files = new Map<string, string>();
  const tags: SearchTagsFile = { tags: [] };
  for (const [tag, tagPages] of byTag) {
    const file = buildSearchIndex(tagPages);
    const json = JSON.stringify(file);
    files.set(`search-index-${tag}.json`, json);
    tags.tags.push({
      tag,
      hash: createHash('sha256').update(json).digest('hex').slice(0, 16),
      bytes: Buffer.byteLength(json),
      documents: file.documents.length,
    });
  }
  return { files, tags };
}
