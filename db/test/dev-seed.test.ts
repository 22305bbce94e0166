import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseApiKey, PERMISSIONS, sha256Hex, verifyPassword } from '@cairn/core';
import { ensureDevSeed } from '../src/seed.ts';
import { sampleDatabaseUrl } from '../src/sample-shop/setup.ts';
import { createTestDatabase, runAsSampleReader, type TestDatabase } from './helpers.ts';

let tdb: TestDatabase;
let sql: postgres.Sql;
let dir: string;

beforeAll(async () => {
  tdb = await createTestDatabase({ migrate: false });
  sql = postgres(tdb.url, { max: 2, onnotice: () => {} });
  dir = mkdtempSync(join(tmpdir(), 'cairn-dev-seed-'));
});
afterAll(async () => {
  await sql?.end({ timeout: 5 });
  await tdb?.drop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function counts() {
  const [row] = await sql`
    select (select count(*)::int from organizations) as orgs, (select count(*)::int from users) as users,
           (select count(*)::int from api_keys) as keys, (select count(*)::int from dashboards) as dashboards,
           (select count(*)::int from audit_log) as audit`;
  return row!;
}

describe('ensureDevSeed', () => {
  const creds = () => join(dir, 'nested', 'dev.json');

  it('migrates, loads the sample shop and creates the demo organization on an empty database', async () => {
    const first = await ensureDevSeed(tdb.url, creds());
    expect(first.created).toBe(true);
    expect(first.admin.email).toBe('admin@cairn.local');
    const file = JSON.parse(readFileSync(creds(), 'utf8'));
    expect(file).toEqual({ organization_id: first.organization_id, admin: first.admin, api_key: first.api_key });

    const [org] = await sql`select name from organizations where id = ${first.organization_id}`;
    expect(org!.name).toBe('Cairn Demo');
    const [user] = await sql`select password_hash from users where lower(email) = 'admin@cairn.local'`;
    expect(await verifyPassword(first.admin.password, user!.password_hash)).toBe(true);
    const parsed = parseApiKey(first.api_key)!;
    const [key] = await sql`select secret_hash, permissions from api_keys where key_id = ${parsed.keyId}`;
    expect(key!.secret_hash).toBe(await sha256Hex(parsed.secret));
    expect(key!.permissions.map((g: { permission: string }) => g.permission).sort()).toEqual([...PERMISSIONS].sort());
    // The shop is in the sample database next to it, not in the metadata database (D32).
    expect(first.sample_database_url).toBe(sampleDatabaseUrl(tdb.url));
    const [inMeta] = await sql`select to_regclass('sample_shop.meta')::text as rel`;
    expect(inMeta!.rel).toBeNull();
    const [meta] = await runAsSampleReader(first.sample_database_url, `select value from meta where key = 'version'`);
    expect(meta!.value).toBe('1');
  });

  it('creates nothing the second time and returns the same credentials', async () => {
    const before = await counts();
    const saved = readFileSync(creds(), 'utf8');
    const second = await ensureDevSeed(tdb.url, creds());
    expect(second.created).toBe(false);
    expect(JSON.parse(saved)).toMatchObject({ organization_id: second.organization_id, api_key: second.api_key, admin: second.admin });
    expect(readFileSync(creds(), 'utf8')).toBe(saved);
    expect(await counts()).toEqual(before);
  });

  it('keeps the other keys of the credentials file and replaces a key that was disabled', async () => {
    const current = JSON.parse(readFileSync(creds(), 'utf8'));
    writeFileSync(creds(), JSON.stringify({ docs: 'http://127.0.0.1:8780/', ...current }));
    await sql`update api_keys set enabled = false`;
    const third = await ensureDevSeed(tdb.url, creds());
    expect(third.created).toBe(true);
    expect(third.organization_id).toBe(current.organization_id);
    expect(third.api_key).not.toBe(current.api_key);
    const file = JSON.parse(readFileSync(creds(), 'utf8'));
    expect(file).toMatchObject({ docs: 'http://127.0.0.1:8780/', api_key: third.api_key });
  });

  it('creates a new demo organization when the saved one is gone', async () => {
    const current = JSON.parse(readFileSync(creds(), 'utf8'));
    await sql`delete from organizations where id = ${current.organization_id}`;
    const fourth = await ensureDevSeed(tdb.url, creds());
    expect(fourth.created).toBe(true);
    expect(fourth.organization_id).not.toBe(current.organization_id);
    expect((await counts()).orgs).toBe(1);
  });

  it('refuses a credentials file that is not JSON', async () => {
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, 'not json');
    await expect(ensureDevSeed(tdb.url, bad)).rejects.toThrow(/not a JSON object/);
  });
});
