/** Which clicks on links inside a page's HTML are handled by the router instead of a full page load. */

/** Paths of the web app that are not docs pages: followed with a normal page load. */
const NON_DOCS_PREFIXES = ['/app', '/s/', '/api/v'];

export interface ClickInfo {
  href: string | null;
  target: string | null;
  download: boolean;
  button: number;
  modifier: boolean;
  defaultPrevented: boolean;
}

/** The path (with query and hash) to navigate to inside the docs, or null to let the browser handle it. */
export function docsNavigationTarget(click: ClickInfo, currentUrl: string): string | null {
  if (click.defaultPrevented || click.button !== 0 || click.modifier || click.download) return null;
  if (click.target && click.target !== '_self') return null;
  if (click.href === null) return null;
  let url: URL;
  const here = new URL(currentUrl);
  try {
    url = new URL(click.href, here);
  } catch {
    return null;
  }
  if (url.origin !== here.origin) return null;
  const path = url.pathname;
  const docsPage = !NON_DOCS_PREFIXES.some((p) => path === p || path.startsWith(p.endsWith('/') ? p : `${p}/`)) || isApiReference(path);
  if (!docsPage) return null;
  return `${path}${url.search}${url.hash}`;
}

/** The API reference (`/api/v2024-06-01`) is a docs page; other `/api/v…` paths are not ours. */
function isApiReference(path: string): boolean {
  return /^\/api\/v\d{4}-\d{2}-\d{2}$/.test(path);
}
