import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSampleShop, SAMPLE_SHOP_TABLES } from '../src/sample-shop/index.ts';
import { createTestDatabase, runAsSampleReader, type TestDatabase } from './helpers.ts';

let a: TestDatabase;
let b: TestDatabase;
let sqlA: postgres.Sql;
let sqlB: postgres.Sql;

beforeAll(async () => {
  [a, b] = await Promise.all([createTestDatabase(), createTestDatabase()]);
  sqlA = postgres(a.url, { max: 2, onnotice: () => {} });
  sqlB = postgres(b.url, { max: 2, onnotice: () => {} });
  // Concurrent loads into two databases also exercise the race on creating the cluster-wide role.
  const [ra, rb] = await Promise.all([loadSampleShop(sqlA), loadSampleShop(sqlB)]);
  expect(ra.created).toBe(true);
  expect(rb.created).toBe(true);
});
afterAll(async () => {
  await Promise.all([sqlA?.end({ timeout: 5 }), sqlB?.end({ timeout: 5 })]);
  await Promise.all([a?.drop(), b?.drop()]);
});

/** md5 over every row of every table, in key order. */
async function checksum(sql: postgres.Sql): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const t of SAMPLE_SHOP_TABLES) {
    const [row] = await sql.unsafe<{ md5: string }[]>(
      `SELECT md5(string_agg(t::text, '|' ORDER BY t::text)) AS md5 FROM sample_shop.${t} t`,
    );
    out[t] = row!.md5;
  }
  return out;
}

// PGlite has one database, already loaded by the test runner: these tests need fresh databases of their own.
describe.skipIf(process.env.CAIRN_PGLITE === '1')('sample shop', () => {
  it('holds at least 100k rows over two years ending 2026-10-31, 6+ countries and 3+ currencies', async () => {
    const counts = await sqlA.unsafe<{ t: string; n: number }[]>(
      SAMPLE_SHOP_TABLES.map((t) => `SELECT '${t}' AS t, count(*)::int AS n FROM sample_shop.${t}`).join(' UNION ALL '),
    );
    const total = counts.reduce((s, r) => s + r.n, 0);
    expect(total).toBeGreaterThanOrEqual(100_000);
    for (const r of counts) expect(r.n, r.t).toBeGreaterThan(0);

    const [span] = await sqlA`
      select min(ordered_at) as lo, max(ordered_at) as hi,
             (select count(distinct country)::int from sample_shop.customers) as countries,
             (select count(distinct currency)::int from sample_shop.orders) as currencies,
             (select min(started_at) from sample_shop.web_sessions) as s_lo,
             (select max(started_at) from sample_shop.web_sessions) as s_hi
      from sample_shop.orders`;
    expect(span!.countries).toBeGreaterThanOrEqual(6);
    expect(span!.currencies).toBeGreaterThanOrEqual(3);
    expect(span!.lo.getTime()).toBeGreaterThanOrEqual(Date.parse('2024-11-01T00:00:00Z'));
    expect(span!.hi.getTime()).toBeLessThan(Date.parse('2026-11-01T00:00:00Z'));
    expect(span!.hi.getTime()).toBeGreaterThan(Date.parse('2026-10-30T00:00:00Z'));
    expect(span!.s_lo.getTime()).toBeLessThan(Date.parse('2024-11-08T00:00:00Z'));
    expect(span!.s_hi.getTime()).toBeLessThan(Date.parse('2026-11-01T00:00:00Z'));
  });

  it('keeps order totals consistent with their items and exchange rates', async () => {
    const [bad] = await sqlA`
      select count(*)::int as n from sample_shop.orders o
      join sample_shop.currencies c on c.code = o.currency
      where o.total <> (select sum(quantity * unit_price) from sample_shop.order_items i where i.order_id = o.id)
         or o.total_eur <> round(o.total * c.eur_rate, 2)`;
    expect(bad!.n).toBe(0);
    const [early] = await sqlA`
      select count(*)::int as n from sample_shop.orders o join sample_shop.customers c on c.id = o.customer_id
      where o.ordered_at::date < c.signup_date`;
    expect(early!.n).toBe(0);
  });

  it('is identical in two databases (deterministic)', async () => {
    const [ca, cb] = await Promise.all([checksum(sqlA), checksum(sqlB)]);
    expect(ca).toEqual(cb);
    expect(Object.keys(ca)).toHaveLength(SAMPLE_SHOP_TABLES.length);
  });

  it('skips a second load, and rebuilds an incomplete copy', async () => {
    expect(await loadSampleShop(sqlA)).toEqual({ created: false, version: '1' });
    await sqlB`delete from sample_shop.meta`;
    expect((await loadSampleShop(sqlB)).created).toBe(true);
    expect(await checksum(sqlB)).toEqual(await checksum(sqlA));
  });

  it('lets cairn_sample_reader read sample_shop only', async () => {
    const rows = await runAsSampleReader(sqlA, 'SELECT count(*)::int AS n FROM orders');
    expect(rows[0]!.n).toBeGreaterThan(10_000);
    await expect(runAsSampleReader(sqlA, 'SELECT * FROM public.api_keys')).rejects.toMatchObject({ code: '42501' });
    await expect(runAsSampleReader(sqlA, 'SELECT * FROM public.users')).rejects.toMatchObject({ code: '42501' });
    await expect(
      sqlA.begin(async (tx) => {
        await tx.unsafe('SET LOCAL ROLE cairn_sample_reader');
        await tx.unsafe('DELETE FROM sample_shop.orders');
      }),
    ).rejects.toMatchObject({ code: '42501' });
    const [role] = await sqlA`select rolcanlogin, rolsuper from pg_roles where rolname = 'cairn_sample_reader'`;
    expect(role).toEqual({ rolcanlogin: false, rolsuper: false });
  });
});
