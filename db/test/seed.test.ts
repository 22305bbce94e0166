import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, parseApiKey, sha256Hex, verifyPassword } from '@cairn/core';
import { createDb, type DbClient } from '../src/client.ts';
import { apiKeys, auditLog, dashboardFilters, reportFilters, userGroupMembers, userGroups } from '../src/schema/index.ts';
import { ensureSampleDatabase } from '../src/sample-shop/setup.ts';
import { createApiKey, createOrganization, listApiKeys, setApiKeyEnabled, type CreateOrganizationResult } from '../src/seed.ts';
import { createTestDatabase, placeholdersToTrue, runAsSampleReader, type TestDatabase } from './helpers.ts';

let tdb: TestDatabase;
let client: DbClient;
let org: CreateOrganizationResult;
let sampleUrl: string;

beforeAll(async () => {
  tdb = await createTestDatabase();
  client = createDb(tdb.url, { max: 3 });
  sampleUrl = (await ensureSampleDatabase(tdb.url)).url;
  org = await createOrganization(client.db, { name: 'Seed Test Shop', adminEmail: 'Owner@Seed.test', region: 'us' });
});
afterAll(async () => {
  await client?.sql.end({ timeout: 5 });
  await tdb?.drop();
});

/** A stand-in for the report SQL compiler: binds a date range and a country list the way the contract says. */
function bindFilters(sqlText: string, from: string, to: string, countries: string[]): { text: string; values: string[] } {
  const values: string[] = [];
  const param = (v: string) => {
    values.push(v);
    return `$${values.length}`;
  };
  const text = sqlText
    .replace(/\{\[([^\]]+)\]=order_date\}/g, (_m, expr: string) => `(${expr} >= ${param(from)}::date AND ${expr} < ${param(to)}::date)`)
    .replace(/\{\[([^\]]+)\]=country\}/g, (_m, expr: string) => `${expr} IN (${countries.map(param).join(', ')})`);
  return { text, values };
}

describe('createOrganization', () => {
  it('creates the organization, its admin and the built-in groups', async () => {
    expect(org.organization).toMatchObject({ name: 'Seed Test Shop', region: 'us', plan_analyst_seats: null, plan_datasources: null });
    expect(org.admin).toMatchObject({ role: 'admin', email: 'Owner@Seed.test', organization_id: org.organization.id });
    expect(org.adminPassword).toMatch(/^[a-z2-9]{5}(-[a-z2-9]{5}){3}$/);
    expect(org.admin.password_hash).not.toContain(org.adminPassword);
    expect(await verifyPassword(org.adminPassword, org.admin.password_hash!)).toBe(true);

    const groups = await client.db.select().from(userGroups).where(eq(userGroups.organization_id, org.organization.id));
    expect(groups.map((g) => [g.name, g.built_in_behavior]).sort()).toEqual([
      ['All Analysts', 'all_analysts'],
      ['All Users', 'all_users'],
    ]);
    const members = await client.db.select().from(userGroupMembers).where(eq(userGroupMembers.user_id, org.admin.id));
    expect(members).toHaveLength(2);
  });

  it('creates the Sample data datasource', () => {
    expect(org.sampleDatasource).toMatchObject({
      name: 'Sample data',
      is_sample: true,
      database_type: 'postgres',
      connection_mode: 'direct',
      default_schema_name: 'sample_shop',
      data_time_zone: 'UTC',
      organization_id: org.organization.id,
    });
  });

  it('creates the sample dashboard with 5+ reports covering bar, line, pie, number and table, on a valid layout', async () => {
    const d = org.sampleDashboard;
    expect(d).toMatchObject({ name: 'Online shop overview', share_mode: 'all_users', user_id: org.admin.id });
    expect(d.reports.length).toBeGreaterThanOrEqual(5);
    const types = new Set(d.reports.map((r) => r.chart_configuration.type));
    for (const t of ['bar', 'line', 'pie', 'number', 'table']) expect(types).toContain(t);

    expect(d.layout).toHaveLength(d.reports.length);
    expect(new Set(d.layout.map((t) => t.id))).toEqual(new Set(d.reports.map((r) => r.id)));
    for (const tile of d.layout) {
      expect(tile.type).toBe('report');
      expect(tile.row).toBeGreaterThanOrEqual(1);
      expect(tile.column).toBeGreaterThanOrEqual(1);
      expect(tile.width).toBeGreaterThanOrEqual(1);
      expect(tile.column + tile.width - 1).toBeLessThanOrEqual(12);
      expect(tile.height).toBeGreaterThanOrEqual(1);
    }
  });

  it('links both filters to the dashboard and to every report, and every report uses both', async () => {
    const d = org.sampleDashboard;
    const byVar = Object.fromEntries(d.filters.map((f) => [f.variable_name, f]));
    expect(byVar.order_date).toMatchObject({ control_type: 'date_range', value_type: 'DATE' });
    expect(byVar.country).toMatchObject({ control_type: 'dropdown_multi_manual', value_type: 'TEXT' });
    expect(byVar.country!.values).toContain('DE');
    expect(byVar.country!.value_names).toContain('Germany');
    expect(byVar.country!.values!.length).toBe(byVar.country!.value_names!.length);

    const df = await client.db.select().from(dashboardFilters).where(eq(dashboardFilters.dashboard_id, d.id));
    expect(df.map((r) => r.filter_id).sort()).toEqual(d.filters.map((f) => f.id).sort());
    for (const r of d.reports) {
      expect(r.sql_query).toMatch(/\{\[[^\]]+\]=order_date\}/);
      expect(r.sql_query).toMatch(/\{\[[^\]]+\]=country\}/);
      const links = await client.db.select().from(reportFilters).where(eq(reportFilters.report_id, r.id));
      expect(links).toHaveLength(2);
    }
  });

  it("runs every report's SQL on the sample database as cairn_sample, with filters unset and set", async () => {
    for (const r of org.sampleDashboard.reports) {
      const all = await runAsSampleReader(sampleUrl, placeholdersToTrue(r.sql_query));
      expect(all.length, r.name).toBeGreaterThan(0);
      if (r.chart_configuration.type === 'table') expect(all.length).toBe(100);

      const bound = bindFilters(r.sql_query, '2026-03-01', '2026-04-01', ['DE', 'FR']);
      const some = await runAsSampleReader(sampleUrl, bound.text, bound.values);
      expect(some.length, r.name).toBeGreaterThan(0);
      if (r.name === 'Total revenue') expect(Number(some[0]!.revenue_eur)).toBeLessThan(Number(all[0]!.revenue_eur));
      if (r.name === 'Revenue by country') expect(some.map((x) => x.country).sort()).toEqual(['France', 'Germany']);
    }
  });

  it('writes an audit entry for every created resource', async () => {
    const entries = await client.db.select().from(auditLog).where(eq(auditLog.organization_id, org.organization.id));
    const ids = new Set(entries.map((e) => e.resource_id));
    for (const id of [
      org.organization.id,
      org.admin.id,
      org.sampleDatasource.id,
      org.sampleDashboard.id,
      ...org.sampleDashboard.reports.map((r) => r.id),
      ...org.sampleDashboard.filters.map((f) => f.id),
    ]) {
      expect(ids).toContain(id);
    }
    expect(entries.every((e) => e.actor_type === 'system')).toBe(true);
  });

  it('refuses a second user with the same email (any case) and bad input, with clear errors', async () => {
    await expect(createOrganization(client.db, { name: 'Other', adminEmail: 'owner@seed.TEST' })).rejects.toMatchObject({ code: 'conflict' });
    await expect(createOrganization(client.db, { name: ' ', adminEmail: 'not-an-email' })).rejects.toSatisfy(
      (e: unknown) => e instanceof ApiError && e.code === 'invalid_attribute' && e.more.length === 1,
    );
    await expect(createOrganization(client.db, { name: 'X', adminEmail: 'x@y.test', adminPassword: 'short' })).rejects.toMatchObject({
      code: 'invalid_attribute',
    });
  });
});

