import { beforeAll, describe, expect, it } from 'vitest';
import { newId } from '@cairn/core';
import { dataToken, enc, errorOf, get, makeOrg, storeResult } from './fixtures.ts';

/** The schema document as the API stores it (see src/routes/schema.ts), split over two chunks. */
const DOC = {
  schemas: [
    {
      name: 'public',
      tables: [
        {
          name: 'orders',
          columns: [
            { name: 'id', db_type: 'int8', data_type: 'BigInt' },
            { name: 'created_at', db_type: 'timestamptz', data_type: 'DateTime' },
          ],
        },
      ],
    },
    { name: 'sample_shop', tables: [{ name: 'customers', columns: [{ name: 'country', db_type: 'text', data_type: 'String' }] }] },
    { name: 'größen_😀', tables: [] },
  ],
  schema_updated_at: '2026-01-02T03:04:05Z',
};

let org: string;
let key: string;

beforeAll(async () => {
  org = await makeOrg('schema');
  // Cut inside the emoji's UTF-8 bytes, as a writer cutting at fixed byte offsets may.
  const bytes = enc.encode(JSON.stringify(DOC));
  const emoji = bytes.indexOf(0xf0);
  ({ key } = await storeResult(org, [], [[], []], { raw: [bytes.slice(0, emoji + 2), bytes.slice(emoji + 2)] }));
});

const token = (over: Partial<Parameters<typeof dataToken>[0]> = {}) => dataToken({ org, key, kind: 'schema', ...over });

describe('GET /schema/{dataKey}', () => {
  it('returns the whole stored schema document', async () => {
    const res = await get(`/schema/${key}`, `Data ${await token()}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await res.json()).toEqual(DOC);
  });

  it("one schema by the token's name or the name parameter", async () => {
    const byClaim = await get(`/schema/${key}`, `Data ${await token({ name: 'sample_shop' })}`);
    expect(await byClaim.json()).toEqual({ ...DOC, schemas: [DOC.schemas[1]] });
    const byQuery = await get(`/schema/${key}?name=public`, `Data ${await token()}`);
    expect(await byQuery.json()).toEqual({ ...DOC, schemas: [DOC.schemas[0]] });
    const same = await get(`/schema/${key}?name=public`, `Data ${await token({ name: 'public' })}`);
    expect(same.status).toBe(200);
    const unicode = await get(`/schema/${key}?name=${encodeURIComponent('größen_😀')}`, `Data ${await token()}`);
    expect(((await unicode.json()) as any).schemas).toEqual([DOC.schemas[2]]);
  });

  it('404 for an unknown schema name; 400 when the parameter contradicts the token', async () => {
    const res = await get(`/schema/${key}?name=nope`, `Data ${await token()}`);
    expect(res.status).toBe(404);
    expect((await errorOf(res)).detail).toContain('"nope"');
    const other = await get(`/schema/${key}?name=public`, `Data ${await token({ name: 'sample_shop' })}`);
    expect(other.status).toBe(400);
    expect((await errorOf(other)).code).toBe('invalid_query_parameter');
  });

  it('takes schema tokens only, for this key, organization and region', async () => {
    const cases: [string, number, string][] = [
      [await dataToken({ org, key }), 401, 'invalid_data_token'],
      [await token({ key: key.replace(/\/[^/]+$/, '/cccccccccccccccc') }), 401, 'invalid_data_token'],
      [await token({ region: 'us' }), 403, 'wrong_region'],
      [await token({ exp: 1 }), 401, 'data_token_expired'],
    ];
    for (const [t, status, code] of cases) {
      const res = await get(`/schema/${key}`, `Data ${t}`);
      expect(res.status, code).toBe(status);
      expect((await errorOf(res)).code).toBe(code);
    }
    expect((await get(`/schema/${key}`, `Data ${await token({ org: newId('organization') })}`)).status).toBe(404);
    expect((await get(`/schema/${key}`)).status).toBe(401);
  });
});
