import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDocs, type BuildResult } from '../src/build.ts';
import { loadSearchIndex, searchDocs } from '../src/search.ts';
import type { GeneratedPage } from '../src/types.ts';

let outDir: string;
let result: BuildResult;

beforeAll(async () => {
  outDir = join(await mkdtemp(join(tmpdir(), 'cairn-docs-real-')), 'out');
  result = await buildDocs({ outDir });
});
afterAll(() => rm(join(outDir, '..'), { recursive: true, force: true }));

describe('the real docs/pages', () => {
  it('build without errors or warnings', () => {
    expect(result.routes).toEqual(expect.arrayContaining(['/', '/administration/api-keys']));
    expect(result.warnings).toEqual([]);
  });

  it('render the data round trip diagram and the curl example', async () => {
    const index = JSON.parse(await readFile(join(outDir, 'pages', 'index.json'), 'utf8')) as GeneratedPage;
    // Drawn at build time (or taken from docs/mermaid-cache): an SVG, no diagram source left.
    expect(index.html).toMatch(/<figure class="mermaid-diagram"><svg [^>]*role="img"[\s\S]*POST \/reports\/\{id\}\/data[\s\S]*GET \/data\/\{dataKey\}/);
    expect(index.html).not.toContain('<pre class="mermaid"');
    expect(result.diagrams.browser).toBe(0);
    const keys = JSON.parse(await readFile(join(outDir, 'pages', 'administration__api-keys.json'), 'utf8')) as GeneratedPage;
    expect(keys.html).toContain('<code class="language-sh">');
    expect(keys.html).toContain('Authorization: Api $KEY');
    expect(keys.html).toContain('<table>');
    expect(keys.toc.map((t) => t.id)).toContain('permissions');
  });

  it('find the permissions section of the API keys page first for "api key permissions"', async () => {
    const file = JSON.parse(await readFile(join(outDir, 'search', 'search-index-docs-default-current.json'), 'utf8'));
    const hits = searchDocs(loadSearchIndex(file), 'api key permissions');
    expect(hits[0]?.sectionRoute).toBe('/administration/api-keys#permissions');
  });
});
