import { beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { auditLog, datasources, filters, organizations, reports } from '@cairn/db';
import { decryptSecret, newId } from '@cairn/core';
import { call, db, jsonApi, makeKey, makeOrg, makeUser, only } from '../../../test/fixtures.ts';
import { expectJsonApiDocument } from '../../../test/jsonapi-schema.ts';
import type { CreateOrganizationResult } from '@cairn/db/seed/organization';

let org: CreateOrganizationResult;
let key: string;

const ds = (attributes: Record<string, unknown>, relationships?: Record<string, unknown>) => ({
  type: 'datasources',
  attributes,
  ...(relationships ? { relationships } : {}),
});
const pg = (extra: Record<string, unknown> = {}) =>
  ds({ name: `PG ${Math.random().toString(36).slice(2, 7)}`, database_type: 'postgres', connection_mode: 'direct', host: 'db.example.test', ...extra });

async function create(data: unknown, k: string = key) {
  const res = await jsonApi('/datasources', 'POST', data, k);
  expectJsonApiDocument(res.json);
  return res;
}

beforeAll(async () => {
  org = await makeOrg('datasources');
  key = await makeKey(org.organization.id);
  await db().update(organizations).set({ plan_datasources: 1000 }).where(eq(organizations.id, org.organization.id));
});

describe('datasources: create, read, update, delete', () => {
  it('creates with the defaults of the spec, seals the password and never shows it', async () => {
    const res = await create(pg({ username: 'reader', password: 's3cret-pw', database: 'shop' }));
    expect(res.status).toBe(201);
    const a = res.json.data.attributes;
    expect(a).toMatchObject({
      database_type: 'postgres',
      connection_mode: 'direct',
      host: 'db.example.test',
      port: 5432,
      database: 'shop',
      verify_ssl: false,
      require_ssl: false,
      enabled: true,
      max_concurrent_executions: 20,
      update_schema_nightly: true,
      update_schema_row_counts: true,
      athena_region: 'us-east-1',
      athena_workgroup: 'primary',
      data_time_zone: 'UTC',
      is_sample: false,
      username: 'reader',
      password_set: true,
    });
    expect(a).not.toHaveProperty('password');
    expect(JSON.stringify(res.json)).not.toContain('s3cret-pw');
    const [row] = await db().select().from(datasources).where(eq(datasources.id, res.json.data.id));
    expect(row!.password_encrypted).toMatch(/^v1\./);
    expect(await decryptSecret(row!.password_encrypted!, 'test-secret-key')).toBe('s3cret-pw');
    const log = await db()
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.organization_id, org.organization.id), eq(auditLog.resource_id, res.json.data.id)));
    expect(log.map((l) => l.action)).toEqual(['create']);
    expect(JSON.stringify(log[0]!.details)).not.toContain('s3cret-pw');
  });

  it('reads one and lists them ordered by name, including the sample datasource', async () => {
    const made = await create(pg({ name: 'AAA first' }));
    const got = await call(`/datasources/${made.json.data.id}`, { key });
    expect(got.status).toBe(200);
    expectJsonApiDocument(got.json);
    expect(got.json.data.attributes.name).toBe('AAA first');
    const list = await call('/datasources?page[size]=200', { key });
    expect(list.status).toBe(200);
    expectJsonApiDocument(list.json);
    const names = list.json.data.map((d: any) => d.attributes.name);
    expect(names[0]).toBe('AAA first');
    expect(names).toEqual([...names].sort());
    expect(list.json.data.find((d: any) => d.id === org.sampleDatasource.id).attributes.is_sample).toBe(true);
    expect(list.json.meta.total).toBe(list.json.data.length);
  });

  it('updates only the attributes sent; null port restores the default; null password removes it', async () => {
    const id = (await create(pg({ port: 6543, username: 'u', password: 'p' }))).json.data.id;
    const res = await jsonApi(`/datasources/${id}`, 'PATCH', { type: 'datasources', id, attributes: { port: null, password: null, enabled: false } }, key);
    expect(res.status).toBe(200);
    expectJsonApiDocument(res.json);
    expect(res.json.data.attributes).toMatchObject({ port: 5432, password_set: false, enabled: false, username: 'u', host: 'db.example.test' });
  });

  it('deletes an unused datasource (204, then 404) and records it', async () => {
    const id = (await create(pg())).json.data.id;
    expect((await call(`/datasources/${id}`, { key, method: 'DELETE' })).status).toBe(204);
    const gone = await call(`/datasources/${id}`, { key });
    expect(gone.status).toBe(404);
    expectJsonApiDocument(gone.json);
    const log = await db().select().from(auditLog).where(eq(auditLog.resource_id, id));
    expect(log.map((l) => l.action).sort()).toEqual(['create', 'delete']);
  });

  it('concurrent updates of different attributes both survive', async () => {
    const id = (await create(pg())).json.data.id;
    await Promise.all([
      jsonApi(`/datasources/${id}`, 'PATCH', { type: 'datasources', id, attributes: { name: 'Raced name' } }, key),
      jsonApi(`/datasources/${id}`, 'PATCH', { type: 'datasources', id, attributes: { host: 'raced.example.test' } }, key),
      jsonApi(`/datasources/${id}`, 'PATCH', { type: 'datasources', id, attributes: { max_concurrent_executions: 7 } }, key),
    ]);
    const got = await call(`/datasources/${id}`, { key });
    expect(got.json.data.attributes).toMatchObject({ name: 'Raced name', host: 'raced.example.test', max_concurrent_executions: 7 });
  });
});

