import { beforeAll, describe, expect, it } from 'vitest';
import { dataToken, errorOf, field, get, makeOrg, storeResult } from './fixtures.ts';

let org: string;
let key: string;
const FIELDS = [field(0, 'n', 'Integer'), field(1, 's', 'String')];
// Rows 0..11 in three chunks of 4, 3 and 5 rows (strings with commas, brackets and quotes inside).
const row = (n: number) => [n, n % 2 ? `odd, [${n}] "q"` : `even ${n}`];
const CHUNKS = [
  [0, 1, 2, 3],
  [4, 5, 6],
  [7, 8, 9, 10, 11],
].map((c) => c.map(row));

beforeAll(async () => {
  org = await makeOrg('paging');
  ({ key } = await storeResult(org, FIELDS, CHUNKS));
});

const page = async (query: string, over: Partial<Parameters<typeof dataToken>[0]> = {}) =>
  get(`/data/${key}?${query}`, `Data ${await dataToken({ org, key, ...over })}`);
const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => row(from + i));

describe('GET /data/{dataKey} with offset and limit', () => {
  it('first page: the rows of the first chunk only, the total row count and the page', async () => {
    const res = await page('offset=0&limit=3');
    expect(res.status).toBe(200);
    const body = (await res.json()) as any;
    expect(body.rows).toEqual(range(0, 3));
    expect(body).toMatchObject({ offset: 0, limit: 3, row_count: 12, time_zone: 'UTC' });
    expect(body.fields.map((f: any) => f.name)).toEqual(['n', 's']);
  });

  it('a page spanning two chunks is cut at row boundaries in both', async () => {
    const body = (await (await page('offset=2&limit=4')).json()) as any;
    expect(body.rows).toEqual(range(2, 6));
    const across = (await (await page('offset=3&limit=6')).json()) as any;
    expect(across.rows).toEqual(range(3, 9));
  });

  it('the last, partial page', async () => {
    const body = (await (await page('offset=10&limit=5')).json()) as any;
    expect(body.rows).toEqual(range(10, 12));
    expect(body).toMatchObject({ offset: 10, limit: 5, row_count: 12 });
  });

  it('past the end: no rows, still the total', async () => {
    const body = (await (await page('offset=12&limit=5')).json()) as any;
    expect(body.rows).toEqual([]);
    expect(body.row_count).toBe(12);
    const far = (await (await page('offset=1000')).json()) as any;
    expect(far).toMatchObject({ rows: [], offset: 1000, limit: 100000, row_count: 12 });
  });

  it('offset alone pages to the end; limit alone starts at the first row; limit 0 gives no rows', async () => {
    expect(((await (await page('offset=7')).json()) as any).rows).toEqual(range(7, 12));
    expect(((await (await page('limit=5')).json()) as any).rows).toEqual(range(0, 5));
    expect((await (await page('limit=0')).json()) as any).toMatchObject({ rows: [], row_count: 12 });
  });

  it('without offset and limit: the whole result, without paging members', async () => {
    const body = (await (await get(`/data/${key}`, `Data ${await dataToken({ org, key })}`)).json()) as any;
    expect(body.rows).toEqual(range(0, 12));
    expect(body.row_count).toBeUndefined();
  });

  it('400 invalid_query_parameter naming the parameter for bad values', async () => {
    const cases: [string, string][] = [
      ['offset=-1&limit=5', 'offset'],
      ['offset=1.5', 'offset'],
      ['offset=abc', 'offset'],
      ['offset=&limit=5', 'offset'],
      ['offset=0&limit=-3', 'limit'],
      ['limit=2.0', 'limit'],
      ['limit=100001', 'limit'],
      ['offset=99999999999999999999', 'offset'],
    ];
    for (const [query, parameter] of cases) {
      const res = await page(query);
      expect(res.status, query).toBe(400);
      const err = await errorOf(res);
      expect(err.code).toBe('invalid_query_parameter');
      expect(err.source).toEqual({ parameter });
    }
  });

  it('400 for paging a CSV or XLSX download', async () => {
    for (const format of ['csv', 'xlsx'] as const) {
      const res = await page('offset=0&limit=5', { format });
      expect(res.status).toBe(400);
      expect((await errorOf(res)).source).toEqual({ parameter: 'offset' });
    }
  });

  it('the token is checked before the parameters', async () => {
    const res = await get(`/data/${key}?offset=-1`, `Data ${await dataToken({ org, key }, 'not-the-secret')}`);
    expect(res.status).toBe(401);
  });
});
