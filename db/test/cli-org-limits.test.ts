/**
 * `npm run cairn -- org limits` (issue 15): an organization starts with no seat or datasource limit;
 * the operator sets, shows and removes them; bad values are usage errors (exit 2), an unknown
 * organization a failure (exit 1). The migration turns the old never-chosen default of 10 into no limit.
 */
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_TIMEOUT, createTestDatabase, runCairn, type TestDatabase } from './helpers.ts';

const cairn = (args: string[], url: string) => runCairn(args, { DATABASE_URL: url });

let tdb: TestDatabase;
beforeAll(async () => {
  tdb = await createTestDatabase();
});
afterAll(async () => {
  await tdb?.drop();
});

describe('cairn org limits', CLI_TIMEOUT, () => {
  it('starts without limits, sets, shows and removes them', async () => {
    const made = await cairn(['org', 'create', '--name', 'Limits Org', '--admin-email', 'limits@org.test', '--json'], tdb.url);
    expect(made.code, made.stderr).toBe(0);
    const org = JSON.parse(made.stdout).organization_id as string;

    const shown = await cairn(['org', 'limits', '--org', org, '--json'], tdb.url);
    expect(shown.code, shown.stderr).toBe(0);
    expect(JSON.parse(shown.stdout)).toEqual({ organization_id: org, name: 'Limits Org', analyst_seats: null, datasources: null });

    const set = await cairn(['org', 'limits', '--org', org, '--analyst-seats', '3', '--datasources', '5'], tdb.url);
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout).toContain('analyst seats: 3');
    expect(set.stdout).toContain('datasources:   5');

    const one = await cairn(['org', 'limits', '--org', org, '--datasources', 'none', '--json'], tdb.url);
    expect(JSON.parse(one.stdout)).toMatchObject({ analyst_seats: 3, datasources: null });

    const sql = postgres(tdb.url, { max: 1, onnotice: () => {} });
    try {
      const [row] = await sql<
        { seats: number | null; ds: number | null }[]
      >`select plan_analyst_seats as seats, plan_datasources as ds from organizations where id = ${org}`;
      expect(row).toEqual({ seats: 3, ds: null });
      const audit = await sql`select details from audit_log where resource_id = ${org} and action = 'set_limits' order by created_at`;
      expect(audit.map((a) => a.details)).toEqual([
        { analyst_seats: 3, datasources: 5 },
        { analyst_seats: 3, datasources: null },
      ]);
    } finally {
      await sql.end({ timeout: 5 });
    }
  });

  it('refuses bad values (exit 2) and unknown organizations (exit 1)', async () => {
    const [neg, word, huge, unknown] = await Promise.all([
      // A value that starts with a hyphen is given with `=` (node:util parseArgs reads `--analyst-seats -1` as a missing value).
      cairn(['org', 'limits', '--org', 'org_x', '--analyst-seats=-1'], tdb.url),
      cairn(['org', 'limits', '--org', 'org_x', '--datasources', 'many'], tdb.url),
      cairn(['org', 'limits', '--org', 'org_x', '--datasources', '2000000'], tdb.url),
      cairn(['org', 'limits', '--org', 'org_doesnotexist', '--datasources', '2'], tdb.url),
    ]);
    for (const r of [neg, word, huge]) {
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/takes a whole number/);
    }
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('No organization with id org_doesnotexist');
  });
});
