import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { auditLog, datasources, executions } from '@cairn/db';
import { call, db, makeKey, makeOrg, makeRawKey, only } from '../../../test/fixtures.ts';
import { appCall, eventually, makeDatasource, roomForDatasources, MARIADB_ATTRS, PG_ATTRS } from '../../../test/engine-fixtures.ts';
import { createMyDatabase, createPgDatabase, myQuery } from '../../../test/connectors-fixtures.ts';
import { dataServer } from '../../../test/dashboard-data-helpers.ts';
import type { CreateOrganizationResult } from '@cairn/db/seed/organization';

let org: CreateOrganizationResult;
let key: string;
let pg: Awaited<ReturnType<typeof createPgDatabase>>;
let my: Awaited<ReturnType<typeof createMyDatabase>>;

const dsRow = async (id: string) => (await db().select().from(datasources).where(eq(datasources.id, id)))[0]!;
const schemaDoc = async (handle: { data_key: string; data_access_token: string }, query = '') => {
  const res = await dataServer(`/schema/${handle.data_key}${query}`, { headers: { authorization: `Data ${handle.data_access_token}` } });
  return { status: res.status, json: (await res.json()) as any };
};

beforeAll(async () => {
  org = await makeOrg('ds-actions');
  key = await makeKey(org.organization.id);
  await roomForDatasources(org.organization.id);
  pg = await createPgDatabase();
  await pg.sql.unsafe(`create schema shop; create schema other;
    create table shop.orders (id bigint primary key, placed_at timestamptz, total numeric(10,2), note text);
    create table shop.customers (id int, email varchar(200));
    create table other.secrets (x int);
    insert into shop.orders select i, now(), i, 'n' from generate_series(1, 25) i;
    insert into shop.customers values (1, 'a@b.c'), (2, 'c@d.e');
    analyze shop.orders; analyze shop.customers;`);
  my = await createMyDatabase();
  await myQuery(my.conn, 'create table items (id int primary key, name varchar(50), price decimal(8,2), seen datetime)');
  await myQuery(my.conn, "insert into items values (1, 'a', 1.50, now()), (2, 'b', 2.00, now())");
}, 60_000);

afterAll(async () => {
  await pg?.drop().catch(() => {});
  await my?.drop().catch(() => {});
});

describe('POST /datasources/{id}/test_connection', () => {
  it('ok for the sample datasource, Postgres and MariaDB; records the server version', async () => {
    const sample = await appCall(`/datasources/${org.sampleDatasource.id}/test_connection`, { key, method: 'POST' });
    expect(sample.status).toBe(200);
    expect(sample.json).toEqual({ status: 'ok', error_message: null });
    const pgId = await makeDatasource(key, { ...PG_ATTRS, database: pg.name });
    expect((await appCall(`/datasources/${pgId}/test_connection`, { key, method: 'POST' })).json).toEqual({ status: 'ok', error_message: null });
    expect((await dsRow(pgId)).server_version).toMatch(/^\d+/);
    // The audit row names the resource by its plural JSON:API type, as every other row does.
    const rows = await db()
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.organization_id, org.organization.id), eq(auditLog.resource_id, pgId), eq(auditLog.action, 'test_connection')));
    expect(rows.map((r) => r.resource_type)).toEqual(['datasources']);
    const myId = await makeDatasource(key, { ...MARIADB_ATTRS, database: my.name });
    expect((await appCall(`/datasources/${myId}/test_connection`, { key, method: 'POST' })).json.status).toBe('ok');
    expect((await dsRow(myId)).server_version).toMatch(/MariaDB|^\d+\./i);
  });

  it("error with the database's own message: wrong password, unknown database, closed port", async () => {
    const badPassword = await makeDatasource(key, { ...PG_ATTRS, username: 'cairn_no_such_role' });
    const a = await appCall(`/datasources/${badPassword}/test_connection`, { key, method: 'POST' });
    expect(a.status).toBe(200);
    expect(a.json.status).toBe('error');
    expect(a.json.error_message).toMatch(/cairn_no_such_role/);
    const noDb = await makeDatasource(key, { ...PG_ATTRS, database: 'cairn_no_such_database' });
    expect((await appCall(`/datasources/${noDb}/test_connection`, { key, method: 'POST' })).json.error_message).toMatch(/cairn_no_such_database/);
    const closed = await makeDatasource(key, { ...MARIADB_ATTRS, port: 1 });
    const c = await appCall(`/datasources/${closed}/test_connection`, { key, method: 'POST' });
    expect(c.json.status).toBe('error');
    expect(c.json.error_message).toMatch(/127\.0\.0\.1:1/);
  });

  it('a disabled datasource can be tested; a type without a driver is a 422 naming it', async () => {
    const disabled = await makeDatasource(key, { ...PG_ATTRS, enabled: false });
    expect((await appCall(`/datasources/${disabled}/test_connection`, { key, method: 'POST' })).json.status).toBe('ok');
    const snowflake = await makeDatasource(key, { database_type: 'mongodb', host: 'mongo.example.test', username: 'u', password: 'p' });
    const res = await appCall(`/datasources/${snowflake}/test_connection`, { key, method: 'POST' });
    expect(res.status).toBe(422);
    expect(res.json.errors[0].code).toBe('invalid_state');
    expect(res.json.errors[0].detail).toContain('"mongodb"');
  });

  it('needs Manage Datasources for this datasource; another organization gets 404', async () => {
    const id = org.sampleDatasource.id;
    const view = await makeKey(org.organization.id, only('view_datasources'));
    expect((await appCall(`/datasources/${id}/test_connection`, { key: view, method: 'POST' })).status).toBe(403);
    const elsewhere = await makeRawKey(org.organization.id, [{ permission: 'manage_datasources', resources: [{ type: 'datasources', id: 'dsr_other' }] }]);
    // Its grant names another datasource: this one is invisible to it, so 404 (not 403 naming it).
    expect((await appCall(`/datasources/${id}/test_connection`, { key: elsewhere, method: 'POST' })).status).toBe(404);
    const other = await makeOrg('ds-actions-other');
    expect((await appCall(`/datasources/${id}/test_connection`, { key: await makeKey(other.organization.id), method: 'POST' })).status).toBe(404);
  });
});

