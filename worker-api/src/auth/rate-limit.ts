import type { MiddlewareHandler } from 'hono';
import { ApiError } from '@cairn/core';
import type { AppEnv, Env } from '../env.ts';
import { errorResponse } from '../lib/errors.ts';
import { waitFor } from '../lib/wait-for.ts';
import { rateLimiterStub } from '../durable/stubs.ts';
import { settingsOf } from '../config.ts';

/**
 * The caller's token bucket lives in a RateLimiter Durable Object (one per key or user). To spare a
 * busy caller one round trip per request, this isolate leases several tokens at once — as many as
 * the caller asked for in the last second (1 to 1000) — spends them locally for at most a second, and
 * gives back what it did not use with the next lease. A caller sending one request now and then
 * leases one token per request, exactly as before; the bucket's budget is the same either way.
 */
interface Lease {
  tokens: number;
  expires: number;
  used: number;
  limit: number;
  remaining: number;
  reset: number;
  /** Another request of this isolate is renewing the lease. */
  pending: boolean;
}
const leases = new Map<string, Lease>();
const LEASE_MS = 1000;
// A lease covers up to a second of the caller's demand: with many concurrent requests, a small lease
// would be renewed many times a second, and each renewal makes the requests behind it wait.
const MAX_LEASE = 1000;

/** Requests per bucket in the current and the previous one-second window: the size of the next lease. */
const demand = new Map<string, { start: number; count: number; prev: number }>();
function noteDemand(bucket: string): number {
  const now = Date.now();
  let d = demand.get(bucket);
  if (!d || now - d.start >= LEASE_MS) {
    d = { start: now, count: 0, prev: d && now - d.start < 2 * LEASE_MS ? d.count : 0 };
    demand.set(bucket, d);
    if (demand.size > 10_000) demand.delete(demand.keys().next().value!);
  }
  d.count += 1;
  return Math.max(d.prev, d.count);
}

async function renew(env: Env, bucket: string, lease: Lease | undefined, rate: number, burst: number, asked: number) {
  const stub = rateLimiterStub(env, bucket);
  const want = Math.min(MAX_LEASE, Math.max(1, asked));
  const leftover = lease && lease.expires > 0 ? lease.tokens : 0;
  const d = await stub.lease(rate, burst, want, leftover);
  const next: Lease = {
    tokens: d.granted,
    expires: Date.now() + LEASE_MS,
    used: 0,
    limit: d.limit,
    remaining: d.remaining,
    reset: d.reset,
    pending: false,
  };
  leases.set(bucket, next);
  if (leases.size > 10_000) leases.delete(leases.keys().next().value!);
  return { lease: next, retryAfter: d.retryAfter };
}

/** Applies the caller's token bucket; answers 429 with Retry-After and RateLimit-* headers. */
export const rateLimit: MiddlewareHandler<AppEnv> = async (c, next) => {
  const p = c.get('principal');
  const bucket = p.kind === 'api_key' ? `key:${p.apiKeyId}` : `user:${p.userId}`;
  const { rateLimitRps: rate, rateLimitBurst: burst } = settingsOf(c.env);
  const asked = noteDemand(bucket);
  let lease = leases.get(bucket);
  let retryAfter = 0;
  // Concurrent requests of one caller wait for the same renewal instead of each asking the object
  // (lib/wait-for.ts: they look again, they do not await the renewing request's promise).
  if (lease?.pending)
    lease =
      (await waitFor(() => {
        const l = leases.get(bucket);
        return l && !l.pending ? l : undefined;
      })) ?? lease;
  if (!lease || lease.pending || lease.tokens < 1 || lease.expires < Date.now()) {
    // The first request of a caller leaves a placeholder, so the others arriving with it wait too.
    const old: Lease = lease ?? { tokens: 0, expires: 0, used: 0, limit: 0, remaining: 0, reset: 0, pending: false };
    if (!lease) leases.set(bucket, old);
    old.pending = true;
    try {
      ({ lease, retryAfter } = await renew(c.env, bucket, old, rate, burst, asked));
      lease.used = 0;
    } finally {
      old.pending = false;
    }
  }
  const headers = {
    'ratelimit-limit': String(lease.limit),
    'ratelimit-remaining': String(Math.max(0, lease.remaining + lease.tokens - 1)),
    'ratelimit-reset': String(lease.reset),
    'ratelimit-policy': `${burst};w=${Math.ceil(burst / rate)}`,
  };
  if (lease.tokens < 1) {
    return errorResponse(c, new ApiError('rate_limited', `Too many requests; retry in ${retryAfter || 1} s with exponential backoff.`), {
      ...headers,
      'retry-after': String(retryAfter || 1),
    });
  }
  lease.tokens -= 1;
  lease.used += 1;
  await next();
  for (const [k, v] of Object.entries(headers)) c.res.headers.set(k, v);
};