describe('datasources: plan limit, sample datasource and delete refusals', () => {
  it('counts non-sample datasources against the plan (422 plan_limit)', async () => {
    const small = await makeOrg('ds-plan');
    const smallKey = await makeKey(small.organization.id);
    await db().update(organizations).set({ plan_datasources: 2 }).where(eq(organizations.id, small.organization.id));
    expect((await create(pg(), smallKey)).status).toBe(201);
    expect((await create(pg(), smallKey)).status).toBe(201);
    const third = await create(pg(), smallKey);
    expect(third.status).toBe(422);
    expect(third.json.errors[0].code).toBe('plan_limit');
    const count = await db().select().from(datasources).where(eq(datasources.organization_id, small.organization.id));
    expect(count).toHaveLength(3); // two plus the sample datasource
  });

  it('holds the plan limit under concurrent creates', async () => {
    const small = await makeOrg('ds-plan-race');
    const smallKey = await makeKey(small.organization.id);
    await db().update(organizations).set({ plan_datasources: 2 }).where(eq(organizations.id, small.organization.id));
    const results = await Promise.all([1, 2, 3, 4].map(() => create(pg(), smallKey)));
    expect(results.map((r) => r.status).sort()).toEqual([201, 201, 422, 422]);
  });

  it('the sample datasource can be neither changed nor deleted', async () => {
    const id = org.sampleDatasource.id;
    const patch = await jsonApi(`/datasources/${id}`, 'PATCH', { type: 'datasources', id, attributes: { name: 'Mine now' } }, key);
    expect(patch.status).toBe(422);
    expect(patch.json.errors[0].code).toBe('invalid_state');
    const del = await call(`/datasources/${id}`, { key, method: 'DELETE' });
    expect(del.status).toBe(422);
    expect(del.json.errors[0].code).toBe('invalid_state');
  });

  it('refuses to delete a datasource a report, a filter or a SQL alert uses, naming it', async () => {
    const orgId = org.organization.id;
    const used = async () => (await create(pg())).json.data.id as string;
    const byReport = await used();
    await db()
      .insert(reports)
      .values({
        id: newId('report'),
        organization_id: orgId,
        dashboard_id: org.sampleDashboard.id,
        datasource_id: byReport,
        name: 'Revenue report',
        sql_query: 'select 1',
      });
    const r = await call(`/datasources/${byReport}`, { key, method: 'DELETE' });
    expect(r.status).toBe(422);
    expectJsonApiDocument(r.json);
    expect(r.json.errors[0]).toMatchObject({ code: 'invalid_state' });
    expect(r.json.errors[0].detail).toContain('Revenue report');

    const byFilter = await used();
    await db()
      .insert(filters)
      .values({
        id: newId('filter'),
        organization_id: orgId,
        datasource_id: byFilter,
        variable_name: 'country',
        display_name: 'Country picker',
        control_type: 'dropdown',
        value_type: 'TEXT',
        sql_query: 'select 1',
      });
    const f = await call(`/datasources/${byFilter}`, { key, method: 'DELETE' });
    expect(f.status).toBe(422);
    expect(f.json.errors[0].detail).toContain('Country picker');

    const byAlert = await used();
    const alert = await jsonApi(
      '/sql_alerts',
      'POST',
      {
        type: 'sql_alerts',
        attributes: { name: 'Stock alert', sql_query: 'select 1', run_schedule: 'disabled', trigger_condition: 'has_results', email_condition: 'all' },
        relationships: { datasource: { data: { type: 'datasources', id: byAlert } } },
      },
      key,
    );
    expect(alert.status).toBe(201);
    const a = await call(`/datasources/${byAlert}`, { key, method: 'DELETE' });
    expect(a.status).toBe(422);
    expect(a.json.errors[0].detail).toContain('Stock alert');
    expect((await call(`/sql_alerts/${alert.json.data.id}`, { key, method: 'DELETE' })).status).toBe(204);
    expect((await call(`/datasources/${byAlert}`, { key, method: 'DELETE' })).status).toBe(204);
  });
});

