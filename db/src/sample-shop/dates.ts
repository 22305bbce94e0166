/**
 * The sample shop moves with the calendar (issue 15): at `npm start` (ensureDevSeed) every date and
 * timestamp column is shifted by the same whole number of days so that the shop's last day is
 * yesterday (UTC), and relative filters such as "last 30 days" always find data. Nothing else changes:
 * rows, amounts, statuses and the times of day stay as loaded. The shop's last day is recorded in
 * `sample_shop.meta` (`anchor_date`, with `shifted_days` since the load), so a second run on the same
 * day changes nothing, and a rebuild (a new SAMPLE_SHOP_VERSION) starts again from ANCHOR_DATE.
 */
import type postgres from 'postgres';
import { ANCHOR_DATE, SAMPLE_SHOP_SCHEMA } from './constants.ts';
import { lit } from './sql.ts';

/** Every date and timestamp column of the shop. */
export const SAMPLE_SHOP_DATE_COLUMNS = [
  { table: 'customers', column: 'signup_date' },
  { table: 'orders', column: 'ordered_at' },
  { table: 'web_sessions', column: 'started_at' },
] as const;

/** Shared with loadSampleShop: a load and a move never run at once. */
const LOAD_LOCK = 4_711_002;

const DAY_MS = 86_400_000;

/** The UTC calendar day before `now`, as YYYY-MM-DD. */
export function yesterdayUtc(now: Date): string {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()) - DAY_MS).toISOString().slice(0, 10);
}

export interface MoveResult {
  /** Days moved by this call (0 when the shop already ended yesterday). */
  days: number;
  /** The shop's last day now. */
  lastDay: string;
  /** Days moved since the shop was loaded. */
  shiftedDays: number;
}

/** Shifts the shop in the connected database (the sample database) so that its last day is the day before `now`. */
export async function moveSampleShopDates(sql: postgres.Sql, now = new Date()): Promise<MoveResult> {
  const S = SAMPLE_SHOP_SCHEMA;
  return sql.begin(async (tx) => {
    await tx.unsafe(`SELECT pg_advisory_xact_lock(${LOAD_LOCK})`);
    await tx.unsafe(`SET LOCAL TimeZone = 'UTC'`);
    const rows = await tx.unsafe<{ key: string; value: string }[]>(`SELECT key, value FROM ${S}.meta WHERE key IN ('anchor_date', 'shifted_days')`);
    const meta = new Map(rows.map((r) => [r.key, r.value]));
    const anchor = meta.get('anchor_date') ?? ANCHOR_DATE;
    const before = Number(meta.get('shifted_days') ?? 0);
    const lastDay = yesterdayUtc(now);
    const days = Math.round((Date.parse(`${lastDay}T00:00:00Z`) - Date.parse(`${anchor}T00:00:00Z`)) / DAY_MS);
    if (days === 0) return { days, lastDay, shiftedDays: before };
    for (const { table, column } of SAMPLE_SHOP_DATE_COLUMNS) {
      // date + integer stays a date; a timestamptz moves by whole (UTC) days.
      const moved = column === 'signup_date' ? `${column} + ${days}` : `${column} + ${days} * interval '1 day'`;
      await tx.unsafe(`UPDATE ${S}.${table} SET ${column} = ${moved}`);
    }
    await tx.unsafe(`INSERT INTO ${S}.meta (key, value) VALUES ('anchor_date', ${lit(lastDay)}), ('shifted_days', ${lit(String(before + days))})
      ON CONFLICT (key) DO UPDATE SET value = excluded.value`);
    return { days, lastDay, shiftedDays: before + days };
  });
}
