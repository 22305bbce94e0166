/**
 * The runtime module as the web app uses it: vitest runs it through Vite, so import.meta.glob
 * resolves against docs/.generated, which this file first (re)builds from the real pages.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { buildDocs } from '../src/build.ts';

let runtime: typeof import('../src/runtime.ts');

beforeAll(async () => {
  await buildDocs();
  runtime = await import('../src/runtime.ts');
});

describe('runtime', () => {
  it('loads a page by any spelling of its route', async () => {
    for (const path of ['/administration/api-keys', '/administration/api-keys/', '/administration/api-keys.html']) {
      const page = await runtime.loadDocPage(path);
      expect(page?.route).toBe('/administration/api-keys');
      expect(page?.title).toBe('API keys');
      expect(page?.html).toContain('<h2 id="permissions">');
      expect(page?.toc[0]).toEqual({ depth: 2, id: 'what-a-key-looks-like', title: 'What a key looks like' });
      expect(page).not.toHaveProperty('sidebarParentCategories');
    }
    expect((await runtime.loadDocPage('/index.html'))?.route).toBe('/');
    expect((await runtime.loadDocPage('/index'))?.route).toBe('/');
  });

  it('returns null for unknown or undecodable paths', async () => {
    expect(await runtime.loadDocPage('/no/such/page')).toBeNull();
    expect(await runtime.loadDocPage('/administration/%E0%A4%A')).toBeNull();
  });

  it('lists routes, drafts and the sidebar from the manifest', () => {
    expect(runtime.docDrafts()).toEqual([]);
    expect(runtime.docRoutes()).toEqual(expect.arrayContaining([{ route: '/', title: 'Cairn documentation' }]));
    // Sections in the order of their _category_.json positions (docs conventions in notes/contracts.md).
    expect(runtime.docSidebar().map((g) => g.label)).toEqual([
      'Introduction',
      'Account and security',
      'Administration',
      'Chart types',
      'Dashboards',
      'Datasources',
      'Embedding',
      'Filters',
      'Reports',
      'Sharing',
      'SQL alerts',
      'SQL snippets',
      'Time zones',
      'Tips',
      'API reference',
    ]);
  });
});