describe('datasources: permissions and credentials', () => {
  it('shows credentials only with Manage Datasources', async () => {
    const id = (await create(pg({ username: 'reader', password: 'pw', connection_mode: 'ssh_tunnel', ssh_tunnel_host: 'b.test', ssh_tunnel_user: 'tun' }))).json
      .data.id;
    const credentialKeys = ['username', 'password_set', 'ssh_tunnel_user', 'bigquery_service_key_set'];
    const admin = await makeUser(org.organization.id, 'admin');
    const analyst = await makeUser(org.organization.id, 'analyst');
    const withManage = await call(`/datasources/${id}`, { session: admin.session });
    expect(withManage.json.data.attributes).toMatchObject({ username: 'reader', password_set: true, ssh_tunnel_user: 'tun', bigquery_service_key_set: false });
    for (const who of [{ session: analyst.session }, { key: await makeKey(org.organization.id, only('view_datasources')) }]) {
      const res = await call(`/datasources/${id}`, who);
      expect(res.status).toBe(200);
      expectJsonApiDocument(res.json);
      for (const k of credentialKeys) expect(res.json.data.attributes).not.toHaveProperty(k);
      expect(res.json.data.attributes.host).toBe('db.example.test');
      const list = await call('/datasources?page[size]=200', who);
      for (const d of list.json.data) for (const k of credentialKeys) expect(d.attributes).not.toHaveProperty(k);
    }
    // Manage Datasources restricted to another datasource does not reveal this one's credentials.
    const other = (await create(pg())).json.data.id;
    const partial = await makeKey(org.organization.id, [
      { permission: 'view_datasources', resources: null },
      { permission: 'manage_datasources', resources: [{ type: 'datasources', id: other }] },
    ]);
    const res = await call(`/datasources/${id}`, { key: partial });
    expect(res.json.data.attributes).not.toHaveProperty('username');
    expect((await call(`/datasources/${other}`, { key: partial })).json.data.attributes.username).toBeNull();
  });

  it('a key restricted to one datasource sees and changes only that one', async () => {
    const mine = (await create(pg({ name: 'Restricted mine' }))).json.data.id;
    const theirs = (await create(pg({ name: 'Restricted theirs' }))).json.data.id;
    const restricted = await makeKey(org.organization.id, [{ permission: 'manage_datasources', resources: [{ type: 'datasources', id: mine }] }]);
    const list = await call('/datasources?page[size]=200', { key: restricted });
    expect(list.status).toBe(200);
    expect(list.json.data.map((d: any) => d.id)).toEqual([mine]);
    expect(list.json.meta.total).toBe(1);
    // A datasource the key cannot see does not exist for it: 404, as for a missing id (issue 16).
    expect((await call(`/datasources/${theirs}`, { key: restricted })).status).toBe(404);
    const patch = await jsonApi(`/datasources/${theirs}`, 'PATCH', { type: 'datasources', id: theirs, attributes: { name: 'x' } }, restricted);
    expect(patch.status).toBe(404);
    expect(
      (await jsonApi(`/datasources/${mine}`, 'PATCH', { type: 'datasources', id: mine, attributes: { name: 'Restricted mine 2' } }, restricted)).status,
    ).toBe(200);
    // It may not add datasources it could never see.
    expect((await create(pg(), restricted)).status).toBe(403);
  });

  it('roles: viewers cannot read datasources, analysts read, admins write', async () => {
    const viewer = await makeUser(org.organization.id, 'viewer');
    const analyst = await makeUser(org.organization.id, 'analyst');
    const admin = await makeUser(org.organization.id, 'admin');
    expect((await call('/datasources', { session: viewer.session })).status).toBe(403);
    expect((await call('/datasources', { session: analyst.session })).status).toBe(200);
    expect((await jsonApi('/datasources', 'POST', pg(), { session: analyst.session })).status).toBe(403);
    expect((await jsonApi('/datasources', 'POST', pg(), { session: admin.session })).status).toBe(201);
    expect((await jsonApi('/datasources', 'POST', pg(), await makeKey(org.organization.id, only('view_datasources')))).status).toBe(403);
  });

  it("another organization's datasource is a 404 for every verb", async () => {
    const other = await makeOrg('ds-intruder');
    const otherKey = await makeKey(other.organization.id);
    const id = (await create(pg())).json.data.id;
    for (const res of [
      await call(`/datasources/${id}`, { key: otherKey }),
      await jsonApi(`/datasources/${id}`, 'PATCH', { type: 'datasources', id, attributes: { name: 'stolen' } }, otherKey),
      await call(`/datasources/${id}`, { key: otherKey, method: 'DELETE' }),
    ]) {
      expect(res.status).toBe(404);
      expectJsonApiDocument(res.json);
    }
    expect((await call('/datasources?page[size]=200', { key: otherKey })).json.data.map((d: any) => d.id)).not.toContain(id);
  });
});
