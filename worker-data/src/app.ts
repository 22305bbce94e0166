import { Hono } from 'hono';
import { cors } from 'hono/cors';
import postgres from 'postgres';
import { ApiError, parseDataKey, verifyDataToken, API_VERSION } from '@cairn/core';
import type { AppEnv } from './env.ts';
import { errorResponse, onError } from './errors.ts';
import { findResult, streamResult } from './results.ts';

/**
 * The data server: hands out stored results to holders of a data access token issued by the API
 * server of the same region. It never accepts API keys.
 */
export function createApp() {
  const app = new Hono<AppEnv>();
  app.use('*', async (c, next) => {
    c.set('requestId', c.req.header('cf-ray') ?? crypto.randomUUID());
    await next();
    c.res.headers.set('x-request-id', c.var.requestId);
  });
  // Tokens, not cookies, authorize these calls, so any origin may read them.
  app.use('*', cors({ origin: '*', allowHeaders: ['Authorization', 'Content-Type'], exposeHeaders: ['x-request-id'], maxAge: 600 }));
  app.onError(onError);
  app.notFound((c) => errorResponse(c, new ApiError('not_found', `No route for ${c.req.method} ${new URL(c.req.url).pathname}.`)));

  app.get('/health', (c) => c.json({ ok: true, service: 'cairn-data', region: c.env.REGION, version: API_VERSION }));

  // The data key contains slashes and is sent as is, not URL-encoded.
  app.get('/data/*', async (c) => {
    const key = decodeURIComponent(new URL(c.req.url).pathname.slice('/data/'.length));
    const header = c.req.header('authorization') ?? '';
    const m = /^Data\s+(\S+)$/i.exec(header.trim());
    if (!m) {
      throw new ApiError('unauthorized', 'Send the data access token as "Authorization: Data <token>".', {
        source: { header: 'Authorization' },
      });
    }
    const claims = await verifyDataToken(m[1]!, c.env.DATA_TOKEN_SECRET, { region: c.env.REGION, kind: 'data' });
    if (!parseDataKey(key) || claims.key !== key) {
      throw new ApiError('invalid_data_token', 'This token was issued for another data key.', { source: { parameter: 'dataKey' } });
    }
    const sql = postgres(c.env.HYPERDRIVE.connectionString, { max: 1, fetch_types: false, onnotice: () => {} });
    const close = () => {
      if (!c.env.CAIRN_KEEP_CONNECTIONS) c.executionCtx.waitUntil(sql.end({ timeout: 5 }));
    };
    let result;
    try {
      result = await findResult(sql, claims.org, key);
    } catch (err) {
      close();
      throw err;
    }
    if (!result) {
      close();
      throw new ApiError('not_found', 'No result under this data key; results are kept for 24 hours.');
    }
    return new Response(streamResult(sql, result, close), {
      headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'private, max-age=300' },
    });
  });

  return app;
}
