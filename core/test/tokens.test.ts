import { describe, expect, it } from 'vitest';
import {
  allows, generateApiKey, hashPassword, parseApiKey, parsePermission, permissionsForRole, signDataToken,
  timingSafeEqual, verifyDataToken, verifyPassword, encryptSecret, decryptSecret, newId,
} from '../src/index.ts';

describe('data tokens', () => {
  const base = { kind: 'data' as const, org: 'org_1', key: 'eu/org_1/exe_1/abc', region: 'eu' as const };
  it('round-trips and expires', async () => {
    const t = await signDataToken(base, 's', 1_000_000);
    await expect(verifyDataToken(t, 's', { region: 'eu' }, 1_000_000)).resolves.toMatchObject(base);
    await expect(verifyDataToken(t, 's', { region: 'eu' }, 1_000_000 + 301_000)).rejects.toMatchObject({ code: 'data_token_expired' });
  });
  it('refuses a tampered body or a wrong secret', async () => {
    const t = await signDataToken(base, 's');
    const [body, sig] = t.split('.');
    const forged = Buffer.from(JSON.stringify({ ...base, org: 'org_2', exp: 9e9 })).toString('base64url');
    await expect(verifyDataToken(`${forged}.${sig}`, 's', { region: 'eu' })).rejects.toMatchObject({ code: 'invalid_data_token' });
    await expect(verifyDataToken(`${body}.${sig}`, 'other', { region: 'eu' })).rejects.toMatchObject({ code: 'invalid_data_token' });
  });
  it('names the other region', async () => {
    const t = await signDataToken({ ...base, region: 'us' }, 's');
    await expect(verifyDataToken(t, 's', { region: 'eu' })).rejects.toMatchObject({ code: 'wrong_region', status: 403 });
  });
});

describe('secrets', () => {
  it('API keys parse and reject look-alikes', () => {
    const k = generateApiKey();
    expect(parseApiKey(k.full)).toEqual({ keyId: k.keyId, secret: k.secret });
    expect(parseApiKey(k.full + 'x')).toBeNull();
    expect(parseApiKey('cairn_short_secret')).toBeNull();
  });
  it('passwords hash with a salt and verify', async () => {
    const h1 = await hashPassword('hunter22', 1000);
    const h2 = await hashPassword('hunter22', 1000);
    expect(h1).not.toBe(h2);
    expect(await verifyPassword('hunter22', h1)).toBe(true);
    expect(await verifyPassword('hunter23', h1)).toBe(false);
    expect(await verifyPassword('x', 'garbage')).toBe(false);
  });
  it('sealed secrets decrypt only with the key', async () => {
    const s = await encryptSecret('db-password', 'k1');
    expect(s).not.toContain('db-password');
    expect(await decryptSecret(s, 'k1')).toBe('db-password');
    await expect(decryptSecret(s, 'k2')).rejects.toThrow();
  });
  it('timingSafeEqual compares exactly', () => {
    expect(timingSafeEqual('abc', 'abc')).toBe(true);
    expect(timingSafeEqual('abc', 'abd')).toBe(false);
    expect(timingSafeEqual('abc', 'abcd')).toBe(false);
  });
  it('ids carry their prefix and are unique', () => {
    const ids = new Set(Array.from({ length: 1000 }, () => newId('dashboard')));
    expect(ids.size).toBe(1000);
    for (const id of ids) expect(id).toMatch(/^dsh_[0-9A-Za-z]{20}$/);
  });
});

describe('permissions', () => {
  it('parses spec names', () => {
    expect(parsePermission('View Dashboards')).toBe('view_dashboards');
    expect(parsePermission('include-sql-details')).toBe('include_sql_details');
    expect(parsePermission('admin')).toBeNull();
  });
  it('manage implies view; restrictions apply per resource type', () => {
    const g = [{ permission: 'manage_dashboards' as const, resources: [{ type: 'dashboards' as const, id: 'd1' }] }];
    expect(allows(g, 'view_dashboards', { type: 'dashboards', id: 'd1' })).toBe(true);
    expect(allows(g, 'view_dashboards', { type: 'dashboards', id: 'd2' })).toBe(false);
    expect(allows(g, 'view_users')).toBe(false);
  });
  it('roles: viewers read, analysts build, admins administer', () => {
    const names = (r: 'viewer' | 'analyst' | 'admin') => permissionsForRole(r).map((g) => g.permission);
    expect(names('viewer')).not.toContain('manage_dashboards');
    expect(names('analyst')).toContain('manage_dashboards');
    expect(names('analyst')).not.toContain('manage_users');
    expect(names('admin')).toContain('manage_users');
  });
});

describe('database outages', () => {
  it('connection failures and resource limits are "unavailable", SQL errors are not', async () => {
    const { isDatabaseUnavailable } = await import('../src/index.ts');
    for (const code of ['ECONNREFUSED', 'CONNECTION_CLOSED', '53300', '08006', '57P01']) expect(isDatabaseUnavailable({ code })).toBe(true);
    for (const code of ['42601', '42501', '22P02', undefined]) expect(isDatabaseUnavailable({ code })).toBe(false);
  });
});
