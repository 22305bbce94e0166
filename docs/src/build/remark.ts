/**
 * Remark plugins run inside mdx-bundler for every page:
 * - `remarkMermaid`: ```mermaid fences become `<pre class="mermaid" data-mermaid="KEY">` holding the
 *   diagram text (React escapes it when rendering); the build swaps in the SVG (see mermaid.ts).
 * - `remarkMarkdownLinks`: a link to a page file (`./users.mdx#roles`) points at that page's route.
 * - `remarkPageFacts`: gives headings stable ids and records what the build needs besides the
 *   HTML: the table of contents, every heading id, internal link targets and the text of each
 *   section for the search index.
 */
import { posix } from 'node:path';
import type { Heading, Nodes, Parent, Root } from 'mdast';
import { routeForPageFile } from '../paths.ts';
import { createSlugger } from '../slugger.ts';
import type { TocEntry } from '../types.ts';

export interface PageLink {
  /** The link as written. */
  url: string;
  line: number | undefined;
  /** Set for a link to a page file (`.md`/`.mdx`): the route it was rewritten to, with its #hash. */
  markdownTarget?: string;
}

export interface PageSection {
  /** null for the text before the first h2 (titled with the page title later). */
  title: string | null;
  anchor: string | null;
  text: string;
}

export interface PageFacts {
  toc: TocEntry[];
  headingIds: Set<string>;
  links: PageLink[];
  sections: PageSection[];
}

export function emptyFacts(): PageFacts {
  return { toc: [], headingIds: new Set(), links: [], sections: [] };
}

interface JsxElement {
  name: string | null;
  attributes: { type: string; name?: string; value?: unknown }[];
  position?: { start: { line: number } };
}

type AnyNode = Nodes & { children?: AnyNode[]; value?: string; data?: Record<string, unknown> };

/** `diagrams` collects KEY → source for the build; `keyOf` is mermaid.ts's `mermaidKey`. */
export function remarkMermaid(diagrams: Map<string, string>, keyOf: (source: string) => string) {
  return () => (tree: Root) => {
    walk(tree as AnyNode, (node, parent, index) => {
      if (node.type !== 'code' || node.lang !== 'mermaid' || !parent || index === undefined) return;
      const value = node.value;
      const key = keyOf(value);
      diagrams.set(key, value);
      // An unknown node type with hName/hChildren is turned into exactly that element by mdast-util-to-hast.
      parent.children![index] = {
        type: 'mermaid',
        value,
        data: { hName: 'pre', hProperties: { className: ['mermaid'], dataMermaid: key }, hChildren: [{ type: 'text', value }] },
      } as unknown as AnyNode;
    });
  };
}

