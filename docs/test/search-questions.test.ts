import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDocs } from '../src/build.ts';
import { markPieces, termSet } from '../src/search-highlight.ts';
import { loadSearchIndex, searchDocs, wholeQueryTerms, type DocsSearch } from '../src/search.ts';

let outDir: string;
let search: DocsSearch;

beforeAll(async () => {
  outDir = join(await mkdtemp(join(tmpdir(), 'cairn-docs-questions-')), 'out');
  await buildDocs({ outDir });
  search = loadSearchIndex(JSON.parse(await readFile(join(outDir, 'search', 'search-index-docs-default-current.json'), 'utf8')));
}, 120_000);
afterAll(() => rm(join(outDir, '..'), { recursive: true, force: true }));

describe('natural questions over the real docs', () => {
  it('"how do I share a dashboard with a password" finds the Password section of sharing links in the top 3', () => {
    const routes = searchDocs(search, 'how do I share a dashboard with a password').map((h) => h.sectionRoute);
    expect(routes.slice(0, 3)).toContain('/sharing/links#password');
  });

  it('short queries keep their best sections', () => {
    expect(searchDocs(search, 'api key permissions')[0]?.sectionRoute).toBe('/administration/api-keys#permissions');
    expect(searchDocs(search, 'schedule weekly email')[0]?.sectionRoute).toMatch(/^\/sharing\/scheduled-emails#/);
    // A page whose title and address name every word beats another page's section that names some.
    expect(searchDocs(search, 'date range filter')[0]?.sectionRoute).toBe('/filters/date-range');
  });

  it('a hit carries the query words to mark, not every longer word they matched as a prefix', () => {
    const hits = searchDocs(search, 'how do I share a dashboard with a password');
    const terms = new Set(hits.flatMap((h) => h.terms));
    expect([...terms].sort()).toEqual(['dashboard', 'password', 'shar']);
    // The page then marks the query's words, not "dashboard_id" or "sharingLinkOptions".
    const marked = markPieces('Share the dashboard: sharingLinkOptions, dashboard_id and a password.', termSet(hits[0]!.terms))
      .filter((p) => p.mark)
      .map((p) => p.text);
    expect(hits[0]!.sectionRoute).toBe('/sharing/links#password');
    expect(marked).toEqual(['Share', 'password']);
    expect(marked).not.toContain('sharingLinkOptions');
  });
});

describe('wholeQueryTerms', () => {
  it('keeps an exact term alone and a prefix-only term with its completions', () => {
    expect(wholeQueryTerms(['password', 'passwordprotect', 'dashboardid', 'dashboard'], ['password', 'dashboard'])).toEqual(['password', 'dashboard']);
    expect(wholeQueryTerms(['schedul', 'scheduling'], ['sched'])).toEqual(['schedul', 'scheduling']);
    expect(wholeQueryTerms(['email'], ['email', 'zzz'])).toEqual(['email']);
  });
});
