import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { env } from 'cloudflare:test';
import { and, eq, inArray } from 'drizzle-orm';
import { datasources, executions, organizations } from '@cairn/db';
import { runCron } from '../cron.ts';
import { db, makeKey, makeOrg } from '../../test/fixtures.ts';
import { MARIADB_ATTRS, PG_ATTRS, makeDatasource, roomForDatasources } from '../../test/engine-fixtures.ts';
import { createMyDatabase, createPgDatabase, myQuery } from '../../test/connectors-fixtures.ts';

/**
 * The nightly schema refresh of the cron (engine/schema-nightly.ts) against the real Postgres and
 * MariaDB of this machine. The organization lives in Asia/Kathmandu (UTC+05:45), so a tick at 21:30 UTC
 * is 03:15 there (night) and a tick at 06:00 UTC is 11:45 (day).
 */
let key: string;
let orgId: string;
let pg: Awaited<ReturnType<typeof createPgDatabase>>;
let my: Awaited<ReturnType<typeof createMyDatabase>>;

const NIGHT = new Date('2026-11-26T21:30:00Z');
const DAY = new Date('2026-11-26T06:00:00Z');

async function tickAt(at: Date) {
  // The cron awaits the schema reads it starts (nothing is left to waitUntil, D54).
  return runCron(env, at);
}
const row = async (id: string) => (await db().select().from(datasources).where(eq(datasources.id, id)))[0]!;
type Doc = { schemas: { name: string; tables: { name: string; row_count?: number }[] }[]; total_row_count?: number };
const table = (doc: Doc, name: string) => doc.schemas.flatMap((s) => s.tables).find((t) => t.name === name);

beforeAll(async () => {
  const org = await makeOrg('nightly');
  orgId = org.organization.id;
  key = await makeKey(orgId);
  await roomForDatasources(orgId);
  await db().update(organizations).set({ time_zone: 'Asia/Kathmandu' }).where(eq(organizations.id, orgId));
  pg = await createPgDatabase();
  await pg.sql.unsafe('create table nightly_orders (id int); insert into nightly_orders select generate_series(1, 7); analyze nightly_orders');
  my = await createMyDatabase();
  await myQuery(my.conn, 'create table nightly_hits (id int) engine=InnoDB; insert into nightly_hits values (1),(2),(3); analyze table nightly_hits');
});

afterAll(async () => {
  await pg?.drop();
  await my?.drop();
});

describe('scheduled: nightly schema refresh', () => {
  it('reads the schemas of datasources with update_schema_nightly once a night, with row counts per update_schema_row_counts', async () => {
    const pgCounts = await makeDatasource(key, { ...PG_ATTRS, database: pg.name, update_schema_row_counts: true });
    const pgNoCounts = await makeDatasource(key, { ...PG_ATTRS, database: pg.name, update_schema_row_counts: false });
    const myCounts = await makeDatasource(key, { ...MARIADB_ATTRS, database: my.name, included_databases: [my.name] });
    const off = await makeDatasource(key, { ...PG_ATTRS, database: pg.name, update_schema_nightly: false });
    const neverRead = await makeDatasource(key, { ...PG_ATTRS, database: pg.name });
    const mine = [pgCounts, pgNoCounts, myCounts, off];
    const old = new Date(Date.now() - 48 * 3_600_000);
    await db()
      .update(datasources)
      .set({ schema_updated_at: old, schema_cache: { schemas: [] } })
      .where(inArray(datasources.id, mine));

    // Daytime in the organization's zone: nothing is read.
    const day = await tickAt(DAY);
    expect(day.schemasRefreshed.filter((id) => [...mine, neverRead].includes(id))).toEqual([]);

    const night = await tickAt(NIGHT);
    expect(night.schemasRefreshed.filter((id) => [...mine, neverRead].includes(id)).sort()).toEqual([pgCounts, pgNoCounts, myCounts].sort());

    const a = await row(pgCounts);
    expect(a.schema_updated_at!.getTime()).toBeGreaterThan(old.getTime());
    expect(table(a.schema_cache as Doc, 'nightly_orders')).toMatchObject({ row_count: 7 });
    expect(a.total_row_count).toBeGreaterThanOrEqual(7);
    const b = await row(pgNoCounts);
    expect(table(b.schema_cache as Doc, 'nightly_orders')).toBeDefined();
    expect(table(b.schema_cache as Doc, 'nightly_orders')!.row_count).toBeUndefined();
    const c = await row(myCounts);
    expect(table(c.schema_cache as Doc, 'nightly_hits')).toMatchObject({ row_count: 3 });
    // Off: untouched; never read: left for its first use.
    expect((await row(off)).schema_updated_at!.getTime()).toBe(old.getTime());
    expect((await row(neverRead)).schema_updated_at).toBeNull();

    // Each read is an almanach_query execution of the system actor that succeeded.
    const runs = await db()
      .select()
      .from(executions)
      .where(and(eq(executions.organization_id, orgId), eq(executions.created_by, 'system:schema-refresh')));
    expect(runs.map((r) => [r.datasource_id, r.execution_type, r.execution_status]).sort()).toEqual(
      [
        [pgCounts, 'almanach_query', 'success'],
        [pgNoCounts, 'almanach_query', 'success'],
        [myCounts, 'almanach_query', 'success'],
      ].sort(),
    );

    // Later in the same night: already read, nothing again.
    const again = await tickAt(new Date(NIGHT.getTime() + 30 * 60_000));
    expect(again.schemasRefreshed.filter((id) => mine.includes(id))).toEqual([]);
  });

  it('a failing read is recorded and tried again only the next night; a datasource that cannot run is skipped', async () => {
    const gone = await makeDatasource(key, { ...PG_ATTRS, database: 'cairn_no_such_database' });
    const mongo = await makeDatasource(key, { database_type: 'mongodb', host: 'mongo.example', username: 'u', password: 'p' });
    const old = new Date(Date.now() - 48 * 3_600_000);
    await db()
      .update(datasources)
      .set({ schema_updated_at: old })
      .where(inArray(datasources.id, [gone, mongo]));
    const night = await tickAt(new Date(NIGHT.getTime() + 60 * 60_000));
    expect(night.schemasRefreshed).toContain(gone);
    expect(night.schemasRefreshed).not.toContain(mongo);
    const [run] = await db()
      .select()
      .from(executions)
      .where(and(eq(executions.datasource_id, gone), eq(executions.created_by, 'system:schema-refresh')));
    expect(run!.execution_status).not.toBe('success');
    expect(run!.error_message).toMatch(/cairn_no_such_database/);
    expect((await row(gone)).schema_updated_at!.getTime()).toBe(old.getTime());
    const later = await tickAt(new Date(NIGHT.getTime() + 90 * 60_000));
    expect(later.schemasRefreshed).not.toContain(gone);
  });
});
