import { beforeAll, describe, expect, inject, it } from 'vitest';
import { env } from 'cloudflare:test';
import { eq } from 'drizzle-orm';
import { datasources } from '@cairn/db';
import { newId } from '@cairn/core';
import { call, db, jsonApi, makeKey, makeOrg } from '../../../test/fixtures.ts';
import { appCall, roomForDatasources } from '../../../test/engine-fixtures.ts';
import { collect, myConnector, pgClient, pgConnector } from '../../../test/connectors-fixtures.ts';
import { dialAddress, literalRefusal, resolvedRefusal, sameDatabase, serverIdentity, type Resolver } from '../../engine/connectors/target-guard.ts';
import type { CreateOrganizationResult } from '@cairn/db/seed/organization';

/**
 * Issue 14: no datasource reaches Cairn's own metadata database (the test run's database on
 * 127.0.0.1:5432; the same server's `postgres` database stays allowed), private networks are refused
 * where BLOCK_PRIVATE_NETWORKS is on, and a connection test is answered within a bounded time even
 * when the peer never speaks the protocol (peers from vitest.peers.ts).
 */

declare module 'vitest' {
  export interface ProvidedContext {
    silentPort: number;
    httpPort: number;
  }
}

let org: CreateOrganizationResult;
let key: string;
/** The test run's metadata database (the Hyperdrive binding's origin). */
const own = env.HYPERDRIVE.database;

const pg = (attributes: Record<string, unknown>) => ({
  type: 'datasources',
  attributes: {
    name: `PG ${crypto.randomUUID().slice(0, 8)}`,
    database_type: 'postgres',
    connection_mode: 'direct',
    username: 'postgres',
    password: 'postgres',
    ...attributes,
  },
});

/** A datasource row written directly, as one made before these rules (or through an alias only the server reveals) would be. */
async function insertDatasource(attributes: Partial<typeof datasources.$inferInsert>): Promise<string> {
  const id = newId('datasource');
  await db()
    .insert(datasources)
    .values({
      id,
      organization_id: org.organization.id,
      name: `Raw ${id.slice(-6)}`,
      database_type: 'postgres',
      connection_mode: 'direct',
      host: '127.0.0.1',
      port: 5432,
      username: 'postgres',
      ...attributes,
    } as typeof datasources.$inferInsert);
  return id;
}

async function waitFor(id: string, ms = 20_000) {
  const until = Date.now() + ms;
  for (;;) {
    const res = await call(`/executions/${id}`, { key });
    if (!['starting', 'running', 'waiting', 'scheduled'].includes(res.json.execution_status) || Date.now() > until) return res.json;
    await new Promise((r) => setTimeout(r, 100));
  }
}

beforeAll(async () => {
  org = await makeOrg('targets');
  key = await makeKey(org.organization.id);
  await roomForDatasources(org.organization.id);
});

