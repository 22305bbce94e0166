import { beforeAll, describe, expect, it } from 'vitest';
import { call, callWithVars, makeKey, makeOrg } from './fixtures.ts';

let key: string;
let dashboardId: string;

beforeAll(async () => {
  const org = await makeOrg('405');
  key = await makeKey(org.organization.id);
  const list = await call('/dashboards', { key });
  dashboardId = list.json.data[0].id;
});

describe('a method a known path does not have', () => {
  it("answers 405 method_not_allowed with the path's methods in Allow", async () => {
    const res = await call(`/dashboards/${dashboardId}`, { key, method: 'PUT', body: {} });
    expect(res.status).toBe(405);
    expect(res.json.errors).toHaveLength(1);
    expect(res.json.errors[0]).toMatchObject({ status: '405', code: 'method_not_allowed', title: 'Method Not Allowed' });
    expect(res.json.errors[0].meta.request_id).toBeTruthy();
    expect(res.headers.get('allow')).toBe('GET, HEAD, PATCH, DELETE');
    expect(res.json.errors[0].meta.allow).toEqual(['GET', 'HEAD', 'PATCH', 'DELETE']);
  });

  it('lists exactly the registered methods of action paths', async () => {
    const lock = await call(`/dashboards/${dashboardId}/lock`, { key, method: 'GET' });
    expect(lock.status).toBe(405);
    expect(lock.headers.get('allow')).toBe('POST, DELETE');

    const layout = await call(`/dashboards/${dashboardId}/layout`, { key, method: 'POST', body: {} });
    expect(layout.status).toBe(405);
    expect(layout.headers.get('allow')).toBe('PUT');

    const list = await call('/dashboards', { key, method: 'DELETE' });
    expect(list.status).toBe(405);
    expect(list.headers.get('allow')).toBe('GET, HEAD, POST');

    // The documented GET-with-body sort also takes POST; its path also fits /dashboard_groups/{id},
    // whose PATCH and DELETE the router would serve there, so those are allowed too.
    const sort = await call('/dashboard_groups/sort', { key, method: 'PUT', body: {} });
    expect(sort.status).toBe(405);
    expect(sort.headers.get('allow')).toBe('GET, HEAD, POST, PATCH, DELETE');
  });

  it('agrees with the OpenAPI document for every documented path', async () => {
    const doc = (await call('/openapi.json')).json;
    for (const [path, ops] of Object.entries<Record<string, unknown>>(doc.paths)) {
      const documented = Object.keys(ops).map((m) => m.toUpperCase());
      const concrete = path.replace(/\{\w+\}/g, 'x1');
      const probe = ['PUT', 'PATCH', 'DELETE', 'POST', 'GET'].find((m) => !documented.includes(m));
      if (!probe) continue;
      const res = await call(concrete, { key, method: probe });
      expect(res.status, `${probe} ${path}`).toBe(405);
      const allow = res.headers.get('allow')!.split(', ');
      for (const m of documented) expect(allow, `${path} allows ${m}`).toContain(m);
    }
  });

  it('keeps 404 for a path no route has, and needs a key like any call', async () => {
    const unknown = await call('/no_such_things', { key, method: 'GET' });
    expect(unknown.status).toBe(404);
    expect(unknown.json.errors[0].code).toBe('not_found');
    expect(unknown.headers.get('allow')).toBeNull();

    const deeper = await call(`/dashboards/${dashboardId}/nope`, { key, method: 'POST', body: {} });
    expect(deeper.status).toBe(404);

    const anonymous = await call(`/dashboards/${dashboardId}`, { method: 'PUT', body: {} });
    expect(anonymous.status).toBe(401);
  });

  it('does not disturb the methods a path has', async () => {
    const ok = await call(`/dashboards/${dashboardId}`, { key });
    expect(ok.status).toBe(200);
    const head = await call(`/dashboards/${dashboardId}`, { key, method: 'HEAD' });
    expect(head.status).toBe(200);
  });
});

describe('benchmark diagnostics (bench-routes.ts)', () => {
  it('answer only with BENCH_ROUTES=1, and only after authentication; the bare baseline always answers', async () => {
    const key = await makeKey((await makeOrg('bench-routes')).organization.id);
    for (const path of ['/bench/auth', '/bench/router', '/bench/rpc', '/bench/db']) {
      const off = await call(path, { key });
      expect(off.status, path).toBe(404);
      expect(off.json.errors[0].code).toBe('not_found');
      const on = await callWithVars(path, key, { BENCH_ROUTES: '1' });
      expect(on.status, path).toBe(200);
      expect((await callWithVars(path, 'cairn_eu_not_a_key', { BENCH_ROUTES: '1' })).status, path).toBe(401);
    }
    expect((await callWithVars('/bench/router', key, { BENCH_ROUTES: '1' })).json.router).toBeTruthy();
    expect((await call('/bench/bare')).status).toBe(200);
  });
});
