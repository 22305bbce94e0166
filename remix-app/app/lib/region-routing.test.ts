import { describe, expect, it } from 'vitest';
import { ApiClient } from './api.server';
import { clientAddress } from './client-address.server';
import { getEnv, regionRouted, type AppEnv } from './env.server';
import { binding } from './service-binding.test-kit';

const wrongRegion = (region: string) =>
  Response.json({ errors: [{ status: '403', code: 'wrong_region', title: 'Forbidden', detail: 'elsewhere', meta: { region } }] }, { status: 403 });
const page = (headers: Record<string, string> = {}) => new Request('http://app/app/login', { headers });

describe('the API of the organization’s region', () => {
  it('sends a request again, body and all, to the region a 403 wrong_region names, and remembers a user’s region', async () => {
    const eu = binding(() => wrongRegion('us'));
    const us = binding(async (req) => Response.json({ region: 'us', body: req.method === 'POST' ? await req.json() : null }, { status: 201 }));
    const api = regionRouted({ eu, us }, 'eu');
    const signIn = await api.fetch(
      new Request('https://cairn-api.internal/auth/sessions', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ email: 'a@b.test', password: 'pw' }),
      }),
    );
    expect(signIn.status).toBe(201);
    expect(await signIn.json()).toEqual({ region: 'us', body: { email: 'a@b.test', password: 'pw' } });
    expect([eu.seen.length, us.seen.length]).toEqual([1, 1]);

    const session = { Authorization: 'Session us-user-token-aaaaaaaaaaaaaaaaaaaa' };
    expect((await api.fetch(new Request('https://cairn-api.internal/dashboards', { headers: session }))).status).toBe(201);
    expect([eu.seen.length, us.seen.length]).toEqual([2, 2]);
    // Known now: straight to the US.
    expect((await api.fetch(new Request('https://cairn-api.internal/dashboards', { headers: session }))).status).toBe(201);
    expect([eu.seen.length, us.seen.length]).toEqual([2, 3]);
  });

  it('sends a credential that names its region straight there, and a sign-in to the chosen region (D53)', async () => {
    const eu = binding(() => wrongRegion('us'));
    const us = binding(() => Response.json({ ok: true }));
    const api = regionRouted({ eu, us }, 'eu');
    for (const headers of [
      { Authorization: 'Session us_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa' },
      { Authorization: `Api cairn_us_${'a'.repeat(12)}_${'b'.repeat(40)}` },
      { 'X-Cairn-Region': 'us' },
    ] as Record<string, string>[]) {
      expect((await api.fetch(new Request('https://cairn-api.internal/auth/session', { headers }))).status).toBe(200);
    }
    expect([eu.seen.length, us.seen.length]).toEqual([0, 3]);
    // An unknown region in the header is ignored: the home region first, as before.
    await api.fetch(new Request('https://cairn-api.internal/auth/session', { headers: { 'X-Cairn-Region': 'mars' } }));
    expect([eu.seen.length, us.seen.length]).toEqual([1, 4]);
  });

  it('never lets the EU API serve a US organization: without the US binding the 403 stands', async () => {
    const eu = binding(() => wrongRegion('us'));
    const single = regionRouted({ eu, us: undefined }, 'eu');
    expect(single, 'one region: the binding itself, no routing work per call').toBe(eu);
    const res = await single.fetch(new Request('https://cairn-api.internal/dashboards'));
    expect(res.status).toBe(403);
    expect(((await res.json()) as any).errors[0].code).toBe('wrong_region');
  });

  it('asks the other region for a sharing link the first one does not know (its token names no region)', async () => {
    const notFound = () => Response.json({ errors: [{ status: '404', code: 'not_found' }] }, { status: 404 });
    const eu = binding(notFound);
    const us = binding(async (req) => Response.json({ region: 'us', body: await req.json() }));
    const api = regionRouted({ eu, us }, 'eu');
    const res = await api.fetch(
      new Request('https://cairn-api.internal/public/links/tok123/status', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ parameters: {} }),
      }),
    );
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ region: 'us', body: { parameters: {} } });
    // Unknown everywhere: the 404 stands; other paths are never asked twice.
    const nowhere = regionRouted({ eu, us: binding(notFound) }, 'eu');
    expect((await nowhere.fetch(new Request('https://cairn-api.internal/public/links/nope', { method: 'POST', body: '{}' }))).status).toBe(404);
    const before = us.seen.length;
    expect((await api.fetch(new Request('https://cairn-api.internal/dashboards/x'))).status).toBe(404);
    expect(us.seen.length).toBe(before);
  });

  it('leaves other answers alone, a plain 403 included', async () => {
    const eu = binding(() => Response.json({ errors: [{ code: 'forbidden' }] }, { status: 403 }));
    const us = binding(() => new Response('no'));
    expect((await regionRouted({ eu, us }, 'eu').fetch('https://cairn-api.internal/x')).status).toBe(403);
    expect(us.seen).toHaveLength(0);
  });

  it('getEnv routes both API and DATA by region', async () => {
    const data = binding(() => wrongRegion('us'));
    const dataUs = binding(() => new Response('rows'));
    const env = getEnv({ cloudflare: { env: { API: binding(() => new Response('eu')), DATA: data, DATA_US: dataUs } } } as never);
    expect(await (await env.DATA.fetch('https://cairn-data.internal/data/us/o/e/h')).text()).toBe('rows');
    expect(await (await env.API.fetch('https://cairn-api.internal/health')).text()).toBe('eu');
  });
});

describe('the client address passed to the API', () => {
  it('is the edge’s CF-Connecting-IP when it is one IP literal, and nothing else', () => {
    expect(clientAddress(page({ 'CF-Connecting-IP': '203.0.113.5' }))).toBe('203.0.113.5');
    expect(clientAddress(page({ 'CF-Connecting-IP': '2001:db8::1' }))).toBe('2001:db8::1');
    for (const bad of ['203.0.113.5, 10.0.0.1', 'unknown', '', '<script>']) expect(clientAddress(page({ 'CF-Connecting-IP': bad }))).toBeNull();
    expect(clientAddress(page({ 'X-Forwarded-For': '203.0.113.5', 'X-Real-IP': '203.0.113.5' }))).toBeNull();
  });

  it('goes to the API as CF-Connecting-IP (sign-in lockout counts per address); client-written headers do not', async () => {
    const api = binding(() => Response.json({}));
    const env = { API: api, DATA: api } as AppEnv;
    await new ApiClient(env, page({ 'CF-Connecting-IP': '203.0.113.5', 'X-Forwarded-For': '10.1.1.1' }), null).call('POST', '/auth/sessions', { body: {} });
    expect(api.seen[0]!.headers.get('CF-Connecting-IP')).toBe('203.0.113.5');
    expect(api.seen[0]!.headers.get('X-Forwarded-For')).toBeNull();
    await new ApiClient(env, page({ 'CF-Connecting-IP': '1.1.1.1, 2.2.2.2' }), null).call('POST', '/auth/sessions', { body: {} });
    expect(api.seen[1]!.headers.get('CF-Connecting-IP')).toBeNull();
  });
});
