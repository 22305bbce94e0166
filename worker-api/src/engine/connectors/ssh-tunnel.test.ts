import { describe, expect, inject, it } from 'vitest';
import { authorizedKeysLine } from '@cairn/core/ssh-keys';
import { createMyDatabase, myQuery, sleep } from '../../../test/connectors-fixtures.ts';
import { MARIADB_ATTRS, PG_ATTRS, appCall, eventually, makeDatasource, roomForDatasources } from '../../../test/engine-fixtures.ts';
import { call, makeKey, makeOrg } from '../../../test/fixtures.ts';
import { dataServer } from '../../../test/dashboard-data-helpers.ts';

/**
 * SSH tunnels (connection_mode ssh_tunnel, ARCHITECTURE D51, D59) to the local Postgres and MariaDB through a real OpenSSH server that
 * vitest.sshd-setup.ts starts on a loopback port; the tests add the organization's key (read from
 * GET /organization) to its authorized_keys with the line the app shows. Run by vitest.sshd.ts.
 */
const sshd = inject('sshd');
const silentPort = inject('silentPort');

/** An organization with an API key and its public key, optionally authorized on the SSH server. */
async function orgWithKey(authorize: boolean) {
  const org = await makeOrg('ssh');
  const key = await makeKey(org.organization.id);
  await roomForDatasources(org.organization.id);
  const got = await call('/organization', { key });
  expect(got.status).toBe(200);
  const publicKey = got.json.data.attributes.ssh_public_key as string;
  if (authorize) {
    const res = await fetch(`http://127.0.0.1:${sshd.authorizePort}/authorize`, { method: 'POST', body: authorizedKeysLine(publicKey) });
    expect(res.status).toBe(200);
  }
  return { org, key, publicKey };
}

const tunnel = (over: Record<string, unknown> = {}) => ({
  ...PG_ATTRS,
  connection_mode: 'ssh_tunnel',
  ssh_tunnel_host: '127.0.0.1',
  ssh_tunnel_port: sshd.port,
  ssh_tunnel_user: sshd.user,
  ...over,
});

/** Runs a query and waits for its end. */
async function runToEnd(key: string, id: string, sql: string) {
  const started = await call(`/datasources/${id}/executions`, { key, method: 'POST', body: { sql_query: sql } });
  expect(started.status, JSON.stringify(started.json)).toBe(201);
  return eventually(async () => {
    const r = await call(`/executions/${started.json.execution_id}`, { key });
    return !['running', 'starting', 'waiting'].includes(r.json.execution_status) && r.json;
  });
}

async function testConnection(key: string, id: string) {
  const r = await appCall(`/datasources/${id}/test_connection`, { key, method: 'POST' });
  expect(r.status).toBe(200);
  return r.json as { status: string; error_message: string | null };
}

