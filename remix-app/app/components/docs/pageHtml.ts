/**
 * A page's HTML travels once. A document request (the browser loading a page) gets it in the server
 * rendered markup only, not a second time (escaped) in the hydration data: on the API reference that
 * halves a 1 MB document. Client navigations fetch it with the loader data as usual.
 *
 * Server: the loader keeps the route's HTML here (it is build output, the same for every request) and
 * the component reads it while rendering. Browser: the first render adopts the HTML already in the DOM.
 */
const serverHtml = new Map<string, string>();
let adopted: { route: string; html: string } | null = null;

export const DOC_HTML_ATTRIBUTE = 'data-doc-html';

/** Whether the loader may leave the HTML out: the request loads a whole document. */
export function isDocumentRequest(request: Request): boolean {
  const dest = request.headers.get('sec-fetch-dest');
  return dest === 'document' || dest === 'iframe';
}

export function keepServerHtml(route: string, html: string): void {
  serverHtml.set(route, html);
}

/** The HTML to render for `route`: from the loader data, else from the server cache or the DOM. */
export function pageHtml(route: string, html: string | null): string {
  if (html !== null) return html;
  if (typeof document === 'undefined') return serverHtml.get(route) ?? '';
  if (adopted?.route !== route) adopted = { route, html: document.querySelector(`[${DOC_HTML_ATTRIBUTE}]`)?.innerHTML ?? '' };
  return adopted.html;
}