describe('API keys', () => {
  it('returns the full key once and stores only the hash of its secret', async () => {
    const { apiKey, secret } = await createApiKey(
      client.db,
      { organizationId: org.organization.id, name: 'Reader', grants: [{ permission: 'view_dashboards', resources: null }], createdByUserId: org.admin.id },
      { actor: { type: 'cli', id: 'tester' } },
    );
    const parsed = parseApiKey(secret);
    expect(parsed).not.toBeNull();
    expect(apiKey.key_id).toBe(parsed!.keyId);
    expect(apiKey.secret_hash).toBe(await sha256Hex(parsed!.secret));

    const [stored] = await client.sql`select row_to_json(k)::text as j from api_keys k where id = ${apiKey.id}`;
    expect(stored!.j).not.toContain(parsed!.secret);

    const [entry] = await client.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.resource_id, apiKey.id), eq(auditLog.action, 'create')));
    expect(entry).toMatchObject({ actor_type: 'cli', actor_id: 'tester', resource_type: 'api_key' });
  });

  it('lists keys without hashes and enables/disables them', async () => {
    const { apiKey } = await createApiKey(client.db, {
      organizationId: org.organization.id,
      name: 'Restricted',
      grants: [{ permission: 'view_dashboards', resources: [{ type: 'dashboards', id: org.sampleDashboard.id }] }],
    });
    const listed = await listApiKeys(client.db, org.organization.id);
    expect(listed.map((k) => k.id)).toContain(apiKey.id);
    for (const k of listed) expect(k).not.toHaveProperty('secret_hash');

    expect((await setApiKeyEnabled(client.db, { id: apiKey.id, enabled: false })).enabled).toBe(false);
    const [row] = await client.db.select().from(apiKeys).where(eq(apiKeys.id, apiKey.id));
    expect(row!.enabled).toBe(false);
    expect((await setApiKeyEnabled(client.db, { id: apiKey.id, enabled: true, organizationId: org.organization.id })).enabled).toBe(true);
    await expect(setApiKeyEnabled(client.db, { id: apiKey.id, enabled: false, organizationId: 'org_other' })).rejects.toMatchObject({ code: 'not_found' });
  });

  it('rejects unknown organizations, permissions and resources of other organizations', async () => {
    const other = await createOrganization(client.db, { name: 'Other org', adminEmail: 'other@seed.test', adminPassword: 'long enough' });
    const base = { organizationId: org.organization.id, name: 'k' };
    await expect(
      createApiKey(client.db, { ...base, organizationId: 'org_missing', grants: [{ permission: 'view_users', resources: null }] }),
    ).rejects.toMatchObject({ code: 'not_found' });
    await expect(createApiKey(client.db, { ...base, grants: [] })).rejects.toMatchObject({ code: 'invalid_attribute' });
    await expect(createApiKey(client.db, { ...base, grants: [{ permission: 'root' as never, resources: null }] })).rejects.toMatchObject({
      code: 'invalid_attribute',
    });
    await expect(
      createApiKey(client.db, {
        ...base,
        grants: [{ permission: 'view_dashboards', resources: [{ type: 'dashboards', id: other.sampleDashboard.id }] }],
      }),
    ).rejects.toMatchObject({ code: 'invalid_attribute' });
    await expect(listApiKeys(client.db, 'org_missing')).rejects.toMatchObject({ code: 'not_found' });
  });
});
