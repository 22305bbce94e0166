import type { OpenAPIHono, RouteConfig } from '@hono/zod-openapi';
import type { Context, Handler } from 'hono';
import { ApiError, type Permission } from '@cairn/core';
import type { AppEnv } from '../env.ts';

/**
 * How the read cache (lib/read-cache.ts) treats a route's answers:
 * - `org-version`: a GET whose 200 answer is kept per caller and URL while the organization's version
 *   is unchanged (ETag, If-None-Match);
 * - `poll`: the dashboard status poll, a POST that only reads, its answer reused for a moment;
 * - `none`: computed every time.
 */
type RouteCache = 'org-version' | 'poll' | 'none';

/** What a route declares beside its OpenAPI description, in one registry (routeMetaOf). */
interface RouteMeta {
  method: string;
  /** The OpenAPI path, e.g. /dashboards/{id}/status. */
  path: string;
  /** `x-permissions` of the route: any one of them lets a caller reach it. */
  permissions: readonly Permission[];
  cache: RouteCache;
  /** True when a call may change what the organization's version covers (every method but GET, unless declared). */
  writes: boolean;
}

/** A route as defineRoute takes it: its OpenAPI config plus the metadata that is not documented. */
type DefinedRoute = RouteConfig & { cache?: RouteCache; writes?: boolean };

/** Every route defined here, by method and Hono path (`GET /dashboards/:id`). */
const registry = new Map<string, RouteMeta>();

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
 *
 * `cache` and `writes` are kept in the route registry (routeMetaOf) and left out of the document.
 */
export function defineRoute(app: OpenAPIHono<AppEnv>, route: DefinedRoute, handler: Handler<AppEnv>) {
  const { cache = 'none', writes, ...config } = route;
  app.openAPIRegistry.registerPath(config);
  const method = config.method.toUpperCase();
  const path = config.path.replace(/\{(\w+)\}/g, ':$1');
  const key = `${method} ${path}`;
  if (registry.has(key)) throw new Error(`route ${key} is defined twice`);
  const permissions = ((config as { 'x-permissions'?: Permission[] })['x-permissions'] ?? []) as Permission[];
  registry.set(key, { method, path: config.path, permissions, cache, writes: writes ?? method !== 'GET' });
  const known = queryParameterNames(config);
  app.on(method, path, (c, next) => {
    refuseUnknownQueryParameters(c, known);
    return handler(c, next);
  });
}

/**
 * The metadata of the defined route that will answer this request: the first matched route (in the
 * order they run) that defineRoute registered. Undefined for paths no defined route takes.
 */
export function routeMetaOf(c: Context): RouteMeta | undefined {
  const method = c.req.method === 'HEAD' ? 'GET' : c.req.method;
  // `c.req.matchedRoutes` rather than hono/route's matchedRoutes(c): under the tests' module bundling
  // that helper sees another copy of Hono's private symbol and finds no match result.
  for (const r of c.req.matchedRoutes) {
    if (r.method !== method) continue;
    const meta = registry.get(`${method} ${r.path}`);
    if (meta) return meta;
  }
  return undefined;
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
