import { beforeAll, describe, expect, it } from 'vitest';
import { env, SELF } from 'cloudflare:test';
import { createDb } from '@cairn/db';
import { executions, organizations, resultChunks, results } from '@cairn/db';
import { makeDataKey, newId, signDataToken } from '@cairn/core';

const { db } = createDb(env.HYPERDRIVE.connectionString, { max: 2 });
const org = newId('organization');
const exe = newId('execution');
const key = makeDataKey('eu', org, exe, '0123456789abcdef');
const enc = new TextEncoder();

beforeAll(async () => {
  const expires = new Date(Date.now() + 3_600_000);
  await db.insert(organizations).values({ id: org, name: 'data server test' });
  await db.insert(executions).values({
    id: exe, organization_id: org, execution_type: 'sql_query', execution_status: 'success', sql_query: 'select 1', expires_at: expires,
  });
  await db.insert(results).values({
    execution_id: exe, organization_id: org, data_key: key, row_count: 3, size_in_bytes: 30, time_zone: 'UTC',
    data_timestamp: new Date('2026-01-02T03:04:05Z'), expires_at: expires,
    fields: [{ idx: 0, name: 'n', data_type: 'Integer', unique_count: 3, human_name: 'N', min_value: 1, max_value: 3, group_by: false },
      { idx: 1, name: 's', data_type: 'String', unique_count: 3, human_name: 'S', min_value: 'a', max_value: 'c', group_by: true }],
  });
  await db.insert(resultChunks).values([
    { execution_id: exe, seq: 0, rows: 2, data: enc.encode('[1,"a"],[2,"b"]') },
    { execution_id: exe, seq: 1, rows: 1, data: enc.encode('[3,"c"]') },
  ]);
});

const token = (over: Partial<Parameters<typeof signDataToken>[0]> = {}, secret = env.DATA_TOKEN_SECRET) =>
  signDataToken({ kind: 'data', org, key, region: 'eu', ...over }, secret);
const get = (path: string, auth?: string) =>
  SELF.fetch(`https://data.test${path}`, { headers: auth ? { authorization: auth } : {} });

describe('GET /data/{dataKey}', () => {
  it('streams the stored result as one JSON document', async () => {
    const res = await get(`/data/${key}`, `Data ${await token()}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    const body = (await res.json()) as any;
    expect(body.rows).toEqual([[1, 'a'], [2, 'b'], [3, 'c']]);
    expect(body.fields.map((f: any) => f.name)).toEqual(['n', 's']);
    expect(body).toMatchObject({ execution_id: exe, data_timestamp: '2026-01-02T03:04:05.000Z', size_in_bytes: 30, time_zone: 'UTC' });
  });

  it('401 without a token or with another scheme', async () => {
    for (const auth of [undefined, `Api ${await token()}`]) {
      const res = await get(`/data/${key}`, auth);
      expect(res.status).toBe(401);
      expect(((await res.json()) as any).errors[0].code).toBe('unauthorized');
    }
  });

  it('401 for a forged, expired or other-key token', async () => {
    const cases: [string, string][] = [
      [await token({}, 'not-the-secret'), 'invalid_data_token'],
      [await token({ exp: Math.floor(Date.now() / 1000) - 1 }), 'data_token_expired'],
      [await token({ key: makeDataKey('eu', org, exe, 'ffffffffffffffff') }), 'invalid_data_token'],
      [await token({ kind: 'process' }), 'invalid_data_token'],
      ['garbage', 'invalid_data_token'],
      ['bnVsbA.c2ln', 'invalid_data_token'],
    ];
    for (const [t, code] of cases) {
      const res = await get(`/data/${key}`, `Data ${t}`);
      expect(res.status, code).toBe(401);
      expect(((await res.json()) as any).errors[0].code).toBe(code);
    }
  });

  it('403 for a token issued by the other region', async () => {
    const res = await get(`/data/${key}`, `Data ${await token({ region: 'us' }, 'the-us-secret')}`);
    expect(res.status).toBe(403);
    const body = (await res.json()) as any;
    expect(body.errors[0].code).toBe('wrong_region');
    expect(body.errors[0].detail).toContain('"us"');
  });

  it('404 once the result is gone, even with a valid token', async () => {
    const gone = makeDataKey('eu', org, newId('execution'), 'aaaaaaaaaaaaaaaa');
    const res = await get(`/data/${gone}`, `Data ${await token({ key: gone })}`);
    expect(res.status).toBe(404);
  });

  it('a token of another organization cannot read this result', async () => {
    const res = await get(`/data/${key}`, `Data ${await token({ org: newId('organization') })}`);
    expect(res.status).toBe(404);
  });

  it('health answers without auth', async () => {
    const res = await get('/health');
    expect(await res.json()).toMatchObject({ ok: true, service: 'cairn-data', region: 'eu' });
  });
});
