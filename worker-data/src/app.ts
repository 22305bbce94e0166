import { Hono } from 'hono';
import { cors } from 'hono/cors';
import { ApiError, API_VERSION } from '@cairn/core';
import type { AppEnv } from './env.ts';
import { errorResponse, onError } from './errors.ts';
import { dataRoutes } from './routes/data.ts';
import { processRoutes } from './routes/process.ts';
import { schemaRoutes } from './routes/schema.ts';
import { exportRoutes } from './routes/exports.ts';

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
  app.use('*', cors({
    origin: '*', allowHeaders: ['Authorization', 'Content-Type'], exposeHeaders: ['x-request-id', 'content-disposition'], maxAge: 600,
  }));
  app.onError(onError);
  app.notFound((c) => errorResponse(c, new ApiError('not_found', `No route for ${c.req.method} ${new URL(c.req.url).pathname}.`)));

  app.get('/health', (c) => c.json({ ok: true, service: 'cairn-data', region: c.env.REGION, version: API_VERSION }));
  dataRoutes(app);
  schemaRoutes(app);
  processRoutes(app);
  exportRoutes(app);
  return app;
}
