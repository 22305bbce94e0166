/** Builds the MiniSearch index: one document per page section (the intro, then each h2/h3). */
import MiniSearch from 'minisearch';
import { miniSearchOptions } from '../search-options.ts';
import type { SearchDocument, SearchIndexFile } from '../types.ts';
import type { PageSection } from './remark.ts';

export interface IndexedPage {
  route: string;
  title: string;
  tags: string[];
  sidebarParentCategories: string[];
  sections: PageSection[];
}

export function buildSearchIndex(pages: IndexedPage[]): SearchIndexFile {
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
  const miniSearch = new MiniSearch<SearchDocument>(miniSearchOptions);
  miniSearch.addAll(docs);
  return {
    documents: docs.map(({ id, pageTitle, sectionTitle, sectionRoute, type }) => ({ id, pageTitle, sectionTitle, sectionRoute, type })),
    index: JSON.stringify(miniSearch),
  };
}
