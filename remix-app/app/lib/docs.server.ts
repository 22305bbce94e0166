/** The docs pages come pre-rendered from @cairn/docs; the app only frames them. */
import { docRoutes, docSidebar, loadDocPage } from '@cairn/docs/runtime';

export type { DocPage } from './docs-fallback.server.ts';
export { docRoutes, docSidebar, loadDocPage };
export type SidebarGroups = { label: string; items: { route: string; title: string }[] }[];

/** `/guide/index`, `/guide.html` and `/guide/index.html` are served at `/guide` (and `/index` at `/`). */
export function canonicalDocPath(pathname: string): string | null {
  let p = pathname;
  if (p.endsWith('.html')) p = p.slice(0, -'.html'.length);
  if (p === '/index') p = '/';
  else if (p.endsWith('/index')) p = p.slice(0, -'/index'.length) || '/';
  return p === pathname ? null : p;
}
