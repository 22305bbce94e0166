/** The search index build and the query: terms, boosts, wildcards, limits, tags, marking. */
import { describe, expect, it } from 'vitest';
import { buildSearchIndex, buildTaggedSearchIndexes, sectionDocuments, snippetOf, SNIPPET_LENGTH, type IndexedPage } from '../src/build/search-index.ts';
import { markPieces, matchRanges, termSet } from '../src/search-highlight.ts';
import { MAX_QUERY_LENGTH, MAX_RESULTS, processTerm, stem, tokenize } from '../src/search-options.ts';
import { clampQuery, emptySearch, loadSearchIndex, queryTermsOf, searchAll, searchDocs } from '../src/search.ts';
import { SEARCH_TAGS, searchTagForRoute } from '../src/search-tags.ts';

function pageOf(route: string, title: string, sections: [string | null, string][], extra: Partial<IndexedPage> = {}): IndexedPage {
  return {
    route,
    title,
    tags: [],
    sidebarParentCategories: [],
    sections: sections.map(([t, text]) => ({ title: t, anchor: t ? t.toLowerCase().replace(/\s+/g, '-') : null, text })),
    ...extra,
  };
}

/** Builds, serializes and loads an index the way the site does (JSON over the wire). */
function indexOf(pages: IndexedPage[]) {
  return loadSearchIndex(JSON.parse(JSON.stringify(buildSearchIndex(pages))));
}

describe('terms', () => {
  it('splits at spaces and punctuation and also joins hyphenated words', () => {
    expect(tokenize('Scheduled e-mails, drill-down (read-only)')).toEqual([
      'Scheduled',
      'e',
      'mails',
      'drill',
      'down',
      'read',
      'only',
      'emails',
      'drilldown',
      'readonly',
    ]);
  });

  it('drops common words, lower-cases, strips accents and stems', () => {
    expect(queryTermsOf('How do I restrict an API key to one dashboard?')).toEqual(['restrict', 'api', 'key', 'dashboard']);
    expect(processTerm('Émails')).toBe('email');
    expect(processTerm('the')).toBeNull();
    for (const [a, b] of [
      ['rotate', 'rotating'],
      ['rotated', 'rotate'],
      ['schedule', 'scheduled'],
      ['schedules', 'scheduling'],
      ['email', 'emails'],
      ['query', 'queries'],
      ['embed', 'embedding'],
      ['embedded', 'embed'],
      ['box', 'boxes'],
    ]) {
      expect(stem(a!), `${a} ~ ${b}`).toBe(stem(b!));
    }
    // A stem keeps a vowel; words that only look inflected stay whole.
    expect(stem('string')).toBe('string');
    expect(stem('status')).toBe('status');
    expect(stem('analysis')).toBe('analysis');
  });
});

