import { renderToReadableStream } from 'react-dom/server';
import type { AppLoadContext, EntryContext } from 'react-router';
import { ServerRouter } from 'react-router';
import { deferHydration, defersHydration } from './lib/defer-hydration.server';
import { applyFraming, framingPolicy } from './lib/framing.server';

export const streamTimeout = 10_000;

export default async function handleRequest(
  request: Request,
  responseStatusCode: number,
  responseHeaders: Headers,
  routerContext: EntryContext,
  _loadContext: AppLoadContext,
) {
  let shellRendered = false;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), streamTimeout + 1000);

  const body = await renderToReadableStream(<ServerRouter context={routerContext} url={request.url} />, {
    signal: controller.signal,
    // Every finished Suspense boundary is written in place, however large (React's default moves
    // boundaries over 12.8 KB to the end of the document and swaps them in with a script, after a
    // reveal delay): the page is drawn as soon as it arrives, and the Preact client hydrates the
    // document as the reader sees it (ARCHITECTURE.md D24).
    progressiveChunkSize: Number.MAX_SAFE_INTEGER,
    onError(error: unknown) {
      // An error while the first pass renders (the shell and every boundary that did not wait) makes
      // the answer a 500; a boundary that failed later is drawn again by the browser: logged only.
      if (shellRendered) console.error(error);
      else responseStatusCode = 500;
    },
  });
  shellRendered = true;
  body.allReady.finally(() => clearTimeout(timer));

  // The whole document at once, for everyone: the browser build can run on Preact (D24), which hydrates
  // what is in the document when it starts and cannot wait for boundaries streamed in later as React does.
  // No loader returns deferred data, so this waits only for lazily imported components to render.
  await body.allReady;

  responseHeaders.set('Content-Type', 'text/html; charset=utf-8');
  responseHeaders.set('X-Content-Type-Options', 'nosniff');
  responseHeaders.set('Referrer-Policy', 'strict-origin-when-cross-origin');
  // Sharing links may be framed by any site, every other page by none (lib/framing.server.ts, D43).
  applyFraming(responseHeaders, framingPolicy(new URL(request.url).pathname));
  // Docs pages and sharing links' dashboards start their scripts after the first paint (D28, D67): the
  // server-rendered document is what their readers see first; the analyst app hydrates at once.
  if (defersHydration(routerContext.staticHandlerContext.matches.map((m) => m.route.id))) {
    const html = deferHydration(await new Response(body).text());
    return new Response(html, { headers: responseHeaders, status: responseStatusCode });
  }
  return new Response(body, { headers: responseHeaders, status: responseStatusCode });
}
