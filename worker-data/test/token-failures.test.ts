import { beforeAll, describe, expect, it } from 'vitest';
import { SELF } from 'cloudflare:test';
import { dataToken, errorOf, field, makeOrg, storeResult } from './fixtures.ts';

/** Failed data tokens are throttled per client address (worker-api/src/auth/failures.ts). */
let org: string;
let key: string;

beforeAll(async () => {
  org = await makeOrg('token failures');
  key = (await storeResult(org, [field(0, 'x', 'Integer')], [[[1]]])).key;
});

const get = (auth: string, ip: string | null) =>
  SELF.fetch(`https://data.test/data/${key}`, { headers: { authorization: auth, ...(ip ? { 'cf-connecting-ip': ip } : {}) } });

describe('failed data tokens', () => {
  it('30 failures from one address, then 429 before any token is read; other addresses go on', async () => {
    const ip = '203.0.113.77';
    for (let i = 0; i < 30; i++) {
      const res = await get(i % 2 ? 'Data garbage' : `Data ${await dataToken({ org, key }, 'wrong-secret')}`, ip);
      expect(res.status).toBe(401);
      await res.arrayBuffer();
    }
    const limited = await get('Data garbage', ip);
    expect(limited.status).toBe(429);
    expect((await errorOf(limited)).code).toBe('rate_limited');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    // A valid token from that address waits too; from another address it works.
    const valid = `Data ${await dataToken({ org, key })}`;
    const waits = await get(valid, ip);
    expect(waits.status).toBe(429);
    await waits.arrayBuffer();
    const ok = await get(valid, '203.0.113.78');
    expect(ok.status).toBe(200);
    await ok.arrayBuffer();
  });

  it('callers without an address are never throttled as one', async () => {
    for (let i = 0; i < 35; i++) {
      const res = await get('Data garbage', null);
      expect(res.status).toBe(401);
      await res.arrayBuffer();
    }
  });
});
