import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import MiniSearch, { type AsPlainObject } from 'minisearch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDocs, type BuildResult } from '../src/build.ts';
import { mermaidKey } from '../src/build/mermaid.ts';
import { miniSearchOptions } from '../src/search-options.ts';
import { loadSearchIndex, searchDocs } from '../src/search.ts';
import type { DocsManifest, GeneratedPage, SearchIndexFile } from '../src/types.ts';
import { fixture, page } from './helpers.ts';

const FILES = {
  'index.mdx': page(
    'Home',
    `Welcome. Read the [guide](/guide/), the [key permissions](/administration/api-keys#permissions),
or open [the app](/app/).

## Start here

Text.`,
    'sidebar_position: 1\n',
  ),
  'guide/index.mdx': page(
    'Guide',
    `Intro of the guide.

## Setup

First setup.

### Install the CLI

Details.

#### Deep detail

Not in the table of contents.

## Setup

Second setup, same heading text.

\`\`\`mermaid
graph TD
  A[Program] -->|"POST <data>"| B[API]
\`\`\`

\`\`\`ts
const tag = '<script>' && a < b;
\`\`\`

See [missing anchor](/administration/users#no-such-heading) and [relative](../administration/users).

The same diagram again:

\`\`\`mermaid
graph TD
  A[Program] -->|"POST <data>"| B[API]
\`\`\``,
  ),
  'administration/_category_.json': JSON.stringify({ label: 'Admin area', position: 1 }),
  'administration/api-keys.mdx': page(
    'API keys',
    `Keys let programs call the API.

## Permissions

Each key holds a set of permissions, for example View Dashboards. A key may be restricted.

## Rotating a key

Create a new key, then delete the old key. Who may do it: see [roles](./users.mdx#roles-and-permissions),
[the guide](../guide/index.mdx) and [an old page](./old-page.md).`,
    'tags: [api, security]\nsidebar_position: 2\n',
  ),
  'administration/users.mdx': page(
    'Users',
    `Users of the organization.

## Roles and permissions

Roles decide the permissions of a user in the app and the API; a key is not needed for users.`,
    'sidebar_position: 1\ndescription: People in your organization.\n',
  ),
  'administration/secret.mdx': page('Secret plans', 'Not published yet.', 'draft: true\n'),
  '_partial.mdx': 'not a page',
};

let fx: Awaited<ReturnType<typeof fixture>>;
let result: BuildResult;
const read = <T>(...parts: string[]): T => JSON.parse(readFileSync(join(fx.outDir, ...parts), 'utf8')) as T;
const pageJson = (route: string): GeneratedPage => {
  const entry = read<DocsManifest>('manifest.json').routes.find((r) => r.route === route);
  if (!entry) throw new Error(`no route ${route}`);
  return read<GeneratedPage>('pages', entry.file);
};

beforeAll(async () => {
  fx = await fixture(FILES);
  result = await buildDocs({ pagesDir: fx.pagesDir, outDir: fx.outDir, mermaid: { cacheDir: join(fx.root, 'mermaid-cache') } });
});
afterAll(() => fx.cleanup());

