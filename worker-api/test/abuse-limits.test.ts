import { beforeAll, describe, expect, it } from 'vitest';
import type { CreateOrganizationResult } from '@cairn/db/seed/organization';
import { addUser, call, jsonApi, makeKey, makeOrg } from './fixtures.ts';
import { clientAddress } from '../src/auth/failures.ts';

/** Budgets of failures (auth/failures.ts): per client address, and bounded per e-mail and per link. */
let org: CreateOrganizationResult;
let key: string;

beforeAll(async () => {
  org = await makeOrg('abuse limits');
  key = await makeKey(org.organization.id);
});

const from = (ip: string | null): Record<string, string> => (ip ? { 'cf-connecting-ip': ip } : {});

describe('client addresses', () => {
  it('only a well-formed address counts; an IPv6 client is counted by its /64', () => {
    expect(clientAddress('203.0.113.9')).toBe('203.0.113.9');
    expect(clientAddress(' ::ffff:203.0.113.9 ')).toBe('203.0.113.9');
    expect(clientAddress('2001:db8:1:2:aaaa::1')).toBe(clientAddress('2001:db8:1:2:bbbb::2'));
    expect(clientAddress('2001:db8:1:2::1')).not.toBe(clientAddress('2001:db8:1:3::1'));
    for (const bad of [null, '', 'unknown', '203.0.113.9, 10.0.0.1', '1.2.3.4.5', 'x'.repeat(100)]) expect(clientAddress(bad)).toBeNull();
  });
});

describe('sign-in lockout', () => {
  async function user() {
    return (await addUser(org.organization.id, { password: 'the right one' })).email;
  }
  const signIn = (email: string, password: string, ip: string | null) =>
    call('/auth/sessions', { method: 'POST', body: { email, password }, headers: from(ip) });

  it("a stranger's failures from one address do not lock the owner out from another", async () => {
    const email = await user();
    for (let i = 0; i < 10; i++) expect((await signIn(email, `guess ${i}`, '203.0.113.66')).status).toBe(401);
    const stranger = await signIn(email, 'the right one', '203.0.113.66');
    expect(stranger.status).toBe(429);
    expect(Number(stranger.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await signIn(email, 'the right one', '198.51.100.23')).status).toBe(201);
  });

  it('a distributed attack is bounded per e-mail: 100 failures from many addresses lock every address', async () => {
    const email = await user();
    for (let a = 0; a < 10; a++) {
      const res = await Promise.all(Array.from({ length: 10 }, (_, i) => signIn(email, `guess ${i}`, `192.0.2.${a + 1}`)));
      expect(res.map((r) => r.status)).toEqual(Array(10).fill(401));
    }
    expect((await signIn(email, 'the right one', '198.51.100.99')).status).toBe(429);
  }, 120_000);

  it('callers without an address share no bucket of their own', async () => {
    const email = await user();
    for (let i = 0; i < 12; i++) expect((await signIn(email, `guess ${i}`, null)).status).toBe(401);
    expect((await signIn(email, 'the right one', null)).status).toBe(201);
  });
});

describe('failed API keys', () => {
  it('are throttled per address; other addresses and right keys elsewhere are not', async () => {
    const wrong = `${key.slice(0, -6)}ZZZZZZ`;
    const ip = '203.0.113.140';
    for (let i = 0; i < 20; i++) expect((await call('/dashboards', { key: i % 2 ? wrong : 'garbage', headers: from(ip) })).status).toBe(401);
    const limited = await call('/dashboards', { key: wrong, headers: from(ip) });
    expect(limited.status).toBe(429);
    expect(limited.json.errors[0].code).toBe('rate_limited');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    // The address is refused before its key is checked, right or wrong.
    expect((await call('/dashboards', { key, headers: from(ip) })).status).toBe(429);
    expect((await call('/dashboards', { key, headers: from('203.0.113.141') })).status).toBe(200);
    expect((await call('/dashboards', { key: wrong, headers: from('203.0.113.141') })).status).toBe(401);
  });
});

describe('sharing-link passwords', () => {
  async function link() {
    const res = await jsonApi(
      '/dashboard_sharing_links',
      'POST',
      {
        type: 'dashboard_sharing_links',
        attributes: { name: 'Guarded', sharing_password: 'open sesame' },
        relationships: { dashboard: { data: { type: 'dashboards', id: org.sampleDashboard.id } } },
      },
      key,
    );
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    return res.json.data.attributes.token as string;
  }
  const unlock = (token: string, password: string, ip: string | null) =>
    call(`/public/links/${token}/password`, { method: 'POST', body: { password }, headers: from(ip) });

  it('have a per-link budget of 100 failures a day on top of the per-address one', async () => {
    const token = await link();
    for (let a = 0; a < 10; a++) {
      const res = await Promise.all(Array.from({ length: 10 }, (_, i) => unlock(token, `guess ${i}`, `192.0.2.${100 + a}`)));
      expect(res.map((r) => r.status)).toEqual(Array(10).fill(401));
    }
    const fresh = await unlock(token, 'open sesame', '198.51.100.200');
    expect(fresh.status).toBe(429);
    expect(fresh.json.errors[0].detail).toMatch(/password attempts/);
  }, 120_000);

  it('callers without an address do not share one bucket that locks them all out', async () => {
    const token = await link();
    for (let i = 0; i < 12; i++) expect((await unlock(token, `guess ${i}`, null)).status).toBe(401);
    expect((await unlock(token, 'open sesame', null)).status).toBe(200);
    // Nor does a header that is not an address make one.
    expect((await unlock(token, 'open sesame', 'unknown')).status).toBe(200);
  });

  it('right passwords do not use the budget up', async () => {
    const token = await link();
    for (let i = 0; i < 15; i++) expect((await unlock(token, 'open sesame', '198.51.100.201')).status).toBe(200);
  });
});
