import { OpenAPIHono } from '@hono/zod-openapi';
import { ApiError, API_VERSION } from '@cairn/core';
import type { AppEnv } from './env.ts';
import { errorResponse, fromZod, onError } from './lib/errors.ts';
import { withDb } from './lib/db.ts';
import { methodNotAllowed, methodsForPath } from './lib/method-not-allowed.ts';
import { refuseNulInUrl } from './lib/url-guard.ts';
import { servedDocument } from './lib/openapi.ts';
import { authenticate } from './auth/authenticate.ts';
import { rateLimit } from './auth/rate-limit.ts';
import { readCache } from './lib/read-cache.ts';
import { accountRoutes } from './auth/account-routes.ts';
import { passwordResetRoutes } from './auth/password-reset-routes.ts';
import { sessionRoutes } from './auth/session-routes.ts';
import { twoFactorRoutes } from './auth/two-factor-routes.ts';
import { ssoRoutes } from './auth/sso/routes.ts';
import { orgSecurityRoutes } from './auth/org-security.ts';
import { dashboardRoutes } from './resources/dashboards/routes.ts';
import { reportRoutes } from './resources/reports/routes.ts';
import { dashboardGroupRoutes } from './resources/dashboard-groups/routes.ts';
import { dashboardSharingLinkRoutes } from './resources/dashboard-sharing-links/routes.ts';
import { exportJobRoutes } from './resources/export-jobs/routes.ts';
import { renderRoutes } from './resources/export-jobs/render-routes.ts';
import { filterRoutes } from './resources/filters/routes.ts';
import { sqlSnippetRoutes } from './resources/sql-snippets/routes.ts';
import { dashboardScheduleRoutes } from './resources/dashboard-schedules/routes.ts';
import { scheduleTestRoutes } from './resources/dashboard-schedules/send-test.ts';
import { datasourceRoutes } from './resources/datasources/routes.ts';
import { datasourceAgentRoutes } from './resources/datasource-agents/routes.ts';
import { connectAgent } from './resources/datasource-agents/connect.ts';
import { AGENT_CONNECT_PATH } from '@cairn/core/agent-protocol';
import { sqlAlertRoutes } from './resources/sql-alerts/routes.ts';
import { userRoutes } from './resources/users/routes.ts';
import { userGroupRoutes } from './resources/user-groups/routes.ts';
import { apiKeyRoutes } from './resources/api-keys/routes.ts';
import { executionRoutes } from './resources/executions/routes.ts';
import { dashboardStatusRoutes } from './resources/dashboard-status/routes.ts';
import { dashboardDataRoutes } from './resources/dashboard-data/routes.ts';
import { invitationRoutes } from './resources/invitations/routes.ts';
import { publicLinkRoutes, sharingSecretRoutes } from './resources/public-links/routes.ts';
import { organizationRoutes } from './resources/organization/routes.ts';
import { benchRoutes } from './bench-routes.ts';

/**
 * The API server's one app factory: request id, database, error envelope, authentication,
 * rate limit, the resource modules, and the OpenAPI document built from the same zod schemas.
 */
export function createApp() {
  const app = new OpenAPIHono<AppEnv>({
    defaultHook: (result, c) => {
      if (!result.success) {
        const isQuery = (result as { target?: string }).target === 'query' || (result as { target?: string }).target === 'param';
        return errorResponse(c as never, fromZod(result.error, '', isQuery ? 'parameter' : 'pointer'));
      }
    },
  });

  app.use('*', async (c, next) => {
    c.set('requestId', c.req.header('cf-ray') ?? crypto.randomUUID());
    await next();
    c.res.headers.set('x-request-id', c.get('requestId'));
  });
  app.onError(onError);
  app.use('*', refuseNulInUrl);
  // A known path with a method it lacks is a 405 naming the methods it has; only an unknown path is a 404.
  const allowedMethods = methodsForPath();
  app.notFound((c) => {
    const path = new URL(c.req.url).pathname;
    const allow = allowedMethods(app, path);
    if (allow.length && !allow.includes(c.req.method)) {
      return errorResponse(c, methodNotAllowed(c.req.method, path, allow), { allow: allow.join(', ') });
    }
    return errorResponse(c, new ApiError('not_found', `No route for ${c.req.method} ${path}.`));
  });

  // Unauthenticated, no database: liveness, and the bare route benchmarks compare against.
  app.get('/health', (c) => c.json({ ok: true, service: 'cairn-api', region: c.env.REGION, version: API_VERSION }));
  app.get('/bench/bare', (c) => c.json({ ok: true }));

  // Built from the routes' schemas at each call, then shaped for clients (see servedDocument).
  app.get('/openapi.json', (c) =>
    c.json(
      servedDocument(
        app.getOpenAPI31Document({
          openapi: '3.1.0',
          info: {
            title: 'Cairn API',
            version: API_VERSION,
            description:
              'Create, read, update and delete Cairn resources. JSON:API for CRUD, plain JSON for actions. Authenticate with `Authorization: Api <key>`.',
          },
          servers: [{ url: new URL(c.req.url).origin, description: `API server (${c.env.REGION.toUpperCase()})` }],
          security: [{ ApiKey: [] }],
        }),
      ),
    ),
  );
  app.openAPIRegistry.registerComponent('securitySchemes', 'ApiKey', {
    type: 'apiKey',
    in: 'header',
    name: 'Authorization',
    description: 'The value is `Api <key>`, e.g. `Api cairn_AbC…_…`.',
  });

  app.use('*', withDb);
  // Every answer from here on is about one caller's data, and some carry data access tokens (status
  // polls, data handles): no shared or browser cache may keep them. The read cache's conditional reads
  // set their own policy (private, no-cache with an ETag), which is kept.
  app.use('*', async (c, next) => {
    await next();
    if (!c.res.headers.has('cache-control')) c.res.headers.set('cache-control', 'private, no-store');
  });
  app.route('/', sessionRoutes);
  app.route('/', accountRoutes);
  app.route('/', twoFactorRoutes);
  app.route('/', passwordResetRoutes);
  app.route('/', ssoRoutes);
  app.route('/', orgSecurityRoutes);
  app.route('/', invitationRoutes);
  app.route('/', publicLinkRoutes);
  app.route('/', renderRoutes);
  // The datasource agent's WebSocket: it authenticates with its own secret, not an API key.
  app.get(AGENT_CONNECT_PATH, connectAgent);
  app.use('*', authenticate, rateLimit, readCache);
  app.route(
    '/',
    benchRoutes(() => (app.router as { name?: string }).name),
  );
  app.route('/', dashboardRoutes);
  app.route('/', reportRoutes);
  app.route('/', dashboardGroupRoutes);
  app.route('/', dashboardSharingLinkRoutes);
  app.route('/', exportJobRoutes);
  app.route('/', filterRoutes);
  app.route('/', sqlSnippetRoutes);
  app.route('/', dashboardScheduleRoutes);
  app.route('/', scheduleTestRoutes);
  app.route('/', datasourceRoutes);
  app.route('/', datasourceAgentRoutes);
  app.route('/', sqlAlertRoutes);
  app.route('/', userRoutes);
  app.route('/', userGroupRoutes);
  app.route('/', apiKeyRoutes);
  app.route('/', executionRoutes);
  app.route('/', dashboardStatusRoutes);
  app.route('/', dashboardDataRoutes);
  app.route('/', organizationRoutes);
  app.route('/', sharingSecretRoutes);
  return app;
}