const MARKDOWN_FILE = /^([^?#]*\.mdx?)(\?[^#]*)?(#.*)?$/i;

/**
 * Rewrites links to page files into routes, relative to `file` (the page's path in the pages folder)
 * or to the pages folder for a leading `/`: `../filters/date.mdx#x` → `/filters/date#x`. The original
 * link is recorded (with its target) for the link check, which warns when no page has that route.
 */
export function remarkMarkdownLinks(file: string, facts: PageFacts) {
  return () => (tree: Root) => {
    walk(tree as AnyNode, (node) => {
      if (node.type !== 'link' && node.type !== 'definition') return;
      const url = node.url.trim();
      if (/^[a-z][a-z\d+.-]*:/i.test(url) || url.startsWith('//')) return;
      const m = MARKDOWN_FILE.exec(url);
      if (!m) return;
      const rel = m[1]!.startsWith('/') ? m[1]!.slice(1) : posix.join(posix.dirname(file), m[1]!);
      const line = node.position?.start.line;
      (node as AnyNode).data = { ...(node as AnyNode).data, markdownLink: true };
      let target: string;
      try {
        target = routeForPageFile(posix.normalize(decodeURI(rel)));
      } catch {
        facts.links.push({ url, line, markdownTarget: '' }); // reported as broken by the link check
        return;
      }
      const hash = m[3] ?? '';
      facts.links.push({ url, line, markdownTarget: `${target}${hash}` });
      node.url = `${target}${m[2] ?? ''}${hash}`;
    });
  };
}

/** Skipped for search text: imports/exports, expressions, frontmatter, diagrams. */
const NO_TEXT = new Set(['yaml', 'toml', 'mdxjsEsm', 'mdxFlowExpression', 'mdxTextExpression', 'mermaid', 'html']);
const INLINE = new Set([
  'paragraph', 'heading', 'emphasis', 'strong', 'delete', 'link', 'linkReference', 'tableCell', 'mdxJsxTextElement',
]);

export function textOf(node: AnyNode): string {
  if (NO_TEXT.has(node.type)) return '';
  if (node.type === 'text' || node.type === 'inlineCode' || node.type === 'code') return node.value ?? '';
  if (node.type === 'break') return ' ';
  if (node.type === 'image' || node.type === 'imageReference') return (node as { alt?: string | null }).alt ?? '';
  if (!node.children) return '';
  return node.children.map(textOf).join(INLINE.has(node.type) ? '' : ' ');
}

const squash = (s: string) => s.replace(/\s+/g, ' ').trim();

export function remarkPageFacts(facts: PageFacts) {
  return () => (tree: Root) => {
    const slug = createSlugger();
    walk(tree as AnyNode, (node) => {
      if (node.type === 'heading' && node.depth >= 2) {
        const title = squash(textOf(node as AnyNode));
        const id = slug(title);
        const data = (node.data ??= {}) as { hProperties?: Record<string, unknown> };
        data.hProperties = { ...data.hProperties, id };
        facts.headingIds.add(id);
        if (node.depth <= 3) facts.toc.push({ depth: node.depth as 2 | 3, id, title });
      } else if (node.type === 'link' || node.type === 'definition') {
        if ((node as AnyNode).data?.markdownLink) return; // recorded by remarkMarkdownLinks
        facts.links.push({ url: node.url, line: node.position?.start.line });
      } else if ((node.type as string) === 'mdxJsxFlowElement' || (node.type as string) === 'mdxJsxTextElement') {
        // <a href="/x"> written as JSX is checked like a markdown link.
        const el = node as unknown as JsxElement;
        if (el.name !== 'a') return;
        for (const attr of el.attributes) {
          if (attr.type === 'mdxJsxAttribute' && attr.name === 'href' && typeof attr.value === 'string') {
            facts.links.push({ url: attr.value, line: el.position?.start.line });
          }
        }
      }
    });

    // Sections for search: split the top level at h2/h3 (ids were assigned above).
    let current: PageSection & { parts: string[] } = { title: null, anchor: null, text: '', parts: [] };
    const flush = () => {
      current.text = squash(current.parts.join(' '));
      // The intro is always kept (even empty) so the page title itself is searchable.
      facts.sections.push({ title: current.title, anchor: current.anchor, text: current.text });
    };
    for (const child of tree.children as AnyNode[]) {
      if (child.type === 'heading' && (child as Heading).depth <= 3 && (child as Heading).depth >= 2) {
        flush();
        const id = (child.data as { hProperties?: { id?: string } } | undefined)?.hProperties?.id ?? null;
        current = { title: squash(textOf(child)), anchor: id, text: '', parts: [] };
      } else {
        current.parts.push(textOf(child));
      }
    }
    flush();
  };
}

function walk(node: AnyNode, visit: (node: AnyNode, parent: AnyNode | undefined, index: number | undefined) => void, parent?: AnyNode, index?: number) {
  visit(node, parent, index);
  const children = (node as Parent & AnyNode).children;
  if (!children) return;
  for (let i = 0; i < children.length; i++) walk(children[i]!, visit, node, i);
}

interface HastNode {
  type: string;
  tagName?: string;
  value?: string;
  properties?: Record<string, unknown>;
  children?: HastNode[];
}

function hastText(node: HastNode): string {
  if (node.type === 'text') return node.value ?? '';
  return (node.children ?? []).map(hastText).join('');
}

/** Rehype: h2–h6 with an id get a "#" link to themselves (shown on hover or focus). */
export function rehypeHeadingLinks() {
  return (tree: HastNode) => {
    const visit = (node: HastNode) => {
      if (node.type === 'element' && /^h[2-6]$/.test(node.tagName ?? '') && typeof node.properties?.id === 'string') {
        const id = node.properties.id;
        node.children = [
          ...(node.children ?? []),
          {
            type: 'element',
            tagName: 'a',
            properties: { className: ['hash-link'], href: `#${id}`, ariaLabel: `Direct link to ${squash(hastText(node))}` },
            children: [{ type: 'text', value: '#' }],
          },
        ];
        return;
      }
      for (const child of node.children ?? []) visit(child);
    };
    visit(tree);
  };
}
