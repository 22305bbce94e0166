/** Compiles one MDX page with mdx-bundler and renders it to static HTML in Node. */
import { dirname } from 'node:path';
import { createElement } from 'react';
import { renderToString } from 'react-dom/server';
import { bundleMDX } from 'mdx-bundler';
import remarkGfm from 'remark-gfm';
import { getMDXComponent } from 'mdx-bundler/client/index.js';
import { mermaidKey } from './mermaid.ts';
import { emptyFacts, rehypeHeadingLinks, remarkMarkdownLinks, remarkMermaid, remarkPageFacts, type PageFacts } from './remark.ts';

export interface Frontmatter {
  title: string;
  description?: string;
  sidebar_position?: number;
  tags: string[];
  /** A draft is compiled (so it stays valid) but not published. */
  draft: boolean;
}

export interface CompiledPage {
  frontmatter: Frontmatter;
  html: string;
  facts: PageFacts;
  /** Mermaid diagrams of the page: KEY → source (the HTML holds `<pre class="mermaid" data-mermaid="KEY">`). */
  diagrams: Map<string, string>;
}

/**
 * Throws an Error whose message names the problem (the caller prefixes the file).
 * `file` is the page's path inside the pages folder (for relative links to other page files).
 */
export async function compilePage(source: string, absoluteFile: string, file = ''): Promise<CompiledPage> {
  const facts = emptyFacts();
  const diagrams = new Map<string, string>();
  let result;
  try {
    result = await bundleMDX<Record<string, unknown>>({
    source,
    cwd: dirname(absoluteFile),
    mdxOptions(options) {
      options.remarkPlugins = [
        ...(options.remarkPlugins ?? []),
        remarkGfm,
        remarkMermaid(diagrams, mermaidKey),
        remarkMarkdownLinks(file, facts),
        remarkPageFacts(facts),
      ];
      options.rehypePlugins = [...(options.rehypePlugins ?? []), rehypeHeadingLinks];
      return options;
    },
    esbuildOptions(options) {
      options.target = 'es2022';
      options.logLevel = 'silent'; // failures are reported once, by the build, with the page's name
      return options;
    },
  });
  } catch (err) {
    throw new Error(describeBundleError(err));
  }
  if (result.errors.length > 0) {
    throw new Error(result.errors.map((e) => e.text).join('; '));
  }
  const frontmatter = checkFrontmatter(result.frontmatter);
  const Component = getMDXComponent(result.code);
  const html = renderToString(createElement(Component));
  return { frontmatter, html, facts, diagrams };
}

/**
 * esbuild wraps MDX syntax errors as "Build failed with 1 error: <temp entry>.mdx:5:0: ERROR: [plugin…]
 * Cannot process MDX file with esbuild: 5:1-5:23: Expected …"; keep "line 5:1: Expected …".
 */
function describeBundleError(err: unknown): string {
  const errors = (err as { errors?: { text?: string }[] }).errors;
  const texts = Array.isArray(errors) && errors.length > 0 ? errors.map((e) => e.text ?? '') : [(err as Error).message ?? String(err)];
  return texts
    .map((text) => {
      const t = text.replace(/^[\s\S]*?Cannot process MDX file with esbuild:\s*/, '');
      const m = /^(\d+):(\d+)(?:-\d+:\d+)?:?\s*([\s\S]*)$/.exec(t);
      return m ? `line ${m[1]}:${m[2]}: ${m[3]}` : t;
    })
    .join('; ');
}

export function checkFrontmatter(fm: Record<string, unknown> | undefined): Frontmatter {
  const data = fm ?? {};
  const problems: string[] = [];
  const title = data.title;
  if (typeof title !== 'string' || !title.trim()) problems.push('frontmatter "title" is required (a non-empty string)');
  const description = data.description;
  if (description !== undefined && typeof description !== 'string') problems.push('frontmatter "description" must be a string');
  const position = data.sidebar_position;
  if (position !== undefined && (typeof position !== 'number' || !Number.isFinite(position))) {
    problems.push('frontmatter "sidebar_position" must be a number');
  }
  if (data.draft !== undefined && typeof data.draft !== 'boolean') problems.push('frontmatter "draft" must be true or false');
  const tags = data.tags;
  if (tags !== undefined && (!Array.isArray(tags) || tags.some((t) => typeof t !== 'string'))) {
    problems.push('frontmatter "tags" must be a list of strings');
  }
  if (problems.length > 0) throw new Error(problems.join('; '));
  return {
    title: (title as string).trim(),
    ...(typeof description === 'string' ? { description: description.trim() } : {}),
    ...(typeof position === 'number' ? { sidebar_position: position } : {}),
    tags: (tags as string[] | undefined) ?? [],
    draft: data.draft === true,
  };
}
