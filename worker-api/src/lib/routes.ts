import type { OpenAPIHono, RouteConfig } from '@hono/zod-openapi';
import type { Handler } from 'hono';
import type { AppEnv } from '../env.ts';

/**
 * Documents a route in the OpenAPI registry and mounts a plain handler for it. Bodies, includes
 * and pages are validated by our own readers (lib/resource-body.ts, lib/body.ts, lib/jsonapi.ts),
 * which answer 415/400/422 with pointers, so the generated validator is not used: one schema
 * still both documents and validates.
 */
export function defineRoute(app: OpenAPIHono<AppEnv>, route: RouteConfig, handler: Handler<AppEnv>) {
  app.openAPIRegistry.registerPath(route);
  const path = route.path.replace(/\{(\w+)\}/g, ':$1');
  app.on(route.method.toUpperCase(), path, handler);
}
