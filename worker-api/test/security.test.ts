import { env } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { apiKeys } from '@cairn/db';
import { call, callWithVars, db, keyIdOf, makeKey, makeOrg } from './fixtures.ts';
import { expectJsonApiDocument } from './jsonapi-schema.ts';
import type { CreateOrganizationResult } from '@cairn/db/seed/organization';
import { rateLimiterStub } from '../src/durable/stubs.ts';

let org: CreateOrganizationResult;
let key: string;
let reportId: string;

const endpoints = () => [
  { method: 'GET', path: '/dashboards' },
  { method: 'GET', path: `/dashboards/${org.sampleDashboard.id}` },
  { method: 'POST', path: `/reports/${reportId}/data` },
];

beforeAll(async () => {
  org = await makeOrg('security');
  key = await makeKey(org.organization.id);
  reportId = org.sampleDashboard.reports[0]!.id;
});

describe('authentication on every endpoint', () => {
  it('401 without a key', async () => {
    for (const e of endpoints()) {
      const res = await call(e.path, { method: e.method });
      expect(res.status, `${e.method} ${e.path}`).toBe(401);
      expectJsonApiDocument(res.json);
      expect(res.json.errors[0]).toMatchObject({ code: 'unauthorized', source: { header: 'Authorization' } });
    }
  });

  it('401 with a malformed, unknown or wrong-secret key', async () => {
    const id = keyIdOf(key);
    for (const bad of ['nonsense', `cairn_${'A'.repeat(12)}_${'b'.repeat(40)}`, `cairn_${id}_${'x'.repeat(40)}`]) {
      for (const e of endpoints()) {
        const res = await call(e.path, { method: e.method, key: bad });
        expect(res.status).toBe(401);
        expect(res.json.errors[0].code).toBe('invalid_api_key');
      }
    }
  });

  it('401 with a disabled key, naming the reason', async () => {
    const k = await makeKey(org.organization.id);
    await db()
      .update(apiKeys)
      .set({ enabled: false })
      .where(eq(apiKeys.key_id, keyIdOf(k)));
    for (const e of endpoints()) {
      const res = await call(e.path, { method: e.method, key: k });
      expect(res.status).toBe(401);
      expect(res.json.errors[0].code).toBe('api_key_disabled');
    }
  });

  it('401 with an unknown scheme', async () => {
    const res = await call('/dashboards', { headers: { authorization: `Bearer ${key}` } });
    expect(res.status).toBe(401);
  });

  it("404 for another organization's resources", async () => {
    const other = await makeOrg('intruder');
    const otherKey = await makeKey(other.organization.id);
    for (const e of endpoints().slice(1)) {
      const res = await call(e.path, { method: e.method, key: otherKey });
      expect(res.status, `${e.method} ${e.path}`).toBe(404);
    }
  });

  it('every answer carries a request id, errors too', async () => {
    const res = await call('/dashboards');
    expect(res.headers.get('x-request-id')).toBeTruthy();
    expect(res.json.errors[0].meta.request_id).toBe(res.headers.get('x-request-id'));
  });

  it('unknown routes answer a JSON:API 404', async () => {
    const res = await call('/nope', { key });
    expect(res.status).toBe(404);
    expectJsonApiDocument(res.json);
  });
});

describe('rate limit', () => {
  it('the RateLimiter Durable Object refuses once a bucket is empty and refills with time', async () => {
    const stub = rateLimiterStub(env, `test-${Math.random()}`);
    const t0 = 1_000_000;
    expect((await stub.take(1, 2, t0)).allowed).toBe(true);
    expect((await stub.take(1, 2, t0)).allowed).toBe(true);
    const refused = await stub.take(1, 2, t0);
    expect(refused).toMatchObject({ allowed: false, remaining: 0 });
    expect(refused.retryAfter).toBeGreaterThanOrEqual(1);
    expect((await stub.take(1, 2, t0 + 1500)).allowed).toBe(true);
  });

  it('leases several tokens at once, takes back unused ones, and refuses an empty bucket', async () => {
    const stub = rateLimiterStub(env, `lease-${Math.random()}`);
    const t0 = 2_000_000;
    expect(await stub.lease(1, 10, 4, 0, t0)).toMatchObject({ granted: 4, remaining: 6, allowed: true });
    expect(await stub.lease(1, 10, 20, 0, t0)).toMatchObject({ granted: 6, remaining: 0 });
    const refused = await stub.lease(1, 10, 5, 0, t0);
    expect(refused).toMatchObject({ granted: 0, allowed: false });
    expect(refused.retryAfter).toBeGreaterThanOrEqual(1);
    // Three unused tokens come back with the next lease.
    expect(await stub.lease(1, 10, 2, 3, t0)).toMatchObject({ granted: 2, remaining: 1 });
  });

  it('every authenticated answer carries RateLimit headers', async () => {
    // The test config allows a burst of 1000 per key.
    const res = await call('/dashboards', { key });
    expect(res.headers.get('ratelimit-limit')).toBe('1000');
    expect(Number(res.headers.get('ratelimit-remaining'))).toBeLessThan(1000);
    expect(res.headers.get('ratelimit-policy')).toMatch(/^1000;w=\d+$/);
  });
});

describe('rate limit through the API', () => {
  it('never lets a key through more than its bucket holds, however its requests are leased', async () => {
    const key = await makeKey(org.organization.id);
    const vars = { RATE_LIMIT_RPS: '1', RATE_LIMIT_BURST: '12' };
    const t0 = Date.now();
    // Two bursts: the second leases by the first one's demand (and asks for tokens ahead of time).
    const answers = [];
    for (let round = 0; round < 2; round++) {
      answers.push(...(await Promise.all(Array.from({ length: 20 }, () => callWithVars('/dashboards', key, vars)))));
    }
    const seconds = Math.ceil((Date.now() - t0) / 1000);
    const ok = answers.filter((a) => a.status === 200).length;
    const limited = answers.filter((a) => a.status === 429);
    expect(ok + limited.length).toBe(answers.length);
    // The bucket's 12 plus what refilled at 1 per second while the test ran.
    expect(ok).toBeGreaterThanOrEqual(12);
    expect(ok).toBeLessThanOrEqual(12 + seconds);
    expect(limited.length).toBeGreaterThan(0);
    for (const a of limited) {
      expect(a.json.errors[0].code).toBe('rate_limited');
      expect(Number(a.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
  });
});