describe('GET /datasources/{id}/schema and POST /datasources/{id}/refresh', () => {
  it('reads a Postgres schema (included schemas, row counts) and hands it to the data server', async () => {
    const id = await makeDatasource(key, { ...PG_ATTRS, database: pg.name, included_schemas: ['shop'] });
    const res = await appCall(`/datasources/${id}/schema`, { key: await makeKey(org.organization.id, only('view_datasources')) });
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    expect(res.json.data_url).toBe(`http://data.test/schema/${res.json.data_key}`);
    const doc = await schemaDoc(res.json);
    expect(doc.status).toBe(200);
    expect(doc.json.schemas.map((s: any) => s.name)).toEqual(['shop']);
    const orders = doc.json.schemas[0].tables.find((t: any) => t.name === 'orders');
    expect(orders.columns).toEqual([
      { name: 'id', db_type: 'bigint', data_type: 'BigInt' },
      { name: 'placed_at', db_type: 'timestamp with time zone', data_type: 'DateTime' },
      { name: 'total', db_type: 'numeric(10,2)', data_type: 'Float' },
      { name: 'note', db_type: 'text', data_type: 'String' },
    ]);
    const row = await dsRow(id);
    expect(row.schema_updated_at).toBeInstanceOf(Date);
    expect(row.total_row_count).toBe(27);
    expect(row.total_row_count_exact).toBe(false);
    expect((row.schema_cache as any).schemas[0].name).toBe('shop');
    // Fresh within a day: the same stored document is handed out again.
    const again = await appCall(`/datasources/${id}/schema`, { key });
    expect(again.json.data_key).toBe(res.json.data_key);
  });

  it('with name, the token opens that one schema; an unknown name is a 404', async () => {
    const id = await makeDatasource(key, { ...PG_ATTRS, database: pg.name });
    const one = await appCall(`/datasources/${id}/schema?name=other`, { key });
    expect(one.status).toBe(200);
    const doc = await schemaDoc(one.json);
    expect(doc.json.schemas.map((s: any) => [s.name, s.tables.map((t: any) => t.name)])).toEqual([['other', ['secrets']]]);
    const all = await schemaDoc((await appCall(`/datasources/${id}/schema`, { key })).json);
    expect(all.json.schemas.map((s: any) => s.name)).toEqual(expect.arrayContaining(['other', 'shop']));
    const missing = await appCall(`/datasources/${id}/schema?name=nope`, { key });
    expect(missing.status).toBe(404);
    expect(missing.json.errors[0].source).toEqual({ parameter: 'name' });
    expect((await appCall(`/datasources/${id}/schema?nome=x`, { key })).status).toBe(400);
  });

  it("MariaDB: the datasource's database with its columns", async () => {
    const id = await makeDatasource(key, { ...MARIADB_ATTRS, database: my.name });
    const res = await appCall(`/datasources/${id}/schema`, { key });
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    const doc = await schemaDoc(res.json);
    expect(doc.json.schemas.map((s: any) => s.name)).toEqual([my.name]);
    const items = doc.json.schemas[0].tables[0];
    expect(items.name).toBe('items');
    expect(items.columns.map((c: any) => [c.name, c.data_type])).toEqual([
      ['id', 'Integer'],
      ['name', 'String'],
      ['price', 'Float'],
      ['seen', 'DateTime'],
    ]);
  });

  it('the sample datasource shows its shop schema only', async () => {
    const res = await appCall(`/datasources/${org.sampleDatasource.id}/schema`, { key });
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    const doc = await schemaDoc(res.json);
    expect(doc.json.schemas.map((s: any) => s.name)).toEqual(['sample_shop']);
    expect(doc.json.schemas[0].tables.map((t: any) => t.name)).toContain('orders');
  });

  it('refresh runs in the background as an execution and updates the cache and counts', async () => {
    const id = await makeDatasource(key, { ...PG_ATTRS, database: pg.name, included_schemas: ['shop'], update_schema_row_counts: false });
    const res = await appCall(`/datasources/${id}/refresh`, { key, method: 'POST' });
    expect(res.status).toBe(200);
    const exe = res.json.execution_id;
    const done = await eventually(async () => {
      const r = await call(`/executions/${exe}`, { key });
      return ['success', 'query_error', 'internal_error'].includes(r.json.execution_status) && r.json;
    });
    expect(done).toMatchObject({ execution_type: 'almanach_query', execution_status: 'success' });
    // The schema document is not tabular data.
    expect((await call(`/executions/${exe}/data`, { key })).status).toBe(204);
    const row = await dsRow(id);
    expect((row.schema_cache as any).schemas.map((s: any) => s.name)).toEqual(['shop']);
    expect(row.total_row_count).toBeNull();
    // A new table shows up after the next refresh; the schema call then hands out the new document.
    await pg.sql.unsafe('create table shop.returns (id int)');
    const second = await appCall(`/datasources/${id}/refresh`, { key, method: 'POST' });
    await eventually(async () => (await db().select().from(executions).where(eq(executions.id, second.json.execution_id)))[0]?.execution_status === 'success');
    const doc = await schemaDoc((await appCall(`/datasources/${id}/schema`, { key })).json);
    expect(doc.json.schemas[0].tables.map((t: any) => t.name)).toContain('returns');
  });

  it("a stale cache is read again; an unreachable database is a 422 with the driver's message", async () => {
    const id = await makeDatasource(key, { ...PG_ATTRS, database: pg.name, included_schemas: ['other'] });
    await db()
      .update(datasources)
      .set({ schema_cache: { schemas: [] }, schema_updated_at: new Date(Date.now() - 2 * 86_400_000) })
      .where(eq(datasources.id, id));
    const doc = await schemaDoc((await appCall(`/datasources/${id}/schema`, { key })).json);
    expect(doc.json.schemas.map((s: any) => s.name)).toEqual(['other']);
    const closed = await makeDatasource(key, { ...PG_ATTRS, port: 1 });
    const res = await appCall(`/datasources/${closed}/schema`, { key });
    expect(res.status).toBe(422);
    expect(res.json.errors[0].detail).toMatch(/127\.0\.0\.1:1/);
  });

  it('refresh needs Manage Datasources; schema needs View Datasources; no driver is a 422', async () => {
    const id = org.sampleDatasource.id;
    const view = await makeKey(org.organization.id, only('view_datasources'));
    expect((await appCall(`/datasources/${id}/refresh`, { key: view, method: 'POST' })).status).toBe(403);
    const dash = await makeKey(org.organization.id, only('view_dashboards'));
    expect((await appCall(`/datasources/${id}/schema`, { key: dash })).status).toBe(403);
    const snowflake = await makeDatasource(key, { database_type: 'mongodb', host: 'mongo.example.test', username: 'u', password: 'p' });
    const res = await appCall(`/datasources/${snowflake}/refresh`, { key, method: 'POST' });
    expect(res.status).toBe(422);
    expect(res.json.errors[0].detail).toContain('"mongodb"');
    const other = await makeOrg('ds-actions-other2');
    expect((await appCall(`/datasources/${id}/schema`, { key: await makeKey(other.organization.id) })).status).toBe(404);
  });
});