describe('addresses under BLOCK_PRIVATE_NETWORKS', () => {
  it('refuses loopback, private, link-local, CGNAT and unique-local addresses in every spelling', () => {
    const refused = [
      '127.0.0.1',
      '127.1',
      '0x7f.1',
      '0x7f000001',
      '2130706433',
      '0177.0.0.1',
      '127.0.0.1.',
      'localhost',
      'LOCALHOST.',
      'db.localhost',
      '::1',
      '[::1]',
      '[::ffff:127.0.0.1]',
      '::ffff:7f00:1',
      '64:ff9b::7f00:1',
      '0.0.0.0',
      '::',
      '10.1.2.3',
      '172.16.5.4',
      '192.168.0.10',
      '169.254.169.254',
      '100.64.0.1',
      'fd00::1',
      'fe80::1%eth0',
      '224.0.0.1',
    ];
    for (const host of refused) expect(literalRefusal(host), host).toMatch(/BLOCK_PRIVATE_NETWORKS/);
    for (const host of ['8.8.8.8', '2606:4700:4700::1111', 'db.example.com', '172.32.0.1']) expect(literalRefusal(host), host).toBeNull();
    expect(literalRefusal('0x7f.1')).toContain('127.0.0.1');
  });

  it('resolves names before deciding', async () => {
    const resolver = async (name: string) => ({ 'inside.example.com': ['93.184.216.34', '10.0.0.7'], 'outside.example.com': ['93.184.216.34'] })[name] ?? [];
    expect(await resolvedRefusal('inside.example.com', resolver)).toMatch(/10\.0\.0\.7/);
    expect(await resolvedRefusal('outside.example.com', resolver)).toBeNull();
    expect(await resolvedRefusal('0x0a.1', resolver)).toMatch(/10\.0\.0\.1/);
  });

  it('refuses them on create, update and at connection time when the operator turns it on', async () => {
    const blocking = { ...env, BLOCK_PRIVATE_NETWORKS: '1' };
    const post = (data: unknown) => appCall('/datasources', { key, method: 'POST', body: { data }, contentType: 'application/vnd.api+json' }, blocking);
    for (const host of ['10.0.0.5', '0x7f.1', '::ffff:127.0.0.1', 'localhost']) {
      const res = await post(pg({ host, database: 'postgres' }));
      expect(res.status, host).toBe(422);
      expect(res.json.errors[0]).toMatchObject({
        code: 'invalid_attribute',
        source: { pointer: '/data/attributes/host' },
        meta: { refused: 'private_network' },
      });
    }
    const tunnel = await post(pg({ host: 'db.example.com', connection_mode: 'ssh_tunnel', ssh_tunnel_host: '192.168.1.1', ssh_tunnel_user: 'u' }));
    expect(tunnel.status).toBe(422);
    expect(tunnel.json.errors[0].source.pointer).toBe('/data/attributes/ssh_tunnel_host');
    expect((await post(pg({ host: '93.184.216.34', database: 'shop' }))).status).toBe(201);

    // Made while the setting was off: refused when used, as a 422 naming the rule, without connecting.
    const id = await insertDatasource({ database: 'postgres' });
    const tested = await appCall(`/datasources/${id}/test_connection`, { key, method: 'POST' }, blocking);
    expect(tested.status).toBe(422);
    expect(tested.json.errors[0]).toMatchObject({ code: 'invalid_state', meta: { refused: 'private_network' } });
    expect(tested.json.errors[0].detail).toMatch(/127\.0\.0\.1 is a loopback address/);
    const run = await appCall(`/datasources/${id}/executions`, { key, method: 'POST', body: { sql_query: 'select 1' } }, blocking);
    expect(run.status).toBe(422);
    // Off (the local stack, these tests): the same datasource connects.
    const open = await call(`/datasources/${id}/test_connection`, { key, method: 'POST' });
    expect(open.json.data?.attributes ?? open.json).toMatchObject({ status: 'ok' });
  });
});

