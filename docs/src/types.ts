/** Shapes of the files that `npm run build -w @cairn/docs` writes to docs/.generated/. */

export interface TocEntry {
  depth: 2 | 3;
  id: string;
  title: string;
}

/** What the web app renders for one docs route. `html` is static markup made at build time. */
export interface DocPage {
  route: string;
  title: string;
  description?: string;
  toc: TocEntry[];
  html: string;
  tags?: string[];
}

/** docs/.generated/pages/<file>.json */
export interface GeneratedPage extends DocPage {
  sidebarParentCategories: string[];
}

export interface SidebarItem {
  route: string;
  title: string;
}

export interface SidebarGroup {
  label: string;
  items: SidebarItem[];
}

/** docs/.generated/manifest.json */
export interface DocsManifest {
  routes: { route: string; title: string; file: string }[];
  sidebar: SidebarGroup[];
  /** Doc ids (route without the leading slash, `index` for `/`) of pages marked `draft: true`: not built. */
  drafts: string[];
}

/** One section of a page (split at h2/h3), as indexed by MiniSearch. */
export interface SearchDocument {
  id: number;
  title: string;
  content: string;
  pageTitle: string;
  sectionTitle: string;
  /** Page route with an optional `#anchor`. */
  sectionRoute: string;
  type: 'docs';
  tags: string[];
  sidebarParentCategories: string[];
}

/** The part of a search document the results list shows; `documents[i].id === i`. */
export interface SearchResultDocument extends Pick<SearchDocument, 'id' | 'pageTitle' | 'sectionTitle' | 'sectionRoute' | 'type'> {
  /** The start of the section's text (at most SNIPPET_LENGTH characters, cut at a word), for the results list. */
  snippet: string;
}

/** docs/.generated/search/search-index-<tag>.json */
export interface SearchIndexFile {
  documents: SearchResultDocument[];
  /** The MiniSearch index as a plain object (`miniSearch.toJSON()`); load with `MiniSearch.loadJS(index, miniSearchOptions)`. */
  index: unknown;
}
