import type { OpenAPIHono, RouteConfig } from '@hono/zod-openapi';
import type { Context, Handler } from 'hono';
import { ApiError } from '@cairn/core';
import type { AppEnv } from '../env.ts';

/**
 * Documents a route in the OpenAPI registry and mounts a plain handler for it. Bodies, includes
 * and pages are validated by our own readers (lib/resource-body.ts, lib/body.ts, lib/jsonapi.ts),
 * which answer 415/400/422 with pointers, so the generated validator is not used: one schema
 * still both documents and validates.
 *
 * The route's declared query schema is also the list of query parameters it takes: any other
 * parameter is refused with 400 invalid_query_parameter naming it, before the handler runs, so an
 * input that would have no effect (a misspelt `filter[nme]`, a `sort` on a call without one) is never
 * silently ignored.
 */
export function defineRoute(app: OpenAPIHono<AppEnv>, route: RouteConfig, handler: Handler<AppEnv>) {
  app.openAPIRegistry.registerPath(route);
  const path = route.path.replace(/\{(\w+)\}/g, ':$1');
  const known = queryParameterNames(route);
  app.on(route.method.toUpperCase(), path, (c, next) => {
    refuseUnknownQueryParameters(c, known);
    return handler(c, next);
  });
}

/** The names of the route's declared query parameters (the keys of its `request.query` object). */
function queryParameterNames(route: RouteConfig): readonly string[] {
  const query = route.request?.query as { shape?: Record<string, unknown> } | undefined;
  return query?.shape ? Object.keys(query.shape) : [];
}

function refuseUnknownQueryParameters(c: Context, known: readonly string[]) {
  const query = c.req.url.indexOf('?');
  if (query < 0) return;
  const names = [...new Set(new URL(c.req.url).searchParams.keys())];
  const unknown = names.filter((n) => !known.includes(n));
  if (!unknown.length) return;
  const takes = known.length ? `this call takes ${known.join(', ')}` : 'this call takes no query parameters';
  const [first, ...more] = unknown.map(
    (n) => new ApiError('invalid_query_parameter', `Unknown query parameter "${n}"; ${takes}.`, { source: { parameter: n } }),
  );
  throw new ApiError(first!.code, first!.message, { source: first!.source, more });
}
