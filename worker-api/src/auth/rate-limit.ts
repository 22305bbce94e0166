import type { MiddlewareHandler } from 'hono';
import { ApiError } from '@cairn/core';
import type { AppEnv } from '../env.ts';
import { errorResponse } from '../lib/errors.ts';

/** Applies the caller's token bucket; answers 429 with Retry-After and RateLimit-* headers. */
export const rateLimit: MiddlewareHandler<AppEnv> = async (c, next) => {
  const p = c.var.principal;
  const bucket = p.kind === 'api_key' ? `key:${p.apiKeyId}` : `user:${p.userId}`;
  const rate = Number(c.env.RATE_LIMIT_RPS ?? 20);
  const burst = Number(c.env.RATE_LIMIT_BURST ?? 200);
  const stub = c.env.RATE_LIMITER.get(c.env.RATE_LIMITER.idFromName(`ratelimit::${bucket}`));
  const d = await stub.take(rate, burst);
  const headers = {
    'ratelimit-limit': String(d.limit),
    'ratelimit-remaining': String(d.remaining),
    'ratelimit-reset': String(d.reset),
    'ratelimit-policy': `${burst};w=${Math.ceil(burst / rate)}`,
  };
  if (!d.allowed) {
    return errorResponse(
      c,
      new ApiError('rate_limited', `Too many requests; retry in ${d.retryAfter} s with exponential backoff.`),
      { ...headers, 'retry-after': String(d.retryAfter) },
    );
  }
  await next();
  for (const [k, v] of Object.entries(headers)) c.res.headers.set(k, v);
};
