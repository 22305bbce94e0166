/**
 * Issue 17, SSH tunnels on the running stack (`npm start`'s or `npm test`'s): a real OpenSSH server
 * (scripts/lib/sshd-server.ts, the harness the worker-api sshd suite uses) on a loopback port, the
 * organization's public key from GET /organization pasted into its authorized_keys as the app shows it,
 * and an ssh_tunnel datasource to the local PostgreSQL (and MariaDB, when it listens on 3306) whose query
 * runs through the tunnel into an ordinary result. The API worker speaks SSH from workerd (D51).
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizedKeysLine } from '@cairn/core/ssh-keys';
import { startSshd, type SshdServer } from '../scripts/lib/sshd-server.ts';
import { apiFetch } from './harness.ts';

const attrs = (doc: any) => doc?.data?.attributes ?? doc;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const UNFINISHED = ['starting', 'running', 'waiting', 'scheduled'];
const skip = process.env.CAIRN_SKIP_SSHD === '1';

const mariadbUp = await new Promise<boolean>((ok) => {
  const s = connect(3306, '127.0.0.1', () => (s.end(), ok(true)));
  s.on('error', () => ok(false));
});

let sshd: SshdServer;
const made: string[] = [];

beforeAll(async () => {
  if (skip) return;
  sshd = await startSshd();
  const org = await apiFetch('/organization');
  expect(org.status, org.text).toBe(200);
  sshd.authorize(authorizedKeysLine(attrs(org.body).ssh_public_key));
});

afterAll(async () => {
  for (const id of made) await apiFetch(`/datasources/${id}`, { method: 'DELETE' });
  await sshd?.stop();
});

async function tunnelled(name: string, over: Record<string, unknown>): Promise<string> {
  const res = await apiFetch('/datasources', {
    method: 'POST',
    body: {
      data: {
        type: 'datasources',
        attributes: {
          name: `${name} ${Date.now()}`,
          connection_mode: 'ssh_tunnel',
          host: '127.0.0.1',
          ssh_tunnel_host: '127.0.0.1',
          ssh_tunnel_port: sshd.port,
          ssh_tunnel_user: sshd.user,
          ...over,
        },
      },
    },
  });
  expect(res.status, res.text).toBe(201);
  made.push((res.body as any).data.id);
  return (res.body as any).data.id;
}

async function runQuery(datasource: string, sql: string) {
  const res = await apiFetch(`/datasources/${datasource}/executions`, {
    method: 'POST',
    body: { sql_query: sql },
    headers: { 'content-type': 'application/json' },
  });
  expect(res.status, res.text).toBe(201);
  const id = attrs(res.body).execution_id;
  const t0 = Date.now();
  for (;;) {
    const got = attrs((await apiFetch(`/executions/${id}`)).body);
    if (!UNFINISHED.includes(got.execution_status)) {
      if (got.execution_status !== 'success') return { done: got, rows: null };
      const handle = await apiFetch(`/executions/${id}/data`);
      const { data_url, data_access_token } = handle.body as { data_url: string; data_access_token: string };
      const data = await fetch(data_url, { headers: { authorization: `Data ${data_access_token}` } });
      return { done: got, rows: ((await data.json()) as { rows: unknown[][] }).rows };
    }
    if (Date.now() - t0 > 30_000) throw new Error(`execution ${id} still ${got.execution_status} after 30 s`);
    await sleep(200);
  }
}

describe.skipIf(skip)('an SSH tunnel on the running stack (real sshd)', () => {
  it('runs a Postgres query through the tunnel and answers test_connection', async () => {
    const ds = await tunnelled('tunnel pg', { database_type: 'postgres', port: 5432, username: 'postgres', password: 'postgres', database: 'postgres' });
    const test = await apiFetch(`/datasources/${ds}/test_connection`, { method: 'POST' });
    expect(test.body, test.text).toMatchObject({ status: 'ok', error_message: null });
    const { done, rows } = await runQuery(ds, "select 41 + 1 as answer, 'through ssh' as how");
    expect(done.execution_status, done.error_message).toBe('success');
    expect(rows).toEqual([[42, 'through ssh']]);
    // The SSH server logged the organization's key in (its own log, not Cairn's word for it).
    expect(sshd.tail.join('\n')).toMatch(/Accepted publickey for/);
  });

  it.skipIf(!mariadbUp)('runs a MariaDB query through the tunnel', async () => {
    const ds = await tunnelled('tunnel mariadb', { database_type: 'mariadb', port: 3306, username: 'root' });
    const { done, rows } = await runQuery(ds, "select 7 as n, 'seven' as s");
    expect(done.execution_status, done.error_message).toBe('success');
    expect(rows).toEqual([[7, 'seven']]);
  });
});
