import { readFileSync } from 'node:fs';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, MIGRATIONS_FOLDER } from '../src/migrate.ts';
import { createTestDatabase, type TestDatabase } from './helpers.ts';

let tdb: TestDatabase;
let sql: postgres.Sql;

beforeAll(async () => {
  tdb = await createTestDatabase({ migrate: false });
  sql = postgres(tdb.url, { max: 2, onnotice: () => {} });
});
afterAll(async () => {
  await sql?.end({ timeout: 5 });
  await tdb?.drop();
});

describe('migrate', () => {
  it('creates every metadata table on an empty database', async () => {
    await migrate(tdb.url);
    const rows = await sql<{ table_name: string }[]>`
      select table_name from information_schema.tables where table_schema = 'public'`;
    const names = rows.map((r) => r.table_name);
    for (const t of [
      'organizations',
      'users',
      'api_keys',
      'audit_log',
      'datasources',
      'dashboards',
      'reports',
      'filters',
      'dashboard_filters',
      'report_filters',
      'executions',
      'results',
      'result_chunks',
    ]) {
      expect(names).toContain(t);
    }
  });

  it('records each journal entry once and is a no-op the second time (also when run concurrently)', async () => {
    const journal = JSON.parse(readFileSync(`${MIGRATIONS_FOLDER}/meta/_journal.json`, 'utf8')) as { entries: unknown[] };
    await Promise.all([migrate(tdb.url), migrate(tdb.url)]);
    const [row] = await sql<{ n: number }[]>`select count(*)::int as n from drizzle.__drizzle_migrations`;
    expect(row!.n).toBe(journal.entries.length);
  });

  it('fails with the driver error for an unreachable server', async () => {
    await expect(migrate('postgres://postgres:postgres@127.0.0.1:1/none')).rejects.toThrow();
  });
});
