/**
 * The sample online shop behind every organization's "Sample data" datasource: schema `sample_shop` in a
 * database of its own (setup.ts), readable only by the LOGIN role `cairn_sample`.
 */
import type postgres from 'postgres';
import { ANCHOR_DATE, SAMPLE_LOGIN_ROLE, SAMPLE_SHOP_SCHEMA, SAMPLE_SHOP_VERSION } from './constants.ts';
import { constraintsSql, createTablesSql, fillTablesSql, lit } from './sql.ts';

export * from './constants.ts';

/** Serializes concurrent loads into one database (an arbitrary constant). */
const LOAD_LOCK = 4_711_002;

export const SAMPLE_SHOP_TABLES = ['currencies', 'countries', 'products', 'customers', 'orders', 'order_items', 'web_sessions'] as const;

export interface LoadSampleShopResult {
  /** False when the current version was already there and nothing was written. */
  created: boolean;
  version: string;
}

/**
 * Loads the sample shop (about 150k rows covering the two years up to ${ANCHOR_DATE}) into `sample_shop`
 * of the connected database (the sample database: see setup.ts, which also makes the role).
 * Idempotent: when `sample_shop.meta` already holds the current version nothing is written; an older or
 * incomplete copy is dropped and rebuilt. Grants USAGE on the schema and SELECT on its tables to
 * `cairn_sample` (which must exist), and nothing else. The whole load is one transaction.
 */
export async function loadSampleShop(sql: postgres.Sql): Promise<LoadSampleShopResult> {
  return sql.begin(async (tx) => {
    await tx.unsafe(`SELECT pg_advisory_xact_lock(${LOAD_LOCK})`);
    await tx.unsafe(`SET LOCAL TimeZone = 'UTC'`);
    const [meta] = await tx.unsafe<{ rel: string | null }[]>(`SELECT to_regclass('${SAMPLE_SHOP_SCHEMA}.meta')::text AS rel`);
    let version: string | undefined;
    if (meta?.rel) {
      const [row] = await tx.unsafe<{ value: string }[]>(`SELECT value FROM ${SAMPLE_SHOP_SCHEMA}.meta WHERE key = 'version'`);
      version = row?.value;
    }
    const created = version !== SAMPLE_SHOP_VERSION;
    if (created) {
      await tx.unsafe(`DROP SCHEMA IF EXISTS ${SAMPLE_SHOP_SCHEMA} CASCADE`);
      for (const stmt of [...createTablesSql(), ...fillTablesSql(), ...constraintsSql()]) await tx.unsafe(stmt);
      const counts = await tx.unsafe<{ n: string }[]>(
        SAMPLE_SHOP_TABLES.map((t) => `SELECT count(*) AS n FROM ${SAMPLE_SHOP_SCHEMA}.${t}`).join(' UNION ALL '),
      );
      const total = counts.reduce((sum, r) => sum + Number(r.n), 0);
      await tx.unsafe(
        `INSERT INTO ${SAMPLE_SHOP_SCHEMA}.meta (key, value) VALUES
           ('version', ${lit(SAMPLE_SHOP_VERSION)}), ('anchor_date', ${lit(ANCHOR_DATE)}), ('row_count', '${total}')`,
      );
    }
    await tx.unsafe(`REVOKE ALL ON SCHEMA ${SAMPLE_SHOP_SCHEMA} FROM PUBLIC`);
    await tx.unsafe(`GRANT USAGE ON SCHEMA ${SAMPLE_SHOP_SCHEMA} TO ${SAMPLE_LOGIN_ROLE}`);
    await tx.unsafe(`GRANT SELECT ON ALL TABLES IN SCHEMA ${SAMPLE_SHOP_SCHEMA} TO ${SAMPLE_LOGIN_ROLE}`);
    return { created, version: SAMPLE_SHOP_VERSION };
  });
}
