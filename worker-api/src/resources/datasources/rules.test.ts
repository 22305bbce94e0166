import { beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { datasources, organizations } from '@cairn/db';
import { decryptSecret } from '@cairn/core';
import { call, db, jsonApi, makeKey, makeOrg } from '../../../test/fixtures.ts';
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
const pointers = (res: { json: any }) => res.json.errors.map((e: any) => e.source?.pointer);

beforeAll(async () => {
  org = await makeOrg('datasource-rules');
  key = await makeKey(org.organization.id);
  await db().update(organizations).set({ plan_datasources: 1000 }).where(eq(organizations.id, org.organization.id));
});

describe('datasources: default ports and per-type rules', () => {
  it('fills the default port of each server type', async () => {
    const expected: [string, number, Record<string, unknown>?][] = [
      ['mysql', 3306],
      ['mariadb', 3306],
      ['mssql', 1433],
      ['oracle', 1521],
      ['redshift', 5439],
      ['clickhouse', 8123],
      ['clickhouse', 8443, { require_ssl: true }],
      ['trino', 8080],
      ['presto', 8080],
      ['vertica', 5433],
      ['mongodb', 27017],
    ];
    for (const [type, port, extra] of expected) {
      const res = await create(pg({ database_type: type, ...extra }));
      expect(res.status, type).toBe(201);
      expect(res.json.data.attributes.port, type).toBe(port);
    }
  });

  it('athena needs an s3:// output location and AWS credentials; takes no host', async () => {
    const base = { name: 'Athena', database_type: 'athena', connection_mode: 'direct', username: 'AKIAEXAMPLE', password: 'secret' };
    const missing = await create(ds({ ...base }));
    expect(missing.status).toBe(422);
    expect(missing.json.errors[0]).toMatchObject({ code: 'missing_attribute', source: { pointer: '/data/attributes/athena_s3_output_location' } });
    const https = await create(ds({ ...base, athena_s3_output_location: 'https://bucket/results' }));
    expect(https.status).toBe(422);
    expect(pointers(https)).toContain('/data/attributes/athena_s3_output_location');
    const noCreds = await create(ds({ name: 'A', database_type: 'athena', connection_mode: 'direct', athena_s3_output_location: 's3://bucket/x' }));
    expect(pointers(noCreds)).toEqual(expect.arrayContaining(['/data/attributes/username', '/data/attributes/password']));
    const withHost = await create(ds({ ...base, athena_s3_output_location: 's3://bucket/x', host: 'h.test' }));
    expect(pointers(withHost)).toContain('/data/attributes/host');
    const badRegion = await create(ds({ ...base, athena_s3_output_location: 's3://bucket/x', athena_region: 'Frankfurt' }));
    expect(pointers(badRegion)).toContain('/data/attributes/athena_region');
    const ok = await create(ds({ ...base, athena_s3_output_location: 's3://bucket/results/', athena_workgroup: 'analysts' }));
    expect(ok.status).toBe(201);
    expect(ok.json.data.attributes).toMatchObject({ athena_region: 'us-east-1', athena_workgroup: 'analysts', port: null, host: null });
  });

  it('databricks needs an HTTP path and a token; oauth_m2m needs a client id and an expiry', async () => {
    const base = { name: 'DBX', database_type: 'databricks', connection_mode: 'direct', host: 'dbc-1.cloud.databricks.com', password: 'dapi-token' };
    const noPath = await create(ds(base));
    expect(noPath.status).toBe(422);
    expect(pointers(noPath)).toContain('/data/attributes/databricks_http_path');
    const badPath = await create(ds({ ...base, databricks_http_path: 'sql/1.0/warehouses/abc' }));
    expect(pointers(badPath)).toContain('/data/attributes/databricks_http_path');
    const pat = await create(ds({ ...base, databricks_http_path: '/sql/1.0/warehouses/abc' }));
    expect(pat.status).toBe(201);
    expect(pat.json.data.attributes).toMatchObject({ databricks_auth_mode: 'pat', port: 443 });
    const oauth = await create(ds({ ...base, databricks_http_path: '/sql/1.0/warehouses/abc', databricks_auth_mode: 'oauth_m2m' }));
    expect(oauth.status).toBe(422);
    expect(pointers(oauth)).toEqual(expect.arrayContaining(['/data/attributes/databricks_auth_expires_at', '/data/attributes/username']));
    const badDate = await create(
      ds({ ...base, databricks_http_path: '/sql/1.0/x', databricks_auth_mode: 'oauth_m2m', username: 'client', databricks_auth_expires_at: 'next year' }),
    );
    expect(pointers(badDate)).toContain('/data/attributes/databricks_auth_expires_at');
    const good = await create(
      ds({
        ...base,
        databricks_http_path: '/sql/1.0/x',
        databricks_auth_mode: 'oauth_m2m',
        username: 'client',
        databricks_auth_expires_at: '2030-01-01T00:00:00Z',
      }),
    );
    expect(good.status).toBe(201);
    expect(good.json.data.attributes.databricks_auth_expires_at).toBe('2030-01-01T00:00:00.000Z');
    // Switching an existing datasource to oauth_m2m without an expiry is refused as well.
    const id = pat.json.data.id;
    const patch = await jsonApi(
      `/datasources/${id}`,
      'PATCH',
      { type: 'datasources', id, attributes: { databricks_auth_mode: 'oauth_m2m', username: 'client' } },
      key,
    );
    expect(patch.status).toBe(422);
    expect(pointers(patch)).toEqual(['/data/attributes/databricks_auth_expires_at']);
  });

  it('snowflake needs an account identifier, a user and a password', async () => {
    const res = await create(ds({ name: 'SF', database_type: 'snowflake', connection_mode: 'direct' }));
    expect(res.status).toBe(422);
    expect(pointers(res)).toEqual(expect.arrayContaining(['/data/attributes/snowflake_identifier', '/data/attributes/username', '/data/attributes/password']));
    const bad = await create(
      ds({
        name: 'SF',
        database_type: 'snowflake',
        connection_mode: 'direct',
        snowflake_identifier: 'https://x.snowflakecomputing.com',
        username: 'u',
        password: 'p',
      }),
    );
    expect(pointers(bad)).toContain('/data/attributes/snowflake_identifier');
    const ok = await create(
      ds({
        name: 'SF',
        database_type: 'snowflake',
        connection_mode: 'direct',
        snowflake_identifier: 'myorg-myaccount',
        snowflake_warehouse: 'WH',
        username: 'u',
        password: 'p',
      }),
    );
    expect(ok.status).toBe(201);
    expect(ok.json.data.attributes).toMatchObject({ snowflake_identifier: 'myorg-myaccount', snowflake_warehouse: 'WH', port: null });
  });

  it('bigquery needs a service account key (JSON), sealed and never shown', async () => {
    const key1 = {
      type: 'service_account',
      project_id: 'my-project',
      client_email: 'x@my-project.iam.gserviceaccount.com',
      private_key: '-----BEGIN PRIVATE KEY-----\nabc\n-----END PRIVATE KEY-----\n',
    };
    const base = { name: 'BQ', database_type: 'bigquery', connection_mode: 'direct' };
    const missing = await create(ds(base));
    expect(missing.json.errors[0]).toMatchObject({ code: 'missing_attribute', source: { pointer: '/data/attributes/bigquery_service_key' } });
    const notJson = await create(ds({ ...base, bigquery_service_key: '{not json' }));
    expect(notJson.status).toBe(422);
    expect(pointers(notJson)).toContain('/data/attributes/bigquery_service_key');
    const notSa = await create(ds({ ...base, bigquery_service_key: JSON.stringify({ ...key1, type: 'authorized_user' }) }));
    expect(pointers(notSa)).toContain('/data/attributes/bigquery_service_key');
    const ok = await create(ds({ ...base, bigquery_service_key: JSON.stringify(key1), bigquery_public_project_ids: ['bigquery-public-data'] }));
    expect(ok.status).toBe(201);
    expect(ok.json.data.attributes).toMatchObject({ bigquery_service_key_set: true, bigquery_public_project_ids: ['bigquery-public-data'] });
    expect(JSON.stringify(ok.json)).not.toContain('PRIVATE KEY');
    const asObject = await create(ds({ ...base, bigquery_service_key: key1 }));
    expect(asObject.status).toBe(201);
    const [row] = await db().select().from(datasources).where(eq(datasources.id, asObject.json.data.id));
    expect(JSON.parse(await decryptSecret(row!.bigquery_service_key_encrypted!, 'test-secret-key'))).toEqual(key1);
  });

  it('refuses attributes of another database type', async () => {
    const res = await create(pg({ athena_workgroup: 'x', snowflake_warehouse: 'y' }));
    expect(res.status).toBe(422);
    expect(pointers(res)).toEqual(expect.arrayContaining(['/data/attributes/athena_workgroup', '/data/attributes/snowflake_warehouse']));
  });

  it('ssh_tunnel needs the tunnel host and user (port 22 by default) and is refused for cloud services', async () => {
    const missing = await create(pg({ connection_mode: 'ssh_tunnel' }));
    expect(missing.status).toBe(422);
    expect(pointers(missing)).toEqual(expect.arrayContaining(['/data/attributes/ssh_tunnel_host', '/data/attributes/ssh_tunnel_user']));
    const ok = await create(pg({ connection_mode: 'ssh_tunnel', ssh_tunnel_host: 'bastion.example.test', ssh_tunnel_user: 'tunnel' }));
    expect(ok.status).toBe(201);
    expect(ok.json.data.attributes).toMatchObject({ ssh_tunnel_host: 'bastion.example.test', ssh_tunnel_port: 22, ssh_tunnel_user: 'tunnel' });
    const cloud = await create(
      ds({ name: 'SF', database_type: 'snowflake', connection_mode: 'ssh_tunnel', snowflake_identifier: 'a-b', username: 'u', password: 'p' }),
    );
    expect(pointers(cloud)).toContain('/data/attributes/connection_mode');
  });

  it('agent mode needs an existing agent of the organization; leaving it drops the link', async () => {
    const noAgent = await create(pg({ connection_mode: 'agent' }));
    expect(noAgent.status).toBe(422);
    expect(pointers(noAgent)).toContain('/data/relationships/agents');
    const other = await makeOrg('ds-other-agent');
    const foreign = (
      await jsonApi('/datasource_agents', 'POST', { type: 'datasource_agents', attributes: { name: 'theirs' } }, await makeKey(other.organization.id))
    ).json.data.id;
    const wrongOrg = await create({ ...pg({ connection_mode: 'agent' }), relationships: { agents: { data: [{ type: 'datasource_agents', id: foreign }] } } });
    expect(wrongOrg.status).toBe(422);
    expect(pointers(wrongOrg)).toEqual(['/data/relationships/agents/data/0/id']);
    const agent = (await jsonApi('/datasource_agents', 'POST', { type: 'datasource_agents', attributes: { name: 'ours' } }, key)).json.data.id;
    const made = await create({ ...pg({ connection_mode: 'agent' }), relationships: { agents: { data: [{ type: 'datasource_agents', id: agent }] } } });
    expect(made.status).toBe(201);
    expect(made.json.data.relationships.agents.data).toEqual([{ type: 'datasource_agents', id: agent }]);
    const id = made.json.data.id;
    const inc = await call(`/datasources?include=agents&page[size]=200`, { key });
    expectJsonApiDocument(inc.json);
    expect(inc.json.included.map((r: any) => r.id)).toContain(agent);
    expect(inc.json.included.find((r: any) => r.id === agent).attributes).not.toHaveProperty('secret_key');
    const direct = await jsonApi(`/datasources/${id}`, 'PATCH', { type: 'datasources', id, attributes: { connection_mode: 'direct' } }, key);
    expect(direct.status).toBe(200);
    expect(direct.json.data.relationships.agents.data).toEqual([]);
    const withAgents = await jsonApi(
      `/datasources/${id}`,
      'PATCH',
      {
        type: 'datasources',
        id,
        relationships: { agents: { data: [{ type: 'datasource_agents', id: agent }] } },
      },
      key,
    );
    expect(withAgents.status).toBe(422);
    expect(pointers(withAgents)).toContain('/data/relationships/agents');
  });

  it('validates names, enums, hosts, ports, time zones and lists with pointers', async () => {
    const missing = await create(ds({}));
    expect(missing.status).toBe(422);
    expect(pointers(missing)).toEqual(expect.arrayContaining(['/data/attributes/name', '/data/attributes/database_type', '/data/attributes/connection_mode']));
    expect(missing.json.errors.every((e: any) => e.code === 'missing_attribute')).toBe(true);
    const cases: [Record<string, unknown>, string][] = [
      [{ database_type: 'sqlite' }, 'database_type'],
      [{ connection_mode: 'vpn' }, 'connection_mode'],
      [{ host: 'postgres://db.example.test:5432' }, 'host'],
      [{ host: 'db example' }, 'host'],
      [{ port: 0 }, 'port'],
      [{ port: 65536 }, 'port'],
      [{ port: '5432' }, 'port'],
      [{ data_time_zone: 'Mars/Olympus_Mons' }, 'data_time_zone'],
      [{ data_time_zone: 'CEST+2' }, 'data_time_zone'],
      [{ included_schemas: 'public' }, 'included_schemas'],
      [{ included_databases: [''] }, 'included_databases'],
      [{ max_concurrent_executions: 0 }, 'max_concurrent_executions'],
      [{ verify_ssl: 'yes' }, 'verify_ssl'],
      [{ name: '   ' }, 'name'],
    ];
    for (const [attrs, name] of cases) {
      const res = await create(pg(attrs));
      expect(res.status, name).toBe(422);
      expect(
        pointers(res).some((p: string) => p.startsWith(`/data/attributes/${name}`)),
        name,
      ).toBe(true);
    }
    const wrongType = await create(pg({ port: '5432' }));
    expect(wrongType.json.errors[0]).toMatchObject({ code: 'invalid_attribute', source: { pointer: '/data/attributes/port' } });
    expect(wrongType.json.errors[0].detail).not.toContain('required');
    const noHost = await create(ds({ name: 'x', database_type: 'mysql', connection_mode: 'direct' }));
    expect(noHost.json.errors[0]).toMatchObject({ code: 'missing_attribute', source: { pointer: '/data/attributes/host' } });
    const ok = await create(pg({ host: '10.0.0.5', data_time_zone: 'America/Argentina/Salta', included_schemas: ['public', 'sales'] }));
    expect(ok.status).toBe(201);
    const v6 = await create(pg({ host: '2001:db8::1' }));
    expect(v6.status).toBe(201);
  });

  it('refuses read-only and unknown attributes, database_type changes, wrong types and media types', async () => {
    const ro = await create(pg({ server_version: '16', password_set: true, colour: 'red' }));
    expect(ro.status).toBe(422);
    expect(ro.json.errors.map((e: any) => [e.code, e.source.pointer])).toEqual(
      expect.arrayContaining([
        ['read_only_attribute', '/data/attributes/server_version'],
        ['read_only_attribute', '/data/attributes/password_set'],
        ['unknown_attribute', '/data/attributes/colour'],
      ]),
    );
    const id = (await create(pg())).json.data.id;
    const typeChange = await jsonApi(`/datasources/${id}`, 'PATCH', { type: 'datasources', id, attributes: { database_type: 'mysql' } }, key);
    expect(typeChange.status).toBe(422);
    expect(typeChange.json.errors[0]).toMatchObject({ code: 'read_only_attribute', source: { pointer: '/data/attributes/database_type' } });
    expect((await jsonApi('/datasources', 'POST', { type: 'reports', attributes: {} }, key)).status).toBe(409);
    const plain = await call('/datasources', { key, method: 'POST', body: { data: pg() } });
    expect(plain.status).toBe(415);
    expectJsonApiDocument(plain.json);
    const include = await call('/datasources?include=reports', { key });
    expect(include.status).toBe(400);
    expect(include.json.errors[0].code).toBe('invalid_include');
  });
});
