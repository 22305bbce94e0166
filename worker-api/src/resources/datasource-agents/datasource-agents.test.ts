import { beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { auditLog, datasourceAgents, organizations } from '@cairn/db';
import { sha256Hex } from '@cairn/core';
import { call, db, jsonApi, makeKey, makeOrg, makeUser, only } from '../../../test/fixtures.ts';
import { expectJsonApiDocument } from '../../../test/jsonapi-schema.ts';
import type { CreateOrganizationResult } from '@cairn/db/seed/organization';

let org: CreateOrganizationResult;
let key: string;
const agent = (attributes: Record<string, unknown>) => ({ type: 'datasource_agents', attributes });

async function createAgent(name: string, k: string = key) {
  const res = await jsonApi('/datasource_agents', 'POST', agent({ name }), k);
  expectJsonApiDocument(res.json);
  return res;
}

async function datasourceUsing(agentId: string, name = 'Behind the firewall') {
  const res = await jsonApi(
    '/datasources',
    'POST',
    {
      type: 'datasources',
      attributes: { name, database_type: 'postgres', connection_mode: 'agent', host: 'db.internal' },
      relationships: { agents: { data: [{ type: 'datasource_agents', id: agentId }] } },
    },
    key,
  );
  expect(res.status).toBe(201);
  return res.json.data.id as string;
}

beforeAll(async () => {
  org = await makeOrg('agents');
  key = await makeKey(org.organization.id);
  await db().update(organizations).set({ plan_datasources: 1000 }).where(eq(organizations.id, org.organization.id));
});

describe('datasource agents', () => {
  it('creates an agent with a public agent_id and a secret key shown once, stored hashed', async () => {
    const res = await createAgent('Office agent');
    expect(res.status).toBe(201);
    const a = res.json.data.attributes;
    expect(a).toMatchObject({ name: 'Office agent', enabled: true, connected: false, active_queries: 0, version: null, address: null });
    expect(a.agent_id).toMatch(/^[0-9A-Za-z]{24}$/);
    expect(a.secret_key).toMatch(/^[0-9A-Za-z]{48}$/);
    const id = res.json.data.id;
    const [row] = await db().select().from(datasourceAgents).where(eq(datasourceAgents.id, id));
    expect(row!.secret_hash).toBe(await sha256Hex(a.secret_key));
    expect(JSON.stringify(row)).not.toContain(a.secret_key);
    const got = await call(`/datasource_agents/${id}`, { key });
    expect(got.status).toBe(200);
    expectJsonApiDocument(got.json);
    expect(got.json.data.attributes).not.toHaveProperty('secret_key');
    expect(got.json.data.attributes.agent_id).toBe(a.agent_id);
    const list = await call('/datasource_agents', { key });
    expectJsonApiDocument(list.json);
    for (const r of list.json.data) expect(r.attributes).not.toHaveProperty('secret_key');
    const log = await db()
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.organization_id, org.organization.id), eq(auditLog.resource_id, id)));
    expect(log.map((l) => l.action)).toEqual(['create']);
    expect(JSON.stringify(log)).not.toContain(a.secret_key);
    // Two agents never share ids or keys.
    const second = (await createAgent('Second')).json.data.attributes;
    expect(second.agent_id).not.toBe(a.agent_id);
    expect(second.secret_key).not.toBe(a.secret_key);
  });

  it('validates: name required, status attributes read-only, unknown attributes refused', async () => {
    const missing = await jsonApi('/datasource_agents', 'POST', agent({}), key);
    expect(missing.status).toBe(422);
    expect(missing.json.errors[0]).toMatchObject({ code: 'missing_attribute', source: { pointer: '/data/attributes/name' } });
    const ro = await jsonApi(
      '/datasource_agents',
      'POST',
      agent({
        name: 'x',
        agent_id: 'mine',
        version: '1.0',
        address: '1.2.3.4',
        connected: true,
        active_queries: 3,
        secret_key: 'k',
        size: 'xl',
      }),
      key,
    );
    expect(ro.status).toBe(422);
    expectJsonApiDocument(ro.json);
    expect(ro.json.errors.map((e: any) => [e.code, e.source.pointer])).toEqual(
      expect.arrayContaining([
        ...['agent_id', 'version', 'address', 'connected', 'active_queries', 'secret_key'].map((n) => ['read_only_attribute', `/data/attributes/${n}`]),
        ['unknown_attribute', '/data/attributes/size'],
      ]),
    );
    const badEnabled = await jsonApi('/datasource_agents', 'POST', agent({ name: 'x', enabled: 'no' }), key);
    expect(badEnabled.json.errors[0].source.pointer).toBe('/data/attributes/enabled');
    expect((await call('/datasource_agents', { key, method: 'POST', body: { data: agent({ name: 'x' }) } })).status).toBe(415);
    expect((await call('/datasource_agents?include=agents', { key })).status).toBe(400);
  });

  it('updates name and enabled; concurrent updates both survive', async () => {
    const id = (await createAgent('Before')).json.data.id;
    const res = await jsonApi(`/datasource_agents/${id}`, 'PATCH', { ...agent({ name: 'After' }), id }, key);
    expect(res.status).toBe(200);
    expectJsonApiDocument(res.json);
    expect(res.json.data.attributes).toMatchObject({ name: 'After', enabled: true });
    expect(res.json.data.attributes).not.toHaveProperty('secret_key');
    await Promise.all([
      jsonApi(`/datasource_agents/${id}`, 'PATCH', { ...agent({ name: 'Raced' }), id }, key),
      jsonApi(`/datasource_agents/${id}`, 'PATCH', { ...agent({ enabled: false }), id }, key),
    ]);
    expect((await call(`/datasource_agents/${id}`, { key })).json.data.attributes).toMatchObject({ name: 'Raced', enabled: false });
    const ro = await jsonApi(`/datasource_agents/${id}`, 'PATCH', { ...agent({ connected: true }), id }, key);
    expect(ro.json.errors[0].code).toBe('read_only_attribute');
  });

  it('includes the datasources that use an agent, and refuses to delete it while one does', async () => {
    const id = (await createAgent('Busy agent')).json.data.id;
    const dsId = await datasourceUsing(id, 'Warehouse via agent');
    const got = await call(`/datasource_agents/${id}?include=datasources`, { key });
    expectJsonApiDocument(got.json);
    expect(got.json.data.relationships.datasources.data).toEqual([{ type: 'datasources', id: dsId }]);
    expect(got.json.included.map((r: any) => [r.type, r.id])).toEqual([['datasources', dsId]]);
    const list = await call('/datasource_agents?include=datasources&page[size]=200', { key });
    expectJsonApiDocument(list.json);
    expect(list.json.included.map((r: any) => r.id)).toContain(dsId);
    const refused = await call(`/datasource_agents/${id}`, { key, method: 'DELETE' });
    expect(refused.status).toBe(422);
    expectJsonApiDocument(refused.json);
    expect(refused.json.errors[0].code).toBe('invalid_state');
    expect(refused.json.errors[0].detail).toContain('Warehouse via agent');
    const direct = await jsonApi(`/datasources/${dsId}`, 'PATCH', { type: 'datasources', id: dsId, attributes: { connection_mode: 'direct' } }, key);
    expect(direct.status).toBe(200);
    expect((await call(`/datasource_agents/${id}`, { key, method: 'DELETE' })).status).toBe(204);
    expect((await call(`/datasource_agents/${id}`, { key })).status).toBe(404);
  });

  it('a key restricted to some datasources sees only those among an agent’s datasources', async () => {
    const id = (await createAgent('Shared agent')).json.data.id;
    const a = await datasourceUsing(id, 'Agent DS A');
    const b = await datasourceUsing(id, 'Agent DS B');
    const restricted = await makeKey(org.organization.id, [{ permission: 'view_datasources', resources: [{ type: 'datasources', id: a }] }]);
    const got = await call(`/datasource_agents/${id}?include=datasources`, { key: restricted });
    expect(got.status).toBe(200);
    expect(got.json.data.relationships.datasources.data.map((d: any) => d.id)).toEqual([a]);
    expect(got.json.included.map((r: any) => r.id)).toEqual([a]);
    expect(got.json.included[0].attributes).not.toHaveProperty('username');
    const full = await call(`/datasource_agents/${id}`, { key });
    expect(full.json.data.relationships.datasources.data.map((d: any) => d.id).sort()).toEqual([a, b].sort());
  });

  it('permissions: View Datasources reads, Manage Datasources writes; viewers and analysts cannot write', async () => {
    const id = (await createAgent('Perm agent')).json.data.id;
    const viewKey = await makeKey(org.organization.id, only('view_datasources'));
    expect((await call('/datasource_agents', { key: viewKey })).status).toBe(200);
    expect((await call(`/datasource_agents/${id}`, { key: viewKey })).status).toBe(200);
    expect((await jsonApi('/datasource_agents', 'POST', agent({ name: 'no' }), viewKey)).status).toBe(403);
    expect((await jsonApi(`/datasource_agents/${id}`, 'PATCH', { ...agent({ name: 'no' }), id }, viewKey)).status).toBe(403);
    expect((await call(`/datasource_agents/${id}`, { key: viewKey, method: 'DELETE' })).status).toBe(403);
    const noneKey = await makeKey(org.organization.id, only('view_dashboards'));
    expect((await call('/datasource_agents', { key: noneKey })).status).toBe(403);
    const viewer = await makeUser(org.organization.id, 'viewer');
    const analyst = await makeUser(org.organization.id, 'analyst');
    const admin = await makeUser(org.organization.id, 'admin');
    expect((await call('/datasource_agents', { session: viewer.session })).status).toBe(403);
    expect((await call('/datasource_agents', { session: analyst.session })).status).toBe(200);
    expect((await jsonApi('/datasource_agents', 'POST', agent({ name: 'no' }), { session: analyst.session })).status).toBe(403);
    const made = await jsonApi('/datasource_agents', 'POST', agent({ name: 'by admin' }), { session: admin.session });
    expect(made.status).toBe(201);
    expect(made.json.data.attributes.secret_key).toBeTruthy();
  });

  it("another organization's agent is a 404 for every verb", async () => {
    const id = (await createAgent('Private agent')).json.data.id;
    const other = await makeOrg('agents-intruder');
    const otherKey = await makeKey(other.organization.id);
    for (const res of [
      await call(`/datasource_agents/${id}`, { key: otherKey }),
      await jsonApi(`/datasource_agents/${id}`, 'PATCH', { ...agent({ name: 'stolen' }), id }, otherKey),
      await call(`/datasource_agents/${id}`, { key: otherKey, method: 'DELETE' }),
    ]) {
      expect(res.status).toBe(404);
      expectJsonApiDocument(res.json);
    }
    expect((await call('/datasource_agents?page[size]=200', { key: otherKey })).json.data.map((a: any) => a.id)).not.toContain(id);
  });
});
