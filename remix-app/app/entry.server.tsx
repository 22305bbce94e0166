import { isbot } from 'isbot';
import { renderToReadableStream } from 'react-dom/server';
import type { AppLoadContext, EntryContext } from 'react-router';
import { ServerRouter } from 'react-router';

export const streamTimeout = 10_000;

export default async function handleRequest(
  request: Request,
  responseStatusCode: number,
  responseHeaders: Headers,
  routerContext: EntryContext,
  _loadContext: AppLoadContext,
) {
  let shellRendered = false;
  const userAgent = request.headers.get('user-agent');
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), streamTimeout + 1000);

  const body = await renderToReadableStream(<ServerRouter context={routerContext} url={request.url} />, {
    signal: controller.signal,
    onError(error: unknown) {
      responseStatusCode = 500;
      // Errors while streaming after the shell are logged; before it they reject the promise above.
      if (shellRendered) console.error(error);
    },
  });
  shellRendered = true;
  body.allReady.finally(() => clearTimeout(timer));

  // Crawlers and SPA-mode prerendering get the complete document at once.
  if ((userAgent && isbot(userAgent)) || routerContext.isSpaMode) await body.allReady;

  responseHeaders.set('Content-Type', 'text/html; charset=utf-8');
  responseHeaders.set('X-Content-Type-Options', 'nosniff');
  responseHeaders.set('Referrer-Policy', 'strict-origin-when-cross-origin');
  if (!responseHeaders.has('X-Frame-Options')) responseHeaders.set('X-Frame-Options', 'SAMEORIGIN');
  return new Response(body, { headers: responseHeaders, status: responseStatusCode });
}
