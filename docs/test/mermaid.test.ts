/** Mermaid diagrams drawn at build time with Chromium, cached in the repository, and the fallbacks. */
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDocs } from '../src/build.ts';
import { diagramLabel, finishSvg, inlineDiagrams, mermaidKey } from '../src/build/mermaid.ts';
import type { DocsManifest, GeneratedPage } from '../src/types.ts';
import { fixture, page } from './helpers.ts';

const SEQUENCE = `sequenceDiagram
  accTitle: Fetching report rows
  participant P as Program
  participant A as API server
  P->>A: POST /reports/{id}/data
  A-->>P: data key and token`;

const FILES = {
  'index.mdx': page('Home', `Intro.\n\n## Flow\n\n\`\`\`mermaid\n${SEQUENCE}\n\`\`\`\n`),
};

let fx: Awaited<ReturnType<typeof fixture>>;
const cacheDir = () => join(fx.root, 'cache');
const html = (outDir: string) => {
  const m = JSON.parse(readFileSync(join(outDir, 'manifest.json'), 'utf8')) as DocsManifest;
  return (JSON.parse(readFileSync(join(outDir, 'pages', m.routes[0]!.file), 'utf8')) as GeneratedPage).html;
};

beforeAll(async () => {
  fx = await fixture(FILES);
});
afterAll(() => fx.cleanup());

const HAS_CHROMIUM = existsSync(process.env.CAIRN_CHROMIUM ?? '/usr/bin/chromium');

describe('mermaid at build time', () => {
  it.skipIf(!HAS_CHROMIUM)('draws with Chromium, then builds from the cache alone with the same result', async () => {
    const first = await buildDocs({ pagesDir: fx.pagesDir, outDir: join(fx.root, 'out1'), mermaid: { cacheDir: cacheDir() } });
    expect(first.diagrams).toEqual({ rendered: 1, cached: 0, browser: 0 });
    const drawn = html(join(fx.root, 'out1'));
    expect(drawn).toMatch(/<figure class="mermaid-diagram"><svg [^>]*aria-labelledby="[^"]+"[^>]*role="img"/);
    expect(drawn).toContain('Fetching report rows'); // accTitle becomes the SVG's title
    expect(drawn).toContain('POST /reports/{id}/data');

    const second = await buildDocs({ pagesDir: fx.pagesDir, outDir: join(fx.root, 'out2'), mermaid: { cacheDir: cacheDir(), render: false } });
    expect(second.diagrams).toEqual({ rendered: 0, cached: 1, browser: 0 });
    expect(second.warnings).toEqual([]);
    expect(html(join(fx.root, 'out2'))).toBe(drawn);
  });

  it('leaves an uncached diagram to the browser when Chromium is missing, with a warning', async () => {
    const out = join(fx.root, 'out3');
    const r = await buildDocs({ pagesDir: fx.pagesDir, outDir: out, mermaid: { cacheDir: join(fx.root, 'empty-cache'), chromium: '/no/such/chromium' } });
    expect(r.diagrams).toEqual({ rendered: 0, cached: 0, browser: 1 });
    expect(r.warnings).toEqual([
      expect.stringMatching(/index\.mdx: mermaid diagram [0-9a-f]+ is not in the cache and could not be drawn \(\/no\/such\/chromium is missing\)/),
    ]);
    expect(html(out)).toContain(`<pre class="mermaid" data-mermaid="${mermaidKey(SEQUENCE)}">sequenceDiagram`);
  });

  it.skipIf(!HAS_CHROMIUM)('fails the build on a diagram that does not parse, naming the page', async () => {
    const f = await fixture({ 'index.mdx': page('Home', '```mermaid\ngraph TD\n  A -->\n```\n') });
    try {
      await expect(buildDocs({ pagesDir: f.pagesDir, outDir: f.outDir, mermaid: { cacheDir: join(f.root, 'cache') } })).rejects.toThrow(
        /index\.mdx: mermaid diagram does not parse/,
      );
    } finally {
      await f.cleanup();
    }
  });

  it.skipIf(!HAS_CHROMIUM)('prunes cache files no page uses when asked to', async () => {
    const stale = join(cacheDir(), `${'0'.repeat(20)}.svg`);
    writeFileSync(stale, '<svg/>');
    await buildDocs({ pagesDir: fx.pagesDir, outDir: join(fx.root, 'out4'), mermaid: { cacheDir: cacheDir(), render: false, prune: true } });
    expect(existsSync(stale)).toBe(false);
    expect(readdirSync(cacheDir())).toEqual([`${mermaidKey(SEQUENCE)}.svg`]);
  });
});

describe('mermaid helpers', () => {
  it('keys a diagram by its trimmed source', () => {
    expect(mermaidKey('graph TD\n A-->B\n')).toBe(mermaidKey('  graph TD\n A-->B'));
    expect(mermaidKey('graph TD\n A-->B')).not.toBe(mermaidKey('graph TD\n A-->C'));
    expect(mermaidKey('x')).toMatch(/^[0-9a-f]{20}$/);
  });

  it('names a diagram by its accTitle or its kind', () => {
    expect(diagramLabel(SEQUENCE)).toBe('Fetching report rows');
    expect(diagramLabel('%% comment\nflowchart LR\n a-->b')).toBe('Flowchart');
    expect(diagramLabel('stateDiagram-v2\n [*] --> A')).toBe('State diagram');
    expect(diagramLabel('weird\n x')).toBe('Diagram');
  });

  it('makes the root svg a named image', () => {
    const svg = finishSvg('<svg id="mermaid-k" role="graphics-document document" aria-roledescription="flowchart-v2"><g/></svg>', 'k', 'graph TD\n a-->b');
    expect(svg).toBe('<svg id="mermaid-k" aria-label="Flowchart" role="img" data-mermaid-svg="k"><g/></svg>');
  });

  it('inlines known diagrams and leaves unknown ones', () => {
    const out = inlineDiagrams(
      '<pre class="mermaid" data-mermaid="aa">x</pre><pre class="mermaid" data-mermaid="bb">y</pre>',
      new Map([['aa', '<svg id="mermaid-aa"></svg>']]),
    );
    expect(out).toBe('<figure class="mermaid-diagram"><svg id="mermaid-aa"></svg></figure><pre class="mermaid" data-mermaid="bb">y</pre>');
  });
});
