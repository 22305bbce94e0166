/**
 * The sample shop moves with the calendar (issue 15): moveSampleShopDates shifts every date and
 * timestamp column by whole days so the last order is yesterday, keeps everything else identical, records
 * the shift, and is idempotent; ensureSampleDatabase does it only when asked (npm start's dev seed).
 */
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANCHOR_DATE } from '../src/sample-shop/constants.ts';
import { moveSampleShopDates, yesterdayUtc } from '../src/sample-shop/dates.ts';
import { ensureSampleDatabase } from '../src/sample-shop/setup.ts';
import { createTestDatabase, type TestDatabase } from './helpers.ts';

let tdb: TestDatabase;
let shop: postgres.Sql;

beforeAll(async () => {
  tdb = await createTestDatabase();
  const made = await ensureSampleDatabase(tdb.url);
  expect(made.moved).toBeUndefined();
  const u = new URL(tdb.url);
  u.pathname = `/${made.database}`;
  shop = postgres(u.toString(), { max: 1, onnotice: () => {} });
});
afterAll(async () => {
  await shop?.end({ timeout: 5 });
  await tdb?.drop();
});

/** A fingerprint of everything but the dates, and the dates relative to the shop's last day. */
async function snapshot() {
  const [r] = await shop<{ last: string; rest: string; rel: string; first_signup: string }[]>`
    select (select max(ordered_at)::date::text from sample_shop.orders) as last,
           (select md5(string_agg(concat_ws('|', id, status, total, customer_id, country, total_eur), ',' order by id)) from sample_shop.orders)
             || (select md5(string_agg(concat_ws('|', id, pages, converted, source, device), ',' order by id)) from sample_shop.web_sessions) as rest,
           (select md5(string_agg(id::text || ':' || (ordered_at - (select max(ordered_at) from sample_shop.orders))::text, ',' order by id)) from sample_shop.orders)
             || (select md5(string_agg(id::text || ':' || (started_at - (select max(ordered_at) from sample_shop.orders))::text, ',' order by id)) from sample_shop.web_sessions)
             || (select md5(string_agg(id::text || ':' || (signup_date - (select max(ordered_at)::date from sample_shop.orders))::text, ',' order by id)) from sample_shop.customers) as rel,
           (select min(signup_date)::text from sample_shop.customers) as first_signup`;
  return r!;
}

const meta = async () =>
  Object.fromEntries((await shop<{ key: string; value: string }[]>`select key, value from sample_shop.meta`).map((r) => [r.key, r.value]));

describe('sample shop dates', () => {
  it('as loaded, the shop ends on its anchor day', async () => {
    expect((await snapshot()).last).toBe(ANCHOR_DATE);
    expect(await meta()).toMatchObject({ anchor_date: ANCHOR_DATE });
  });

  it('moves every date by whole days so the last order is yesterday, keeping the rest identical; idempotent', async () => {
    const before = await snapshot();
    const now = new Date('2027-03-15T10:00:00Z');
    const moved = await moveSampleShopDates(shop, now);
    expect(moved).toEqual({ days: 134, lastDay: '2027-03-14', shiftedDays: 134 });
    const after = await snapshot();
    expect(after.last).toBe('2027-03-14');
    expect(after.rest).toBe(before.rest);
    expect(after.rel).toBe(before.rel);
    expect(Date.parse(after.first_signup) - Date.parse(before.first_signup)).toBe(134 * 86_400_000);
    expect(await meta()).toMatchObject({ anchor_date: '2027-03-14', shifted_days: '134' });

    // The same day again: nothing moves. A later day moves on from where the shop is.
    expect(await moveSampleShopDates(shop, new Date('2027-03-15T23:59:00Z'))).toEqual({ days: 0, lastDay: '2027-03-14', shiftedDays: 134 });
    expect((await snapshot()).rel).toBe(before.rel);
    expect(await moveSampleShopDates(shop, new Date('2027-03-18T00:30:00Z'))).toEqual({ days: 3, lastDay: '2027-03-17', shiftedDays: 137 });
    expect((await snapshot()).last).toBe('2027-03-17');
  });

  it('ensureSampleDatabase with moveDates ends the shop yesterday (what npm start asks for)', async () => {
    const again = await ensureSampleDatabase(tdb.url, { moveDates: true });
    expect(again.shop.created).toBe(false);
    expect(again.moved?.lastDay).toBe(yesterdayUtc(new Date()));
    const s = await snapshot();
    expect(s.last).toBe(yesterdayUtc(new Date()));
    const [recent] = await shop<{ n: number }[]>`select count(*)::int as n from sample_shop.orders where ordered_at >= now() - interval '30 days'`;
    expect(recent!.n).toBeGreaterThan(100);
  });
});