describe('index building', () => {
  const pages = [
    pageOf(
      '/administration/api-keys',
      'API keys',
      [
        [null, 'Keys let programs call the API.'],
        ['Permissions', 'Each key holds permissions such as View Dashboards.'],
        ['Rotating a key', 'Create a new key, switch your program, delete the old one.'],
      ],
      { tags: ['api'], sidebarParentCategories: ['Administration'] },
    ),
  ];

  it('makes one document per section, the intro routed to the page and the others to their anchor', () => {
    const docs = sectionDocuments(pages);
    expect(docs.map((d) => [d.id, d.sectionRoute, d.sectionTitle, d.title])).toEqual([
      [0, '/administration/api-keys', 'API keys', 'API keys'],
      [1, '/administration/api-keys#permissions', 'Permissions', 'Permissions (API keys)'],
      [2, '/administration/api-keys#rotating-a-key', 'Rotating a key', 'Rotating a key (API keys)'],
    ]);
    expect(docs[1]).toMatchObject({ pageTitle: 'API keys', type: 'docs', tags: ['api'], sidebarParentCategories: ['Administration'] });
  });

  it('stores only what the results list shows: titles, route and a short snippet, not the content', () => {
    const long = `${'word '.repeat(100)}needle`;
    const file = buildSearchIndex([pageOf('/long', 'Long', [[null, long]])]);
    expect(Object.keys(file.documents[0]!).sort()).toEqual(['id', 'pageTitle', 'sectionRoute', 'sectionTitle', 'snippet', 'type']);
    expect(file.documents[0]!.snippet.length).toBeLessThanOrEqual(SNIPPET_LENGTH + 1);
    expect(file.documents[0]!.snippet.endsWith('…')).toBe(true);
    const json = JSON.stringify(file);
    expect(json).not.toContain(long);
    // …yet the content is indexed: the last word of the long text is found.
    expect(searchDocs(indexOf([pageOf('/long', 'Long', [[null, long]])]), 'needle')[0]?.sectionRoute).toBe('/long');
  });

  it('cuts snippets after a whole word', () => {
    expect(snippetOf('short text')).toBe('short text');
    expect(snippetOf('alpha beta gamma delta', 13)).toBe('alpha beta…');
  });

  it('writes one index per tag: the user manual, the API reference, and an empty default', () => {
    const built = buildTaggedSearchIndexes([
      ...pages,
      pageOf('/api/v2024-06-01', 'API reference', [['List dashboards', 'GET /dashboards']]),
      pageOf('/', 'Home', [[null, 'Welcome']]),
    ]);
    expect([...built.files.keys()]).toEqual(SEARCH_TAGS.map((t) => `search-index-${t}.json`));
    expect(SEARCH_TAGS).toEqual(['default', 'docs-api-v2024-06-01', 'docs-default-current']);
    const docsOf = (tag: string) =>
      (JSON.parse(built.files.get(`search-index-${tag}.json`)!) as { documents: { sectionRoute: string }[] }).documents.map((d) => d.sectionRoute);
    expect(docsOf('default')).toEqual([]);
    expect(docsOf('docs-api-v2024-06-01')).toEqual(['/api/v2024-06-01#list-dashboards']);
    expect(docsOf('docs-default-current')).toContain('/');
    const tags = built.tags.tags;
    expect(tags.map((t) => [t.tag, t.documents])).toEqual([
      ['default', 0],
      ['docs-api-v2024-06-01', 1],
      ['docs-default-current', 4],
    ]);
    expect(tags.every((t) => /^[0-9a-f]{16}$/.test(t.hash) && t.bytes === Buffer.byteLength(built.files.get(`search-index-${t.tag}.json`)!))).toBe(true);
    // The hash follows the content.
    const again = buildTaggedSearchIndexes([...pages, pageOf('/', 'Home', [[null, 'Welcome back']])]);
    expect(again.tags.tags.find((t) => t.tag === 'docs-default-current')!.hash).not.toBe(tags.find((t) => t.tag === 'docs-default-current')!.hash);
    expect(again.tags.tags.find((t) => t.tag === 'default')!.hash).toBe(tags.find((t) => t.tag === 'default')!.hash);
  });

  it('gives routes to tags by docs plugin', () => {
    expect(searchTagForRoute('/api/v2024-06-01')).toBe('docs-api-v2024-06-01');
    expect(searchTagForRoute('/api')).toBe('docs-api-v2024-06-01');
    expect(searchTagForRoute('/apis/other')).toBe('docs-default-current');
    expect(searchTagForRoute('/')).toBe('docs-default-current');
  });
});

