import { beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { randomString, sha256Hex } from '@cairn/core';
import { organizations, signInChallenges, users } from '@cairn/db';
import { issueResetToken } from '../src/auth/password-reset.ts';
import type { CreateOrganizationResult } from '@cairn/db/seed/organization';
import { call, db, jsonApi, makeKey, makeOrg, makeUser } from './fixtures.ts';

/**
 * Each region's API server serves only its own region's organizations (the test worker is the EU
 * server). Everything is made while the organization is in the EU, then it is moved to the US.
 */
let eu: CreateOrganizationResult;
let us: CreateOrganizationResult;
let euKey: string;
let usKey: string;
let usUser: { session: string };
let usLinkToken: string;
let usInvitation: string;
let usReset: string;

function expectWrongRegion(res: { status: number; json: any }) {
  expect(res.status, JSON.stringify(res.json)).toBe(403);
  const err = res.json.errors[0];
  expect(err.code).toBe('wrong_region');
  expect(err.meta.region).toBe('us');
  // The detail names the right base URL (wrangler.toml's placeholder in the test config).
  expect(err.detail).toContain('https://api-us.cairn.example');
  expect(err.meta.api_base_url).toBe('https://api-us.cairn.example');
  expect(err.meta.data_base_url).toBe('https://data-us.cairn.example');
}

beforeAll(async () => {
  eu = await makeOrg('regions eu');
  us = await makeOrg('regions us');
  euKey = await makeKey(eu.organization.id);
  usKey = await makeKey(us.organization.id);
  usUser = await makeUser(us.organization.id, 'admin');
  const link = await jsonApi(
    '/dashboard_sharing_links',
    'POST',
    {
      type: 'dashboard_sharing_links',
      attributes: { name: 'Public' },
      relationships: { dashboard: { data: { type: 'dashboards', id: us.sampleDashboard.id } } },
    },
    usKey,
  );
  expect(link.status, JSON.stringify(link.json)).toBe(201);
  usLinkToken = link.json.data.attributes.token;
  const invited = await call('/users/invite', { key: usKey, body: { email: `inv-${randomString(8).toLowerCase()}@example.test`, role: 'viewer' } });
  expect(invited.status, JSON.stringify(invited.json)).toBe(201);
  usInvitation = randomString(40);
  await db()
    .update(users)
    .set({ invitation_token_hash: await sha256Hex(usInvitation) })
    .where(eq(users.id, invited.json.data.id));
  usReset = await issueResetToken(db() as never, us.admin);
  await db().update(organizations).set({ region: 'us' }).where(eq(organizations.id, us.organization.id));
});

describe('an organization of the other region', () => {
  it('its API key is refused with 403 wrong_region naming the US API server', async () => {
    expectWrongRegion(await call('/dashboards', { key: usKey }));
    expectWrongRegion(await call(`/dashboards/${us.sampleDashboard.id}`, { key: usKey }));
    // The own region's organization is served as before.
    expect((await call('/dashboards', { key: euKey })).status).toBe(200);
  });

  it('its session is refused the same way', async () => {
    expectWrongRegion(await call('/auth/session', { session: usUser.session }));
    expectWrongRegion(await call('/dashboards', { session: usUser.session }));
  });

  it('sign-in with the right password names the region; a wrong one learns nothing', async () => {
    const email = us.admin.email;
    const wrong = await call('/auth/sessions', { body: { email, password: 'not the password' }, headers: { 'cf-connecting-ip': '203.0.113.50' } });
    expect(wrong.status).toBe(401);
    expectWrongRegion(await call('/auth/sessions', { body: { email, password: 'correct horse battery' }, headers: { 'cf-connecting-ip': '203.0.113.50' } }));
  });

  it('its sharing links and invitations are refused too', async () => {
    expectWrongRegion(await call(`/public/links/${usLinkToken}`, { method: 'POST', body: {}, headers: { 'cf-connecting-ip': '198.51.100.7' } }));
    expectWrongRegion(await call(`/auth/invitations/${usInvitation}`));
    expectWrongRegion(await call(`/auth/invitations/${usInvitation}`, { method: 'POST', body: { password: 'long enough password', firstname: 'A' } }));
  });

  it('its password reset links and two-factor challenges are refused too', async () => {
    expectWrongRegion(await call(`/auth/password-resets/${usReset}`));
    expectWrongRegion(await call(`/auth/password-resets/${usReset}`, { method: 'POST', body: { password: 'a new long password' } }));
    const challenge = randomString(48);
    await db()
      .insert(signInChallenges)
      .values({
        id: await sha256Hex(challenge),
        organization_id: us.organization.id,
        user_id: us.admin.id,
        expires_at: new Date(Date.now() + 60_000),
      });
    expectWrongRegion(await call('/auth/sessions/two-factor', { body: { challenge, code: '123456' } }));
  });

  it('an unknown key or an unknown link says nothing about regions', async () => {
    expect((await call('/dashboards', { key: `${usKey.slice(0, -4)}AAAA` })).json.errors[0].code).toBe('invalid_api_key');
    expect((await call(`/public/links/${'x'.repeat(32)}`, { method: 'POST', body: {} })).status).toBe(404);
  });
});

describe('credentials that name the other region (D53: each region has its own database)', () => {
  // Nothing of these is in this (the EU) server's database: the prefix alone sends the caller on.
  it('a US API key, session, invitation or two-factor challenge is answered 403 wrong_region before any lookup', async () => {
    expectWrongRegion(await call('/dashboards', { key: `cairn_us_${randomString(12)}_${randomString(40)}` }));
    expectWrongRegion(await call('/auth/session', { session: `us_${randomString(48)}` }));
    expectWrongRegion(await call(`/auth/invitations/us_${randomString(40)}`));
    expectWrongRegion(await call('/auth/sessions/two-factor', { body: { challenge: `us_${randomString(48)}`, code: '123456' } }));
    expectWrongRegion(await call(`/auth/password-resets/us_${randomString(56)}`));
  });

  it('keys, sessions and invitations made here name this region', async () => {
    expect(euKey).toMatch(/^cairn_eu_/);
    const invited = await call('/users/invite', { key: euKey, body: { email: `inv-${randomString(8).toLowerCase()}@example.test`, role: 'viewer' } });
    expect(invited.status, JSON.stringify(invited.json)).toBe(201);
    // An EU-named credential that this database does not know is an ordinary 401, not a region answer.
    expect((await call('/auth/session', { session: `eu_${randomString(48)}` })).status).toBe(401);
    expect((await call('/dashboards', { key: `cairn_eu_${randomString(12)}_${randomString(40)}` })).json.errors[0].code).toBe('invalid_api_key');
    const reset = await issueResetToken(db() as never, eu.admin, Date.now(), 'eu');
    expect(reset).toMatch(/^eu_[0-9A-Za-z]{56}$/);
    expect((await call(`/auth/password-resets/${reset}`)).status).toBe(200);
  });
});
