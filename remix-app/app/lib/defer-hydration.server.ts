/**
 * Docs pages paint before their JavaScript is fetched (ARCHITECTURE.md D28).
 *
 * React Router writes a `modulepreload` link per module of the page into `<head>` and one inline
 * module script that imports them and hydrates. The browser then fetches ~130 KB of scripts alongside
 * the document and the stylesheets, and on a slow phone connection the first paint of the text waits
 * for bandwidth the scripts took. On docs pages the server-rendered document is complete and readable
 * without scripts, so this moves both out of the critical path: the links are removed from the
 * document, and a small classic script adds them back (at once, as one fragment), then the module script, once the first frame
 * has been drawn (a task after an animation frame; or after FALLBACK_MS when no frame comes, as in a
 * background tab). Nothing else changes: the same modules load, in parallel, and hydrate the same DOM.
 */

/**
 * Routes whose documents paint before their scripts load: the docs (D28) and a sharing link's dashboard
 * (D67), whose server-rendered frame, titles and tile places are what an embedded viewer sees first.
 */
// The sharing link's dashboard ('routes/s.$token') was tried (D67) and taken back: its filter bar and
// hash state did not answer until the deferred scripts ran, and the browser tests of sharing links failed.
const DEFERRED_ROUTES = new Set(['docs-layout']);

/** Whether a document whose matched routes have these ids starts its scripts after the first paint. */
export function defersHydration(routeIds: Iterable<string>): boolean {
  for (const id of routeIds) if (DEFERRED_ROUTES.has(id)) return true;
  return false;
}

const MODULEPRELOAD = /<link rel="modulepreload" href="([^"]+)"\/>/g;
const BOOT_MODULE = /<script type="module" async="">([\s\S]*?)<\/script>/;
const FALLBACK_MS = 200;

/** JSON for a string inside an inline script: nothing in it can close the element or open a comment. */
function scriptString(text: string): string {
  return JSON.stringify(text)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/** The document with hydration started after the first paint; unchanged when it has no boot module. */
export function deferHydration(html: string): string {
  const boot = BOOT_MODULE.exec(html);
  if (!boot) return html;
  // React Router may list a module twice (the entry, again as a route's dependency): one link each.
  const preloads = [...new Set([...html.matchAll(MODULEPRELOAD)].map((m) => m[1]!))];
  const loader =
    '<script>(function(){var done=false,hrefs=' +
    scriptString(JSON.stringify(preloads)) +
    ',code=' +
    scriptString(boot[1]!) +
    ';' +
    'function go(){if(done)return;done=true;var f=document.createDocumentFragment();JSON.parse(hrefs).forEach(function(h){' +
    'var l=document.createElement("link");l.rel="modulepreload";l.href=h;f.appendChild(l)});document.head.appendChild(f);' +
    'var s=document.createElement("script");s.type="module";' +
    's.textContent=code;document.body.appendChild(s)}' +
    `requestAnimationFrame(function(){setTimeout(go,0)});setTimeout(go,${FALLBACK_MS})})()</script>`;
  return html.slice(0, boot.index).replace(MODULEPRELOAD, '') + loader + html.slice(boot.index + boot[0].length);
}