describe('DNS rebinding under BLOCK_PRIVATE_NETWORKS', () => {
  /** A name server that answers a public address first and loopback afterwards, counting its lookups. */
  function rebinding(): Resolver & { lookups: number } {
    const r = Object.assign(
      async (name: string) => {
        r.lookups++;
        return name.startsWith('rebind') ? (r.lookups === 1 ? ['93.184.216.34'] : ['127.0.0.1']) : [];
      },
      { lookups: 0 },
    );
    return r;
  }

  it('connects to the address that was checked: the next answer of the name server is never asked for', async () => {
    const resolve = rebinding();
    const policy = { blockPrivate: true, resolve };
    const name = `rebind-${crypto.randomUUID().slice(0, 8)}.example.com`;
    expect(await dialAddress(policy, name)).toBe('93.184.216.34');
    // A second connection (another run, a connection test) within the minute: the same checked address, no lookup.
    expect(await dialAddress(policy, name)).toBe('93.184.216.34');
    expect(await resolvedRefusal(name, resolve)).toBeNull();
    expect(resolve.lookups).toBe(1);
    // Asked afresh (another resolver: as after the minute), loopback is refused, not dialled.
    await expect(dialAddress({ blockPrivate: true, resolve: rebinding() }, name)).resolves.toBe('93.184.216.34');
    const late = rebinding();
    late.lookups = 1;
    await expect(dialAddress({ blockPrivate: true, resolve: late }, `${name}.`)).rejects.toMatchObject({
      kind: 'refused',
      message: expect.stringMatching(/127\.0\.0\.1/),
    });
  });

  it('refuses a name without addresses when connecting, dials literals as they were read, and looks nothing up when off', async () => {
    const resolve = rebinding();
    await expect(dialAddress({ blockPrivate: true, resolve }, 'nowhere.example.com')).rejects.toMatchObject({
      kind: 'refused',
      message: expect.stringMatching(/could not be resolved/),
    });
    await expect(dialAddress({ blockPrivate: true, resolve }, '0x7f.1')).rejects.toMatchObject({ kind: 'refused' });
    expect(await dialAddress({ blockPrivate: true, resolve }, '[2606:4700:4700::1111]')).toBe('2606:4700:4700::1111');
    expect(await dialAddress({ blockPrivate: true, resolve }, '1572395042')).toBe('93.184.216.34');
    // Every address is checked; an IPv4 one is dialled when there is one.
    const both = async () => ['2606:4700:4700::1111', '93.184.216.34'];
    expect(await dialAddress({ blockPrivate: true, resolve: both }, 'both.example.com')).toBe('93.184.216.34');
    expect(await dialAddress({ blockPrivate: true, resolve: async () => ['2606:4700:4700::1111'] }, 'six.example.com')).toBe('2606:4700:4700::1111');
    // A runtime without a resolver: the name, judged on its text (as before).
    expect(await dialAddress({ blockPrivate: true, resolve: async () => null }, 'db.example.com')).toBe('db.example.com');
    const before = resolve.lookups;
    expect(await dialAddress({ blockPrivate: false, resolve }, 'rebind.example.com')).toBe('rebind.example.com');
    expect(resolve.lookups).toBe(before);
  });

  it('Postgres and MySQL connectors dial the checked address, not the name', async () => {
    // The name does not resolve anywhere: only the address can have been dialled.
    const pg = await collect(pgConnector({ host: 'pinned.invalid', address: '127.0.0.1', database: 'postgres' }), 'select 1 as one');
    expect(pg.rows).toEqual([[1]]);
    const my = await collect(myConnector({ host: 'pinned.invalid', address: '127.0.0.1' }), 'select 1 as one');
    expect(my.rows).toEqual([[1]]);
    const byName = await pgConnector({ host: 'pinned.invalid', database: 'postgres' }).testConnection();
    expect(byName.status).toBe('error');
  }, 30_000);
});

