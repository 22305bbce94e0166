import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSampleShop, SAMPLE_SHOP_TABLES } from '../src/sample-shop/index.ts';
import { ensureSampleDatabase, type SampleDatabase } from '../src/sample-shop/setup.ts';
import { createTestDatabase, runAsSampleReader, type TestDatabase } from './helpers.ts';

let a: TestDatabase;
let b: TestDatabase;
let sampleA: SampleDatabase;
/** Superuser connections to the two sample databases. */
let sqlA: postgres.Sql;
let sqlB: postgres.Sql;

const inDatabase = (url: string, database: string) => Object.assign(new URL(url), { pathname: `/${database}` }).toString();

beforeAll(async () => {
  [a, b] = await Promise.all([createTestDatabase(), createTestDatabase()]);
  // Concurrent set-ups of two sample databases also exercise the race on creating the cluster-wide role.
  const [ra, rb] = await Promise.all([ensureSampleDatabase(a.url), ensureSampleDatabase(b.url)]);
  expect(ra.shop.created).toBe(true);
  expect(rb.shop.created).toBe(true);
  sampleA = ra;
  sqlA = postgres(inDatabase(a.url, ra.database), { max: 2, onnotice: () => {} });
  sqlB = postgres(inDatabase(b.url, rb.database), { max: 2, onnotice: () => {} });
});
afterAll(async () => {
  await Promise.all([sqlA?.end({ timeout: 5 }), sqlB?.end({ timeout: 5 })]);
  await Promise.all([a?.drop(), b?.drop()]);
});

/** md5 over every row of every table, in key order. */
async function checksum(sql: postgres.Sql): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const t of SAMPLE_SHOP_TABLES) {
    const [row] = await sql.unsafe<{ md5: string }[]>(`SELECT md5(string_agg(t::text, '|' ORDER BY t::text)) AS md5 FROM sample_shop.${t} t`);
    out[t] = row!.md5;
  }
  return out;
}

describe('sample shop', () => {
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

  it('lets the login role cairn_sample read sample_shop and nothing else', async () => {
    const rows = await runAsSampleReader(sampleA.url, 'SELECT count(*)::int AS n FROM orders');
    expect(rows[0]!.n).toBeGreaterThan(10_000);
    await expect(runAsSampleReader(sampleA.url, 'SELECT * FROM public.api_keys')).rejects.toMatchObject({ code: '42501' });
    // Read-only by default, even outside a read-only transaction.
    const own = postgres(sampleA.url, { max: 1, onnotice: () => {} });
    try {
      await expect(own.unsafe('DELETE FROM orders')).rejects.toMatchObject({ code: '25006' });
      await expect(own.unsafe('SET ROLE postgres')).rejects.toMatchObject({ code: '42501' });
      await expect(own.unsafe("SELECT set_config('role', 'postgres', false)")).rejects.toMatchObject({ code: '42501' });
      const [settings] = await own`select current_setting('search_path') as path, current_setting('statement_timeout') as timeout`;
      expect(settings).toEqual({ path: 'sample_shop', timeout: '5min' });
    } finally {
      await own.end({ timeout: 5 });
    }
    // No session on the metadata database at all.
    const meta = postgres(inDatabase(sampleA.url, a.name), { max: 1, onnotice: () => {} });
    try {
      await expect(meta`select 1`).rejects.toMatchObject({ code: '42501' });
    } finally {
      await meta.end({ timeout: 5 });
    }
    const [role] = await sqlA`select rolcanlogin, rolsuper, rolcreatedb, rolcreaterole, rolinherit from pg_roles where rolname = 'cairn_sample'`;
    expect(role).toEqual({ rolcanlogin: true, rolsuper: false, rolcreatedb: false, rolcreaterole: false, rolinherit: false });
    const [owns] = await sqlA`select count(*)::int as n from pg_class where relowner = (select oid from pg_roles where rolname = 'cairn_sample')`;
    expect(owns!.n).toBe(0);
  });

  it('leaves the metadata database without the shop (migration 0007)', async () => {
    const meta = postgres(a.url, { max: 1, onnotice: () => {} });
    try {
      const [row] = await meta`select to_regnamespace('sample_shop')::text as ns`;
      expect(row!.ns).toBeNull();
    } finally {
      await meta.end({ timeout: 5 });
    }
  });
});
