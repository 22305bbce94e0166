import { Hono } from 'hono';
import { cors } from 'hono/cors';
import { ApiError, API_VERSION } from '@cairn/core';
import type { AppEnv } from './env.ts';
import { errorResponse, onError } from './errors.ts';
import { dataRoutes } from './routes/data.ts';
import { processRoutes } from './routes/process.ts';
import { schemaRoutes } from './routes/schema.ts';
import { exportRoutes } from './routes/exports.ts';
import { dataServerDocument } from './openapi.ts';
import { clientAddress, FailureThrottle } from '../../worker-api/src/auth/failures.ts';

/** Failed data tokens (401) per client address: 30, then one a second; see worker-api/src/auth/failures.ts. */
const tokenFailures = new FailureThrottle('data-token-failures', 1, 30, 'failed data tokens from your address');

/**
 * The data server: hands out stored results and schemas to holders of a data token issued by the
 * API server of the same region. It never accepts API keys.
 */
export function createApp() {
  const app = new Hono<AppEnv>();
  app.use('*', async (c, next) => {
    c.set('requestId', c.req.header('cf-ray') ?? crypto.randomUUID());
    await next();
    c.res.headers.set('x-request-id', c.var.requestId);
  });
  // Tokens, not cookies, authorize these calls, so any origin may read them.
  app.use(
    '*',
    cors({
      origin: '*',
      allowHeaders: ['Authorization', 'Content-Type'],
      exposeHeaders: ['x-request-id', 'content-disposition'],
      maxAge: 600,
    }),
  );
  app.onError(onError);
  app.notFound((c) => errorResponse(c, new ApiError('not_found', `No route for ${c.req.method} ${new URL(c.req.url).pathname}.`)));

  // Every call but /health and /openapi.json carries a data token: an address out of its budget is refused before its
  // token is read, and each 401 counts against the address.
  app.use('*', async (c, next) => {
    const path = new URL(c.req.url).pathname;
    if (path === '/health' || path === '/openapi.json' || c.req.method === 'OPTIONS') return next();
    const address = clientAddress(c.req.header('cf-connecting-ip'));
    tokenFailures.check(address);
    await next();
    if (c.res.status !== 401) return;
    const refused = await tokenFailures.count(c.env.RATE_LIMITER, address);
    if (refused) c.res = errorResponse(c, refused);
  });
  app.get('/health', (c) => c.json({ ok: true, service: 'cairn-data', region: c.env.REGION, version: API_VERSION }));
  app.get('/openapi.json', (c) => c.json(dataServerDocument(new URL(c.req.url).origin, c.env.REGION)));
  dataRoutes(app);
  schemaRoutes(app);
  processRoutes(app);
  exportRoutes(app);
  return app;
}
