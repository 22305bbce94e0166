import { beforeAll, describe, expect, it } from 'vitest';
import { and, count, eq } from 'drizzle-orm';
import { datasources } from '@cairn/db';
import { db, jsonApi, makeKey, makeOrg, makeRawKey, only } from '../../../test/fixtures.ts';
import { makeDatasource, roomForDatasources, MARIADB_ATTRS, PG_ATTRS } from '../../../test/engine-fixtures.ts';
import type { CreateOrganizationResult } from '@cairn/db/seed/organization';

// POST /datasources/test_connection: the datasource form's "Test connection" on settings that are not saved.
let org: CreateOrganizationResult;
let key: string;
const test = (data: unknown, k = key) => jsonApi('/datasources/test_connection', 'POST', data, k);
const stored = async () =>
  (
    await db()
      .select({ n: count() })
      .from(datasources)
      .where(and(eq(datasources.organization_id, org.organization.id), eq(datasources.is_sample, false)))
  )[0]!.n;

beforeAll(async () => {
  org = await makeOrg('ds-test-settings');
  key = await makeKey(org.organization.id);
  await roomForDatasources(org.organization.id);
});

describe('POST /datasources/test_connection (unsaved settings)', () => {
  it('tests a new datasource before it is saved (no name needed) and saves nothing', async () => {
    const before = await stored();
    const ok = await test({ type: 'datasources', attributes: { ...PG_ATTRS, connection_mode: 'direct' } });
    expect(ok.status, JSON.stringify(ok.json)).toBe(200);
    expect(ok.json).toEqual({ status: 'ok', error_message: null });
    const wrong = await test({ type: 'datasources', attributes: { ...PG_ATTRS, connection_mode: 'direct', database: 'cairn_no_such_db_h6' } });
    expect(wrong.status).toBe(200);
    expect(wrong.json.status).toBe('error');
    expect(wrong.json.error_message).toMatch(/cairn_no_such_db_h6/);
    expect(await stored()).toBe(before);
  });

  it('a closed port is a plain message, not the runtime\'s "proxy request failed"', async () => {
    const res = await test({ type: 'datasources', attributes: { ...MARIADB_ATTRS, connection_mode: 'direct', port: 1 } });
    expect(res.status).toBe(200);
    expect(res.json.status).toBe('error');
    expect(res.json.error_message).toMatch(/127\.0\.0\.1:1/);
    expect(res.json.error_message).not.toMatch(/proxy/i);
  });

  it('with data.id: the edits over the stored settings (stored credentials when none are sent)', async () => {
    const id = await makeDatasource(key, { ...PG_ATTRS, database: 'cairn_no_such_db_h6' });
    // The stored settings fail; the form's database (password not retyped) works.
    const edited = await test({ type: 'datasources', id, attributes: { database: 'postgres' } });
    expect(edited.status, JSON.stringify(edited.json)).toBe(200);
    expect(edited.json).toEqual({ status: 'ok', error_message: null });
    const badUser = await test({ type: 'datasources', id, attributes: { database: 'postgres', username: 'cairn_no_such_role_h6' } });
    expect(badUser.json.status).toBe('error');
    expect(badUser.json.error_message).toMatch(/cairn_no_such_role_h6/);
    // Nothing was saved.
    const [row] = await db().select().from(datasources).where(eq(datasources.id, id));
    expect(row!.database).toBe('cairn_no_such_db_h6');
  });

  it('the rules of a save apply first; a type or mode that cannot run is a 422 naming it', async () => {
    const noHost = await test({ type: 'datasources', attributes: { database_type: 'postgres', connection_mode: 'direct' } });
    expect(noHost.status).toBe(422);
    expect(noHost.json.errors[0].source).toEqual({ pointer: '/data/attributes/host' });
    const mongo = await test({
      type: 'datasources',
      attributes: { database_type: 'mongodb', connection_mode: 'direct', host: 'mongo.example.test', username: 'u', password: 'p' },
    });
    expect(mongo.status).toBe(422);
    expect(mongo.json.errors[0].code).toBe('invalid_state');
    expect(mongo.json.errors[0].detail).toContain('"mongodb"');
    // SSH tunnels run the socket drivers only (engine/connectors/ssh-tunnel.test.ts): a ClickHouse one is refused before connecting.
    const tunnel = await test({
      type: 'datasources',
      attributes: {
        ...PG_ATTRS,
        database_type: 'clickhouse',
        port: 8123,
        connection_mode: 'ssh_tunnel',
        ssh_tunnel_host: 'bastion.example.test',
        ssh_tunnel_user: 't',
      },
    });
    expect(tunnel.status).toBe(422);
    expect(tunnel.json.errors[0].source).toEqual({ pointer: '/data/attributes/connection_mode' });
    const missing = await test({ type: 'datasources', attributes: { host: '127.0.0.1' } });
    expect(missing.status).toBe(422);
    expect(missing.json.errors.map((e: any) => e.source.pointer)).toEqual(
      expect.arrayContaining(['/data/attributes/database_type', '/data/attributes/connection_mode']),
    );
    const badId = await test({ type: 'datasources', id: 42, attributes: {} });
    expect(badId.status).toBe(422);
    const wrongType = await test({ type: 'reports', attributes: { ...PG_ATTRS, connection_mode: 'direct' } });
    expect(wrongType.status).toBe(409);
  });

  it("needs Manage Datasources; another organization's datasource is a 404", async () => {
    const attrs = { ...PG_ATTRS, connection_mode: 'direct' };
    const view = await makeKey(org.organization.id, only('view_datasources'));
    expect((await test({ type: 'datasources', attributes: attrs }, view)).status).toBe(403);
    const id = await makeDatasource(key, PG_ATTRS);
    // Restricted to one datasource: may test that one's edits, not new settings.
    const restricted = await makeRawKey(org.organization.id, [{ permission: 'manage_datasources', resources: [{ type: 'datasources', id }] }]);
    expect((await test({ type: 'datasources', id, attributes: {} }, restricted)).status).toBe(200);
    expect((await test({ type: 'datasources', attributes: attrs }, restricted)).status).toBe(403);
    const other = await makeOrg('ds-test-settings-other');
    expect((await test({ type: 'datasources', id, attributes: {} }, await makeKey(other.organization.id))).status).toBe(404);
  });
});
