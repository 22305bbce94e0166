import { ApiError } from '@cairn/core';
import type { Hono } from 'hono';
import { TrieRouter } from 'hono/router/trie-router';

/**
 * Which methods a path has, read from the app's own registered routes (never a hand-kept list), so
 * a known path called with a method it lacks answers 405 with an `Allow` header, and only a path no
 * route matches answers 404. Middleware (method `ALL`, e.g. `use('*')`) is not a route and is left
 * out. Hono answers HEAD for every GET route, so HEAD is listed wherever GET is.
 *
 * The lookup router is built on the first miss, when every route is registered; it holds each route
 * under the catch-all method with the route's real method as its payload, so one match finds them all.
 */
export function methodsForPath() {
  let router: TrieRouter<string> | null = null;
  return (app: Hono<any, any, any>, path: string): string[] => {
    if (!router) {
      router = new TrieRouter<string>();
      for (const r of app.routes) if (r.method !== 'ALL') router.add('ALL', r.path, r.method.toUpperCase());
    }
    const [matches] = router.match('GET', path) as unknown as [[string, unknown][]];
    const methods = new Set(matches.map(([method]) => method));
    if (methods.has('GET')) methods.add('HEAD');
    const order = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];
    return [...methods].sort((a, b) => (order.indexOf(a) + 1 || 99) - (order.indexOf(b) + 1 || 99));
  };
}

export const methodNotAllowed = (method: string, path: string, allow: string[]) =>
  new ApiError('method_not_allowed', `${method} is not a method of ${path}; it takes ${allow.join(', ')}.`, {
    meta: { allow },
  });
