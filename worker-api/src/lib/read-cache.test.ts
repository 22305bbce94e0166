import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { call, callWithVars, db, jsonApi, makeKey, makeOrg, only } from '../../test/fixtures.ts';
import { dashboardWith } from '../../test/dashboard-data-helpers.ts';

const direct = callWithVars;

async function version(org: string): Promise<number> {
  const rows = (await db().execute(sql`select version from organization_versions where organization_id = ${org}`)) as unknown as { version: string }[];
  return Number(rows[0]?.version ?? 0);
}

describe('read cache', () => {
  it('answers a repeated read with the same document and ETag, and If-None-Match with 304', async () => {
    const org = await makeOrg();
    const key = await makeKey(org.organization.id);
    const id = org.sampleDashboard.id;
    const a = await call(`/dashboards/${id}?include=reports,filters`, { key });
    const b = await call(`/dashboards/${id}?include=reports,filters`, { key });
    expect(a.status).toBe(200);
    expect(b.json).toEqual(a.json);
    const etag = a.headers.get('etag');
    expect(etag).toMatch(/^W\/"\d+-[0-9a-f]+"$/);
    expect(b.headers.get('etag')).toBe(etag);
    expect(a.headers.get('cache-control')).toBe('private, no-cache');
    const c = await call(`/dashboards/${id}?include=reports,filters`, { key, headers: { 'if-none-match': etag! } });
    expect(c.status).toBe(304);
    expect(c.json).toBeNull();
    const d = await call(`/dashboards/${id}?include=reports,filters`, { key, headers: { 'if-none-match': 'W/"0-0"' } });
    expect(d.status).toBe(200);
  });

  it('shows a change committed by anyone — the API, or SQL straight to the database — on the next read', async () => {
    const org = await makeOrg();
    const key = await makeKey(org.organization.id);
    const id = org.sampleDashboard.id;
    const first = await call(`/dashboards/${id}`, { key });
    const patched = await jsonApi(`/dashboards/${id}`, 'PATCH', { type: 'dashboards', id, attributes: { description: 'through the API' } }, key);
    expect(patched.status).toBe(200);
    const second = await call(`/dashboards/${id}`, { key });
    expect(second.json.data.attributes.description).toBe('through the API');
    expect(second.headers.get('etag')).not.toBe(first.headers.get('etag'));
    // Not through the API at all: the trigger still moves the version.
    await db().execute(sql`update dashboards set description = 'by hand' where id = ${id}`);
    const third = await call(`/dashboards/${id}`, { key });
    expect(third.json.data.attributes.description).toBe('by hand');
    // A report of the dashboard (an included resource) changing counts too.
    await db().execute(sql`update reports set name = 'Renamed by hand' where dashboard_id = ${id} and organization_id = ${org.organization.id}`);
    const fourth = await call(`/dashboards/${id}?include=reports`, { key });
    expect(
      fourth.json.included
        .filter((r: { type: string }) => r.type === 'reports')
        .every((r: { attributes: { name: string } }) => r.attributes.name === 'Renamed by hand'),
    ).toBe(true);
  });

  it('moves the version only when a transaction commits a real change', async () => {
    const org = await makeOrg();
    const before = await version(org.organization.id);
    await db().execute(sql`update dashboards set name = name where organization_id = ${org.organization.id}`);
    expect(await version(org.organization.id)).toBe(before);
    await db().transaction(async (tx) => {
      await tx.execute(sql`update organizations set name = 'In a transaction' where id = ${org.organization.id}`);
      // Deferred to commit: the transaction holds the version row's lock only at its very end.
      const rows = (await tx.execute(sql`select version from organization_versions where organization_id = ${org.organization.id}`)) as unknown as {
        version: string;
      }[];
      expect(Number(rows[0]?.version ?? 0)).toBe(before);
    });
    expect(await version(org.organization.id)).toBe(before + 1);
    // Executions and results are not content: running queries never empties the cache.
    const other = await makeOrg();
    expect(await version(other.organization.id)).toBeGreaterThan(0);
  });

  it('never hands one caller the answer built for another', async () => {
    const org = await makeOrg();
    const id = org.sampleDashboard.id;
    const everything = await makeKey(org.organization.id);
    const viewer = await makeKey(org.organization.id, only('view_dashboards'));
    const full = await call(`/dashboards/${id}`, { key: everything });
    const limited = await call(`/dashboards/${id}`, { key: viewer });
    expect(full.json.data.relationships.dashboard_sharing_links).toBeDefined();
    expect(limited.json.data.relationships.dashboard_sharing_links).toBeUndefined();
    expect(limited.headers.get('etag')).not.toBe(full.headers.get('etag'));
    // A permission error is never cached as a document, nor served from one.
    const forbidden = await call(`/dashboards/${id}?include=dashboard_sharing_links`, { key: viewer });
    expect(forbidden.status).toBe(403);
    const again = await call(`/dashboards/${id}?include=dashboard_sharing_links`, { key: everything });
    expect(again.status).toBe(200);
  });

  it("with a trust window, reads its own writes at once and others' within the window", async () => {
    const org = await makeOrg();
    const key = await makeKey(org.organization.id);
    const id = org.sampleDashboard.id;
    const vars = { READ_CACHE_TRUST_MS: '60000' };
    expect((await direct(`/dashboards/${id}`, key, vars)).status).toBe(200);
    // A write from elsewhere inside the window is not seen yet: the version read a moment ago is trusted.
    await db().execute(sql`update dashboards set description = 'from elsewhere' where id = ${id}`);
    const stale = await direct(`/dashboards/${id}`, key, vars);
    expect(stale.json.data.attributes.description).not.toBe('from elsewhere');
    // A write through this isolate makes the next read ask again, and so it sees both changes.
    const body = JSON.stringify({ data: { type: 'dashboards', id, attributes: { name: 'Own write' } } });
    const own = await direct(`/dashboards/${id}`, key, vars, { method: 'PATCH', body, headers: { 'content-type': 'application/vnd.api+json' } });
    expect(own.status).toBe(200);
    const fresh = await direct(`/dashboards/${id}`, key, vars);
    expect(fresh.json.data.attributes.name).toBe('Own write');
    expect(fresh.json.data.attributes.description).toBe('from elsewhere');
  });

  it('counts a GET its route declares as writing (the GET form of the group sort) as a write', async () => {
    const org = await makeOrg();
    const key = await makeKey(org.organization.id);
    const vars = { READ_CACHE_TRUST_MS: '60000' };
    const group = await jsonApi('/dashboard_groups', 'POST', { type: 'dashboard_groups', attributes: { name: 'Before' } }, key);
    const id = group.json.data.id as string;
    expect((await direct('/dashboard_groups', key, vars)).status).toBe(200);
    await db().execute(sql`update dashboard_groups set name = 'From elsewhere' where id = ${id}`);
    expect((await direct('/dashboard_groups', key, vars)).json.data[0].attributes.name).toBe('Before');
    // A GET cannot carry its body over fetch, so the route refuses it; the call still counts as a write.
    expect((await direct('/dashboard_groups/sort', key, vars)).status).toBeGreaterThanOrEqual(400);
    expect((await direct('/dashboard_groups', key, vars)).json.data[0].attributes.name).toBe('From elsewhere');
  });

  it('reuses a status poll answer for the same caller and body within POLL_REUSE_MS, and not after a refresh or a write', async () => {
    const org = await makeOrg();
    const key = await makeKey(org.organization.id);
    const other = await makeKey(org.organization.id);
    const tag = Math.random().toString(36).slice(2, 10);
    const board = await dashboardWith(org.organization.id, org.sampleDatasource.id, 'Polled', [{ name: 'Slow', sql: `select '${tag}' as tag, pg_sleep(0.3)` }]);
    const reuse = { POLL_REUSE_MS: '60000' };
    const never = { POLL_REUSE_MS: '0' };
    const poll = (k: string, vars: Record<string, string>, body: unknown = {}) =>
      direct(`/dashboards/${board.id}/status`, k, vars, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
    const settled = (j: any) => j.reports.every((r: any) => r.result_status === 'success' && !r.running);
    const first = await poll(key, reuse);
    expect(first.status).toBe(200);
    expect(settled(first.json)).toBe(false);
    // Wait for the run without touching the kept answer.
    for (let i = 0; i < 200 && !settled((await poll(key, never)).json); i++) await new Promise((r) => setTimeout(r, 100));
    expect(settled((await poll(key, never)).json)).toBe(true);
    // Same caller, same body, inside the window: the answer of a moment ago.
    const again = await poll(key, reuse);
    expect(again.json).toEqual(first.json);
    expect(again.headers.get('cache-control')).toBe('private, no-store');
    // Another caller, or another body, is answered anew.
    expect(settled((await poll(other, reuse)).json)).toBe(true);
    expect(settled((await poll(key, reuse, { refresh_data: false })).json)).toBe(true);
    // A refresh asks for new runs: never from memory, and what was kept before it is dropped.
    const refreshed = await poll(key, reuse, { refresh_data: true });
    expect(refreshed.json.reports[0].execution_id).not.toBe(first.json.reports[0].execution_id);
    const afterRefresh = await poll(key, reuse);
    expect(afterRefresh.json.reports[0].execution_id).toBe(refreshed.json.reports[0].execution_id);
    for (let i = 0; i < 200 && !settled((await poll(key, never)).json); i++) await new Promise((r) => setTimeout(r, 100));
    // A write through this isolate drops the kept answers of the organization too.
    expect((await poll(key, reuse)).json).toEqual(afterRefresh.json);
    const body = JSON.stringify({ data: { type: 'dashboards', id: board.id, attributes: { description: 'changed' } } });
    expect(
      (await direct(`/dashboards/${board.id}`, key, reuse, { method: 'PATCH', body, headers: { 'content-type': 'application/vnd.api+json' } })).status,
    ).toBe(200);
    expect(settled((await poll(key, reuse)).json)).toBe(true);
    // Bad bodies are still the route's to refuse.
    expect((await poll(key, reuse, { refresh_data: 'yes' })).status).toBe(422);
    const notJson = await direct(`/dashboards/${board.id}/status`, key, reuse, {
      method: 'POST',
      body: '{"refresh_data":',
      headers: { 'content-type': 'application/json' },
    });
    expect(notJson.status).toBe(400);
    expect(notJson.json.errors[0].status).toBe('400');
  }, 60_000);
});
