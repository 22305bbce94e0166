import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_TIMEOUT, createTestDatabase, runCairn as cairn, type TestDatabase } from './helpers.ts';

let tdb: TestDatabase;
beforeAll(async () => {
  tdb = await createTestDatabase();
});
afterAll(async () => {
  await tdb?.drop();
});

describe('cairn CLI', CLI_TIMEOUT, () => {
  it('prints help for the whole tool and for one command', async () => {
    const [all, one] = await Promise.all([cairn(['--help']), cairn(['key', 'create', '--help'])]);
    expect(all.code).toBe(0);
    for (const c of ['org create', 'key create', 'key list', 'key disable', 'key enable', 'dev credentials']) {
      expect(all.stdout).toContain(c);
    }
    expect(one.code).toBe(0);
    expect(one.stdout).toContain('--permissions');
    expect(one.stdout).toContain('--restrict');
  });

  it('exits 2 with a clear message on an unknown command, an unknown flag or a missing option', async () => {
    const [cmd, flag, missing, perm] = await Promise.all([
      cairn(['frobnicate']),
      cairn(['key', 'list', '--org', 'org_x', '--colour']),
      cairn(['org', 'create', '--name', 'X']),
      cairn(['key', 'create', '--org', 'org_x', '--name', 'n', '--permissions', 'fly']),
    ]);
    expect(cmd.code).toBe(2);
    expect(cmd.stderr).toContain('Unknown command "frobnicate"');
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain('Unknown option --colour');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('Missing required option --admin-email');
    expect(perm.code).toBe(2);
    expect(perm.stderr).toContain('Unknown permission "fly"');
  });

  it('creates an organization and a key, lists and disables it', async () => {
    const env = { DATABASE_URL: tdb.url };
    const org = await cairn(['org', 'create', '--name', 'CLI Org', '--admin-email', 'cli@org.test', '--region', 'us', '--json'], env);
    expect(org.stderr).toBe('');
    expect(org.code).toBe(0);
    const created = JSON.parse(org.stdout);
    expect(created.region).toBe('us');
    expect(created.admin.password).toMatch(/^[a-z2-9-]{23}$/);

    const key = await cairn(
      [
        'key',
        'create',
        '--org',
        created.organization_id,
        '--name',
        'Dash reader',
        '--permissions',
        'View Dashboards,include_sql_details',
        `--restrict=dashboards:${created.sample_dashboard_id}`,
      ],
      env,
    );
    expect(key.code).toBe(0);
    // The organization was made in the US: its key names the region (D53).
    expect(key.stdout).toMatch(/cairn_us_[0-9A-Za-z]{12}_[0-9A-Za-z]{40}/);
    expect(key.stdout).toContain('will not be shown again');
    const keyRowId = /\((key_[0-9A-Za-z]+)\)/.exec(key.stdout)![1]!;
    const secret = /cairn_us_[0-9A-Za-z]{12}_([0-9A-Za-z]{40})/.exec(key.stdout)![1]!;

    const disable = await cairn(['key', 'disable', keyRowId], env);
    expect(disable.code).toBe(0);
    expect(disable.stdout).toContain('now disabled');

    const list = await cairn(['key', 'list', '--org', created.organization_id], env);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(new RegExp(`${keyRowId}\\s+disabled`));
    expect(list.stdout).toContain(`dashboards:${created.sample_dashboard_id}`);
    expect(list.stdout).not.toContain(secret);

    const missing = await cairn(['key', 'enable', 'key_doesnotexist'], env);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('No API key with id key_doesnotexist');
  });

  it('reports an unreachable database without a stack trace', async () => {
    const r = await cairn(['key', 'list', '--org', 'org_x']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('Cannot connect to the database');
    expect(r.stderr).not.toContain('    at ');
  });
});