// Generous timeouts: each test makes organizations and runs through the API on a shared, busy machine.
describe.skipIf(sshd.port === 0)('SSH tunnels (real OpenSSH server)', { timeout: 120_000 }, () => {
  it('each organization has its own ed25519 key, made once and shown by GET /organization', async () => {
    const a = await orgWithKey(false);
    expect(a.publicKey).toMatch(new RegExp(`^ssh-ed25519 AAAAC3NzaC1lZDI1NTE5[A-Za-z0-9+/=]+ cairn-${a.org.organization.id}$`));
    const again = await call('/organization', { key: a.key });
    expect(again.json.data.attributes.ssh_public_key).toBe(a.publicKey);
    const b = await orgWithKey(false);
    expect(b.publicKey).not.toBe(a.publicKey);
  });

  it('test_connection, a query and the schema go through the tunnel to Postgres; another organization gets 404', async () => {
    const { key } = await orgWithKey(true);
    const id = await makeDatasource(key, tunnel());
    expect(await testConnection(key, id)).toMatchObject({ status: 'ok', error_message: null });
    const started = await call(`/datasources/${id}/executions`, { key, method: 'POST', body: { sql_query: "select 41 + 1 as answer, 'through ssh' as how" } });
    expect(started.status).toBe(201);
    const done = await eventually(async () => {
      const r = await call(`/executions/${started.json.execution_id}`, { key });
      return ['success', 'query_error', 'internal_error'].includes(r.json.execution_status) && r.json;
    });
    expect(done, done.error_message).toMatchObject({ execution_status: 'success', result_rows: 1, result_columns: 2 });
    // The database's own error comes back through the tunnel as a query error.
    const bad = await call(`/datasources/${id}/executions`, { key, method: 'POST', body: { sql_query: 'select * from no_such_table_here' } });
    const failed = await eventually(async () => {
      const r = await call(`/executions/${bad.json.execution_id}`, { key });
      return !['running', 'starting', 'waiting'].includes(r.json.execution_status) && r.json;
    });
    expect(failed).toMatchObject({ execution_status: 'query_error', error_message: expect.stringMatching(/no_such_table_here/) });
    const schema = await appCall(`/datasources/${id}/schema`, { key });
    expect(schema.status).toBe(200);
    const other = await orgWithKey(true);
    expect((await appCall(`/datasources/${id}/test_connection`, { key: other.key, method: 'POST' })).status).toBe(404);
  });

  it('MariaDB through the tunnel (mysql2 over the channel): test_connection, a read-only query, cancel-free errors and the schema', async () => {
    const my = await createMyDatabase();
    try {
      await myQuery(my.conn, 'create table items (id int primary key, name varchar(50), price decimal(8,2))');
      await myQuery(my.conn, "insert into items values (1, 'through ssh', 1.50), (2, 'b', 2.00)");
      const { key } = await orgWithKey(true);
      const id = await makeDatasource(key, tunnel({ ...MARIADB_ATTRS, password: null, database: my.name }));
      const test = await testConnection(key, id);
      expect(test, test.error_message ?? '').toMatchObject({ status: 'ok', error_message: null });
      const done = await runToEnd(key, id, 'select id, name, price from items order by id');
      expect(done, done.error_message).toMatchObject({ execution_status: 'success', result_rows: 2, result_columns: 3 });
      // The session is read-only through the tunnel as it is directly.
      const write = await runToEnd(key, id, "insert into items values (3, 'c', 3.00)");
      expect(write).toMatchObject({ execution_status: 'query_error', error_message: expect.stringMatching(/READ ONLY/i) });
      const bad = await runToEnd(key, id, 'select * from no_such_table_here');
      expect(bad).toMatchObject({ execution_status: 'query_error', error_message: expect.stringMatching(/no_such_table_here/) });
      const schema = await appCall(`/datasources/${id}/schema`, { key });
      expect(schema.status, JSON.stringify(schema.json)).toBe(200);
      const doc = await dataServer(`/schema/${schema.json.data_key}`, { headers: { authorization: `Data ${schema.json.data_access_token}` } });
      expect(doc.status).toBe(200);
      const body = (await doc.json()) as { schemas: { name: string; tables: { name: string }[] }[] };
      expect(body.schemas.map((x) => [x.name, x.tables.map((t) => t.name)])).toEqual([[my.name, ['items']]]);
      // A MariaDB port that is closed behind the SSH server: the channel error, named.
      const closed = await testConnection(key, await makeDatasource(key, tunnel({ ...MARIADB_ATTRS, password: null, port: sshd.closedPort })));
      expect(closed).toMatchObject({
        status: 'error',
        error_message: expect.stringMatching(new RegExp(`is open, but 127\\.0\\.0\\.1:${sshd.closedPort} could not be reached`)),
      });
    } finally {
      await my.drop().catch(() => {});
    }
  });

  it('a key the SSH server does not know: a clear error naming the login and the fix', async () => {
    const { key } = await orgWithKey(false);
    const id = await makeDatasource(key, tunnel());
    const r = await testConnection(key, id);
    expect(r.status).toBe('error');
    expect(r.error_message).toMatch(new RegExp(`refused the login as "${sshd.user}" with this organization's SSH key.*authorized_keys`));
    const started = await call(`/datasources/${id}/executions`, { key, method: 'POST', body: { sql_query: 'select 1' } });
    const failed = await eventually(async () => {
      const e = await call(`/executions/${started.json.execution_id}`, { key });
      return !['running', 'starting', 'waiting'].includes(e.json.execution_status) && e.json;
    });
    // A datasource that cannot be reached ends as internal_error with the message (engine/run.ts failureOf).
    expect(failed).toMatchObject({ execution_status: 'internal_error', error_message: expect.stringMatching(/refused the login/) });
  });

  it('a closed SSH port, an unknown host, a silent peer and a closed database port each end as a clear error', async () => {
    const { key } = await orgWithKey(true);
    const closedPort = sshd.closedPort;
    const closed = await testConnection(key, await makeDatasource(key, tunnel({ ssh_tunnel_port: closedPort })));
    expect(closed).toMatchObject({
      status: 'error',
      error_message: expect.stringMatching(new RegExp(`Could not open the SSH tunnel to the SSH server 127\\.0\\.0\\.1:${closedPort}`)),
    });
    const unknown = await testConnection(key, await makeDatasource(key, tunnel({ ssh_tunnel_host: 'no-such-host.invalid' })));
    expect(unknown).toMatchObject({ status: 'error', error_message: expect.stringMatching(/no-such-host\.invalid/) });
    const silent = await testConnection(key, await makeDatasource(key, tunnel({ ssh_tunnel_port: silentPort })));
    expect(silent).toMatchObject({
      status: 'error',
      error_message: expect.stringMatching(/SSH server 127\.0\.0\.1:\d+ did not complete the login within 7 s/),
    });
    const noDb = await testConnection(key, await makeDatasource(key, tunnel({ port: closedPort })));
    expect(noDb).toMatchObject({
      status: 'error',
      error_message: expect.stringMatching(
        new RegExp(`tunnel through the SSH server .* is open, but 127\\.0\\.0\\.1:${closedPort} could not be reached from there`),
      ),
    });
  }, 180_000);

  it('require_ssl through a tunnel is refused plainly (TLS is not negotiated inside the channel)', async () => {
    const { key } = await orgWithKey(true);
    const id = await makeDatasource(key, tunnel({ require_ssl: true }));
    expect(await testConnection(key, id)).toMatchObject({
      status: 'error',
      error_message: expect.stringMatching(/requires SSL, which is not available through an SSH tunnel/),
    });
  });
});

it.runIf(sshd.port === 0)('SSH tunnel tests skipped (CAIRN_SKIP_SSHD=1)', async () => {
  await sleep(0);
});

declare module 'vitest' {
  export interface ProvidedContext {
    /** The OpenSSH server vitest.sshd-setup.ts started (port 0: skipped) and where to authorize a key. */
    sshd: { port: number; user: string; authorizePort: number; closedPort: number };
  }
}
