/**
 * Link checking across all pages after they compiled. A link to a docs route that does not exist
 * is an error (the build fails); a markdown link to a page file that does not exist and a link to a
 * missing heading anchor are warnings.
 */
import { posix } from 'node:path';
import { DocPathError, normalizeDocPath, routeForPageFile } from '../paths.ts';
import type { PageLink } from './remark.ts';

export interface LinkedPage {
  /** Path relative to the pages folder, with forward slashes. */
  file: string;
  route: string;
  links: PageLink[];
  headingIds: Set<string>;
}

/** Site paths served by the web app, not by docs pages: the analyst app and public share links. */
export const DEFAULT_NON_DOC_PREFIXES = ['/app', '/s'];

export function checkLinks(pages: LinkedPage[], nonDocPrefixes: string[] = DEFAULT_NON_DOC_PREFIXES) {
  const byRoute = new Map(pages.map((p) => [p.route, p]));
  const errors: string[] = [];
  const warnings: string[] = [];
  for (const page of pages) {
    for (const link of page.links) {
      const where = `${page.file}${link.line ? `:${link.line}` : ''}`;
      if (link.markdownTarget !== undefined) {
        const problem = checkMarkdownLink(link.markdownTarget, byRoute);
        if (problem) warnings.push(`${where}: broken markdown link "${link.url}" — ${problem}`);
        continue;
      }
      const url = link.url.trim();
      if (!url || /^[a-z][a-z\d+.-]*:/i.test(url) || url.startsWith('//')) continue;
      const hashAt = url.indexOf('#');
      const pathPart = (hashAt === -1 ? url : url.slice(0, hashAt)).replace(/\?.*$/s, '');
      const hash = hashAt === -1 ? '' : url.slice(hashAt + 1);
      let target: string;
      try {
        target = resolveTarget(page, pathPart);
      } catch (err) {
        errors.push(`${where}: broken link "${link.url}": ${(err as Error).message}`);
        continue;
      }
      if (nonDocPrefixes.some((p) => target === p || target.startsWith(`${p}/`))) continue;
      const targetPage = byRoute.get(target);
      if (!targetPage) {
        errors.push(`${where}: broken link "${link.url}" — no docs page has the route ${target}`);
        continue;
      }
      const anchor = missingAnchor(targetPage, hash);
      if (anchor !== null) warnings.push(`${where}: broken anchor "${link.url}" — ${target} has no heading with id "${anchor}"`);
    }
  }
  return { errors, warnings };
}

function resolveTarget(page: LinkedPage, pathPart: string): string {
  if (!pathPart) return page.route;
  if (/\.mdx?$/i.test(pathPart)) {
    // A link to a page file, relative to the linking file or to the pages folder.
    const rel = pathPart.startsWith('/') ? pathPart.slice(1) : posix.join(posix.dirname(page.file), pathPart);
    const normalized = posix.normalize(rel);
    if (normalized.startsWith('..')) throw new Error('points outside the pages folder');
    return routeForPageFile(normalized);
  }
  if (pathPart.startsWith('/')) return normalizeDocPath(pathPart);
  // Relative URL: resolved the way the browser will, against the page's own route.
  const resolved = new URL(pathPart, `http://docs.invalid${page.route}`).pathname;
  try {
    return normalizeDocPath(resolved);
  } catch (err) {
    if (err instanceof DocPathError) throw new Error('invalid percent-encoding');
    throw err;
  }
}

/** The decoded anchor when `page` has no heading with that id, else null (also for no anchor). */
function missingAnchor(page: LinkedPage, hash: string): string | null {
  if (!hash) return null;
  let anchor = hash;
  try {
    anchor = decodeURIComponent(hash);
  } catch {
    /* keep it raw; it will not match */
  }
  return page.headingIds.has(anchor) ? null : anchor;
}

/** What is wrong with a markdown link already rewritten to `target` (`/route#hash`), or null. */
function checkMarkdownLink(target: string, byRoute: Map<string, LinkedPage>): string | null {
  if (!target) return 'the file path cannot be decoded';
  const hashAt = target.indexOf('#');
  const route = hashAt === -1 ? target : target.slice(0, hashAt);
  const page = byRoute.get(route);
  if (!page) return `no page file for the route ${route}`;
  const anchor = missingAnchor(page, hashAt === -1 ? '' : target.slice(hashAt + 1));
  return anchor === null ? null : `${route} has no heading with id "${anchor}"`;
}