describe("Cairn's own metadata database", () => {
  it('is refused on create in its plain spellings; other databases of the same server are not', async () => {
    for (const host of ['127.0.0.1', 'localhost', '::1', '0x7f.1']) {
      const res = await jsonApi('/datasources', 'POST', pg({ host, port: 5432, database: own }), key);
      expect(res.status, host).toBe(422);
      expect(res.json.errors[0]).toMatchObject({
        code: 'invalid_attribute',
        source: { pointer: '/data/attributes/database' },
        meta: { refused: 'metadata_database' },
      });
      expect(res.json.errors[0].detail).toMatch(/Cairn's own metadata database/);
    }
    // No database: Postgres takes the user's name.
    expect((await jsonApi('/datasources', 'POST', pg({ host: '127.0.0.1', username: own, database: null }), key)).status).toBe(422);
    const ok = await jsonApi('/datasources', 'POST', pg({ host: '127.0.0.1', port: 5432, database: 'postgres' }), key);
    expect(ok.status).toBe(201);
    const tested = await call(`/datasources/${ok.json.data.id}/test_connection`, { key, method: 'POST' });
    expect(tested.status).toBe(200);
    expect(JSON.stringify(tested.json)).toContain('"status":"ok"');

    const moved = await jsonApi(`/datasources/${ok.json.data.id}`, 'PATCH', { type: 'datasources', id: ok.json.data.id, attributes: { database: own } }, key);
    expect(moved.status).toBe(422);
    expect(moved.json.errors[0].meta).toMatchObject({ refused: 'metadata_database' });
    const [row] = await db().select().from(datasources).where(eq(datasources.id, ok.json.data.id));
    expect(row!.database).toBe('postgres');
  });

  it('is refused when connecting, whatever the address says (test_connection, runs, schema reads)', async () => {
    const id = await insertDatasource({ database: own, password_encrypted: null });
    const tested = await call(`/datasources/${id}/test_connection`, { key, method: 'POST' });
    expect(tested.status).toBe(422);
    expect(tested.json.errors[0]).toMatchObject({ code: 'invalid_state', meta: { refused: 'metadata_database' } });

    const started = await call(`/datasources/${id}/executions`, { key, method: 'POST', body: { sql_query: 'select email, password_hash from users' } });
    expect(started.status).toBe(201);
    const done = await waitFor(started.json.data?.attributes?.execution_id ?? started.json.data?.id ?? started.json.execution_id);
    expect(done.data?.attributes ?? done).toMatchObject({ execution_status: 'query_error' });
    expect(JSON.stringify(done)).toMatch(/Cairn's own metadata database/);
    expect(JSON.stringify(done)).not.toMatch(/password_hash|@example/);

    const schema = await call(`/datasources/${id}/schema`, { key });
    expect(schema.status).toBe(422);
    expect(JSON.stringify(schema.json)).toMatch(/Cairn's own metadata database/);
  });

  it('is told apart by what the server says about itself', async () => {
    const ask = (database: string) => (text: string) => pgClient(database).unsafe(text) as Promise<Record<string, unknown>[]>;
    const mine = await serverIdentity(ask(own));
    const other = await serverIdentity(ask('postgres'));
    expect(mine.database).toBe(own);
    expect(mine.system).toMatch(/^\d+$/);
    expect(sameDatabase(mine, await serverIdentity(ask(own)))).toBe(true);
    expect(sameDatabase(mine, other)).toBe(false);
    // Without the control data (revoked on some managed servers) the start time still tells servers apart.
    expect(sameDatabase({ ...mine, system: null }, { ...mine, system: null })).toBe(true);
    expect(sameDatabase({ ...mine, system: null }, { ...mine, system: null, started: '2001-01-01 00:00:00+00' })).toBe(false);
  });
});

describe('connection tests are bounded', () => {
  it('answers within 10 s with a clear error when the peer never speaks the protocol', async () => {
    const ports = { silent: inject('silentPort'), http: inject('httpPort') };
    const ids = {
      pgSilent: await insertDatasource({ port: ports.silent, database: 'postgres' }),
      pgHttp: await insertDatasource({ port: ports.http, database: 'postgres' }),
      mysqlSilent: await insertDatasource({ database_type: 'mysql', port: ports.silent, username: 'root' }),
    };
    const t0 = Date.now();
    const answers = await Promise.all(Object.values(ids).map((id) => call(`/datasources/${id}/test_connection`, { key, method: 'POST' })));
    const took = Date.now() - t0;
    expect(took).toBeLessThan(14_000);
    for (const a of answers) {
      expect(a.status).toBe(200);
      const body = a.json.data?.attributes ?? a.json;
      expect(body.status).toBe('error');
      expect(body.error_message).toMatch(/Could not connect to 127\.0\.0\.1:\d+/);
    }
    expect(JSON.stringify(answers)).toMatch(/no answer within 10 s/);
  }, 60_000);
});