describe('docs build on a fixture', () => {
  it('derives routes from file paths, stripping a trailing index and skipping _files', () => {
    expect(result.routes).toEqual(['/', '/administration/api-keys', '/administration/users', '/guide']);
    const manifest = read<DocsManifest>('manifest.json');
    expect(manifest.routes.map((r) => r.route)).toEqual(result.routes);
    for (const r of manifest.routes) expect(existsSync(join(fx.outDir, 'pages', r.file))).toBe(true);
  });

  it('writes each page with title, description, tags and parent categories', () => {
    const users = pageJson('/administration/users');
    expect(users.title).toBe('Users');
    expect(users.description).toBe('People in your organization.');
    expect(users.sidebarParentCategories).toEqual(['Admin area']);
    expect(pageJson('/administration/api-keys').tags).toEqual(['api', 'security']);
    expect(pageJson('/').sidebarParentCategories).toEqual([]);
  });

  it('orders the sidebar: root pages, then folders by _category_.json position, pages by sidebar_position', () => {
    expect(read<DocsManifest>('manifest.json').sidebar).toEqual([
      { label: 'Introduction', items: [{ route: '/', title: 'Home' }] },
      {
        label: 'Admin area',
        items: [
          { route: '/administration/users', title: 'Users' },
          { route: '/administration/api-keys', title: 'API keys' },
        ],
      },
      { label: 'Guide', items: [{ route: '/guide', title: 'Guide' }] },
    ]);
  });

  it('gives headings unique ids and lists h2/h3 in the table of contents', () => {
    const guide = pageJson('/guide');
    expect(guide.toc).toEqual([
      { depth: 2, id: 'setup', title: 'Setup' },
      { depth: 3, id: 'install-the-cli', title: 'Install the CLI' },
      { depth: 2, id: 'setup-1', title: 'Setup' },
    ]);
    expect(guide.html).toContain('<h2 id="setup">Setup<a class="hash-link" href="#setup" aria-label="Direct link to Setup">#</a></h2>');
    expect(guide.html).toContain('<h2 id="setup-1">Setup<a class="hash-link" href="#setup-1" aria-label="Direct link to Setup">#</a></h2>');
    expect(guide.html).toContain('<h3 id="install-the-cli">Install the CLI<a class="hash-link" href="#install-the-cli"');
    expect(guide.html).toContain('<h4 id="deep-detail">Deep detail<a class="hash-link" href="#deep-detail"');
  });

  it.skipIf(!existsSync('/usr/bin/chromium'))('draws a mermaid fence as an accessible inline SVG, cached by a hash of its source', () => {
    const { html } = pageJson('/guide');
    const key = mermaidKey('graph TD\n  A[Program] -->|"POST <data>"| B[API]');
    expect(html).toMatch(new RegExp(`<figure class="mermaid-diagram"><svg id="mermaid-${key}"[^>]* aria-label="Flowchart" role="img"`));
    // Used twice on the page: the second copy's ids are made unique.
    expect(html).toContain(`<svg id="mermaid-${key}-1"`);
    expect(html).not.toContain('<pre class="mermaid"');
    expect(html).not.toContain('language-mermaid');
    expect(existsSync(join(fx.root, 'mermaid-cache', `${key}.svg`))).toBe(true);
    expect(result.diagrams).toEqual({ rendered: 1, cached: 0, browser: 0 });
    expect(html).toContain('<pre><code class="language-ts">const tag = &#x27;&lt;script&gt;&#x27; &amp;&amp; a &lt; b;');
    expect(html).not.toContain('<script>');
  });

  it('points markdown links to page files at their routes', () => {
    const { html } = pageJson('/administration/api-keys');
    expect(html).toContain('<a href="/administration/users#roles-and-permissions">roles</a>');
    expect(html).toContain('<a href="/guide">the guide</a>');
  });

  it('warns about a broken anchor and a broken markdown link without failing', () => {
    expect(result.warnings).toEqual([
      expect.stringMatching(
        /administration\/api-keys\.mdx:\d+: broken markdown link "\.\/old-page\.md" — no page file for the route \/administration\/old-page/,
      ),
      expect.stringMatching(/guide\/index\.mdx:\d+: broken anchor "\/administration\/users#no-such-heading"/),
    ]);
  });

  it('leaves drafts out and lists their ids', () => {
    expect(result.routes).not.toContain('/administration/secret');
    expect(read<DocsManifest>('manifest.json').drafts).toEqual(['administration/secret']);
  });

  it('writes a search index that loads with the exported options and ranks sections', () => {
    // These pages belong to the user manual: docs plugin "default", version "current".
    const file = read<SearchIndexFile>('search', 'search-index-docs-default-current.json');
    expect(typeof file.index).toBe('object');
    expect(file.documents.every((d, i) => d.id === i)).toBe(true);
    expect(Object.keys(file.documents[0]!).sort()).toEqual(['id', 'pageTitle', 'sectionRoute', 'sectionTitle', 'snippet', 'type']);

    const ms = MiniSearch.loadJS(file.index as AsPlainObject, miniSearchOptions);
    const raw = ms.search('api key permissions');
    expect(file.documents[raw[0]!.id as number]!.sectionRoute).toBe('/administration/api-keys#permissions');

    const search = loadSearchIndex(file);
    const hits = searchDocs(search, 'api key permissions');
    expect(hits[0]).toMatchObject({ sectionRoute: '/administration/api-keys#permissions', sectionTitle: 'Permissions', pageTitle: 'API keys' });
    // The page intro is its own section, routed without an anchor.
    expect(searchDocs(search, 'welcome')[0]!.sectionRoute).toBe('/');
    // AND finds nothing for a stray word, so any-word matching takes over.
    expect(searchDocs(search, 'rotating zzzqqq')[0]!.sectionRoute).toBe('/administration/api-keys#rotating-a-key');
  });
});

describe('docs build failures and warnings', () => {
  it('fails on a broken internal link, naming the page and the link, and writes nothing', async () => {
    const f = await fixture({
      'index.mdx': page('Home', 'Fine [link](/other).'),
      'other.mdx': page('Other', 'See [this](/no/such/route) for more.'),
    });
    try {
      const err = await buildDocs({ pagesDir: f.pagesDir, outDir: f.outDir }).then(
        () => null,
        (e: Error) => e,
      );
      expect(err?.name).toBe('DocsBuildError');
      expect(err?.message).toMatch(/other\.mdx:\d+: broken link "\/no\/such\/route"/);
      expect(existsSync(f.outDir)).toBe(false);
    } finally {
      await f.cleanup();
    }
  });

  it('fails with the file name when the frontmatter has no title or the MDX does not parse', async () => {
    const f = await fixture({
      'index.mdx': '---\ndescription: no title here\n---\n\nBody.\n',
      'broken.mdx': page('Broken', 'An unclosed <div> tag.'),
    });
    try {
      await expect(buildDocs({ pagesDir: f.pagesDir, outDir: f.outDir })).rejects.toThrow(
        /broken\.mdx: line 5:1: Expected a closing tag for `<div>`[\s\S]*index\.mdx: frontmatter "title" is required/,
      );
    } finally {
      await f.cleanup();
    }
  });

  it('warns about duplicate routes and keeps the first file', async () => {
    const f = await fixture({
      'guide.mdx': page('Guide A', 'A.'),
      'guide/index.mdx': page('Guide B', 'B.'),
    });
    try {
      const r = await buildDocs({ pagesDir: f.pagesDir, outDir: f.outDir });
      expect(r.routes).toEqual(['/guide']);
      expect(r.warnings).toEqual(['duplicate route /guide: guide/index.mdx is ignored, guide.mdx already uses it']);
    } finally {
      await f.cleanup();
    }
  });

  it('fails clearly on an empty pages folder', async () => {
    const f = await fixture({});
    try {
      await expect(buildDocs({ pagesDir: f.pagesDir, outDir: f.outDir })).rejects.toThrow(/pages folder|no \.mdx/);
    } finally {
      await f.cleanup();
    }
  });
});