describe('query', () => {
  it('boosts title 5, tags 3, parent categories 2 and content 1', () => {
    // The same word once in a different field of four otherwise alike one-section pages.
    const mk = (route: string, field: 'title' | 'tags' | 'cat' | 'content') =>
      pageOf(route, field === 'title' ? 'Zebra page' : 'Plain page', [[null, field === 'content' ? 'zebra text' : 'other text']], {
        tags: field === 'tags' ? ['zebra'] : ['misc'],
        sidebarParentCategories: field === 'cat' ? ['Zebra'] : ['Misc'],
      });
    const search = indexOf([mk('/content', 'content'), mk('/cat', 'cat'), mk('/tags', 'tags'), mk('/title', 'title')]);
    const hits = searchDocs(search, 'zebra');
    expect(hits.map((h) => h.sectionRoute)).toEqual(['/title', '/tags', '/cat', '/content']);
    // Scores follow the boosts (equal field lengths: "zebra page" / "plain page" have two words).
    const score = Object.fromEntries(hits.map((h) => [h.sectionRoute, h.score]));
    expect(score['/title']! / score['/content']!).toBeGreaterThan(3);
    expect(score['/tags']! / score['/cat']!).toBeGreaterThan(1.2);
  });

  it('matches every term exactly and as a trailing wildcard, exact matches first', () => {
    const search = indexOf([
      pageOf('/keyboard', 'Shortcuts', [[null, 'Use the keyboard.']]),
      pageOf('/key', 'Keys', [[null, 'An API key.']]),
      pageOf('/sched', 'Mail', [[null, 'A weekly scheduled e-mail.']]),
    ]);
    expect(searchDocs(search, 'key').map((h) => h.sectionRoute)).toEqual(['/key', '/keyboard']);
    expect(searchDocs(search, 'sched')[0]?.sectionRoute).toBe('/sched');
    expect(searchDocs(search, 'wee sched ema')[0]?.sectionRoute).toBe('/sched');
    expect(searchDocs(search, 'email')[0]?.sectionRoute).toBe('/sched');
    // Not a fuzzy search: a typo finds nothing.
    expect(searchDocs(search, 'keybaord')).toEqual([]);
  });

  it('ranks sections holding every word first, then sections holding some', () => {
    const search = indexOf([pageOf('/some', 'Alpha alpha', [[null, 'alpha alpha alpha alpha']]), pageOf('/every', 'Other', [[null, 'alpha beta']])]);
    const hits = searchDocs(search, 'alpha beta');
    expect(hits.map((h) => [h.sectionRoute, h.allWords])).toEqual([
      ['/every', true],
      ['/some', false],
    ]);
    // A stray word does not empty the list.
    expect(searchDocs(search, 'alpha zzzqqq').map((h) => h.sectionRoute)).toContain('/some');
  });

  it('returns at most 8 hits per index and 8 in all', () => {
    const many = Array.from({ length: 20 }, (_, i) => pageOf(`/p${i}`, `Page ${i}`, [[null, 'common word']]));
    const a = indexOf(many);
    const b = indexOf(many.map((p) => ({ ...p, route: `/b${p.route}` })));
    expect(MAX_RESULTS).toBe(8);
    expect(searchDocs(a, 'common')).toHaveLength(8);
    const all = searchAll([a, b], 'common');
    expect(all).toHaveLength(8);
    expect(searchAll([a, b], 'common', 3)).toHaveLength(3);
    // Both indexes take part.
    const mixed = searchAll([indexOf([pageOf('/x', 'Xylophone', [[null, 'x']])]), a], 'xylophone common');
    expect(mixed[0]?.sectionRoute).toBe('/x');
  });

  it('searches at most 512 characters of the input', () => {
    const search = indexOf([pageOf('/tail', 'Tail', [[null, 'unicorn']])]);
    expect(MAX_QUERY_LENGTH).toBe(512);
    const padded = `${'x'.repeat(511)} unicorn`;
    expect(clampQuery(padded)).toHaveLength(512);
    expect(searchDocs(search, padded)).toEqual([]);
    expect(searchDocs(search, `${'x'.repeat(400)} unicorn`)[0]?.sectionRoute).toBe('/tail');
  });

  it('finds nothing for an empty or stop-word query, and nothing in an empty index', () => {
    const search = indexOf([pageOf('/a', 'A', [[null, 'the text']])]);
    expect(searchDocs(search, '   ')).toEqual([]);
    expect(searchDocs(search, 'how do i')).toEqual([]);
    expect(searchAll([emptySearch()], 'text')).toEqual([]);
  });

  it('refuses a file that is not an index', () => {
    expect(() => loadSearchIndex({ documents: [] })).toThrow(/Not a docs search index/);
    expect(() => loadSearchIndex(null)).toThrow(/Not a docs search index/);
  });
});

describe('marking matched words', () => {
  it('marks the words whose terms matched, whatever their form', () => {
    const terms = termSet(['email', 'schedul']);
    expect(matchRanges('Scheduled E-mails go out', terms)).toEqual([
      [0, 9],
      [10, 17],
    ]);
    expect(markPieces('Send emails weekly', termSet(['email']))).toEqual([
      { text: 'Send ', mark: false },
      { text: 'emails', mark: true },
      { text: ' weekly', mark: false },
    ]);
    expect(markPieces('nothing here', new Set())).toEqual([{ text: 'nothing here', mark: false }]);
  });
});
