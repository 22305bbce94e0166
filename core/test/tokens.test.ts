import { describe, expect, it } from 'vitest';
import {
  allows,
  generateApiKey,
  hashPassword,
  parseApiKey,
  regionToken,
  tokenRegion,
  parsePermission,
  permissionsForRole,
  signDataToken,
  timingSafeEqual,
  verifyDataToken,
  verifyPassword,
  encryptSecret,
  decryptSecret,
  newId,
  signProcessToken,
  verifyProcessToken,
  DATA_TOKEN_TTL_SECONDS,
} from '../src/index.ts';
import { csvOptionsFrom } from '../src/export/options.ts';

describe('data tokens', () => {
  const base = { kind: 'data' as const, org: 'org_1', key: 'eu/org_1/exe_1/abc', region: 'eu' as const };
  const processBase = {
    kind: 'process' as const,
    org: 'org_1',
    region: 'eu' as const,
    format: 'csv_zip' as const,
    items: [{ key: 'eu/org_1/exe_1/abc', name: 'Revenue', id: 'rpt_1' }],
    csv: { column_separator: 'semicolon' as const, decimal_separator: 'comma' as const, quote_style: 'always' as const },
  };

  it('round-trips and expires', async () => {
    const t = await signDataToken(base, 's', 1_000_000);
    await expect(verifyDataToken(t, 's', { region: 'eu' }, 1_000_000)).resolves.toMatchObject(base);
    await expect(verifyDataToken(t, 's', { region: 'eu' }, 1_000_000 + 299_000)).resolves.toMatchObject(base);
    await expect(verifyDataToken(t, 's', { region: 'eu' }, 1_000_000 + 300_000)).rejects.toMatchObject({ code: 'data_token_expired', status: 401 });
  });

  it('carries the download format, CSV options and file name', async () => {
    const csv = { column_separator: 'tab' as const, decimal_separator: 'comma' as const, quote_style: 'necessary' as const };
    const t = await signDataToken({ ...base, format: 'csv', csv, name: 'Umsätze 2024' }, 's');
    const claims = await verifyDataToken(t, 's', { region: 'eu' });
    expect(claims).toMatchObject({ format: 'csv', csv, name: 'Umsätze 2024' });
  });

  it('never lives longer than five minutes', async () => {
    const now = 1_700_000_000_000;
    const t = await signDataToken({ ...base, exp: now / 1000 + 3600 }, 's', now);
    const claims = await verifyDataToken(t, 's', { region: 'eu' }, now);
    expect(claims.exp).toBe(now / 1000 + DATA_TOKEN_TTL_SECONDS);
  });

  it('refuses a tampered body or a wrong secret', async () => {
    const t = await signDataToken(base, 's');
    const [body, sig] = t.split('.');
    const forged = Buffer.from(JSON.stringify({ ...base, org: 'org_2', exp: 9e9 })).toString('base64url');
    await expect(verifyDataToken(`${forged}.${sig}`, 's', { region: 'eu' })).rejects.toMatchObject({ code: 'invalid_data_token' });
    await expect(verifyDataToken(`${body}.${sig}`, 'other', { region: 'eu' })).rejects.toMatchObject({ code: 'invalid_data_token' });
    await expect(verifyDataToken(`${body}.${sig!.slice(0, -2)}`, 's', { region: 'eu' })).rejects.toMatchObject({ code: 'invalid_data_token' });
  });

  it('refuses malformed tokens as invalid, not as errors', async () => {
    const json = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
    for (const t of ['', 'abc', 'a.b.c', '.sig', 'body.', '%%%.%%%', `${json(null)}.c2ln`, `${json({ kind: 'data' })}.c2ln`, `${json('x')}.c2ln`]) {
      await expect(verifyDataToken(t, 's', { region: 'eu' }), t).rejects.toMatchObject({ code: 'invalid_data_token', status: 401 });
    }
  });

  it('refuses crafted claims (a region, kind or org that is no string, an unknown region) as invalid, never as an error', async () => {
    const json = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
    const claims = { kind: 'data', org: 'org_1', key: 'eu/org_1/exe_1/abc', exp: 9e9 };
    const crafted: Record<string, unknown>[] = [
      { ...claims, region: { toString: 'x' } },
      { ...claims, region: { valueOf: 1, toString: 2 } },
      { ...claims, region: ['eu'] },
      { ...claims, region: 7 },
      { ...claims, region: null },
      { ...claims, region: 'mars' },
      { ...claims, region: 'eu', kind: { toString: 'x' } },
      { ...claims, region: 'eu', org: { a: 1 } },
    ];
    for (const c of crafted) {
      const t = `${json(c)}.c2ln`;
      await expect(verifyDataToken(t, 's', { region: 'eu' }), JSON.stringify(c)).rejects.toMatchObject({ code: 'invalid_data_token', status: 401 });
      await expect(verifyProcessToken(t, 's', { region: 'eu' }), JSON.stringify(c)).rejects.toMatchObject({ code: 'invalid_data_token', status: 401 });
    }
  });

  it('names the other region before looking at the signature', async () => {
    const t = await signDataToken({ ...base, region: 'us' }, 'the-us-secret');
    const err = await verifyDataToken(t, 's', { region: 'eu' }).catch((e) => e);
    expect(err).toMatchObject({ code: 'wrong_region', status: 403 });
    expect(err.message).toContain('"us"');
    await expect(verifyProcessToken(await signProcessToken({ ...processBase, region: 'us' }, 'x'), 's', { region: 'eu' })).rejects.toMatchObject({
      code: 'wrong_region',
    });
  });

  it('an expired token of the other region is still sent to its region', async () => {
    const t = await signDataToken({ ...base, region: 'us', exp: 1 }, 'x');
    await expect(verifyDataToken(t, 's', { region: 'eu' })).rejects.toMatchObject({ code: 'wrong_region' });
  });

  it('each call takes its own kind of token', async () => {
    const data = await signDataToken(base, 's');
    const schema = await signDataToken({ ...base, kind: 'schema' }, 's');
    const proc = await signProcessToken(processBase, 's');
    await expect(verifyDataToken(proc, 's', { region: 'eu' })).rejects.toMatchObject({
      code: 'invalid_data_token',
      message: expect.stringContaining('process token'),
    });
    await expect(verifyDataToken(schema, 's', { region: 'eu' })).rejects.toMatchObject({ code: 'invalid_data_token' });
    await expect(verifyDataToken(data, 's', { region: 'eu', kind: 'schema' })).rejects.toMatchObject({ code: 'invalid_data_token' });
    await expect(verifyProcessToken(data, 's', { region: 'eu' })).rejects.toMatchObject({
      code: 'invalid_data_token',
      message: expect.stringContaining('data process token'),
    });
    await expect(verifyDataToken(schema, 's', { region: 'eu', kind: 'schema' })).resolves.toMatchObject({ kind: 'schema' });
  });

  it('process tokens carry their results, format and CSV options', async () => {
    const t = await signProcessToken({ ...processBase, name: 'Sales' }, 's', 5_000_000);
    const claims = await verifyProcessToken(t, 's', { region: 'eu' }, 5_000_000);
    expect(claims).toMatchObject({ ...processBase, name: 'Sales', exp: 5_000 + 300 });
    await expect(verifyProcessToken(t, 's', { region: 'eu' }, 5_000_000 + 300_000)).rejects.toMatchObject({ code: 'data_token_expired' });
    await expect(verifyProcessToken(t, 'other', { region: 'eu' }, 5_000_000)).rejects.toMatchObject({ code: 'invalid_data_token' });
  });
});

describe('signed claims of the wrong shape', () => {
  // Only the API signs tokens, but a claim the data server cannot use must be a 401 at the door, not a
  // 500 (or a download that breaks off) further in.
  const now = 1_000_000;
  const data = { kind: 'data' as const, org: 'org_1', key: 'eu/org_1/exe_1/abc', region: 'eu' as const };
  const proc = {
    kind: 'process' as const,
    org: 'org_1',
    region: 'eu' as const,
    format: 'json' as const,
    items: [{ key: 'eu/org_1/exe_1/abc', name: 'R', id: 'rpt_1' }],
  };
  const bad = (over: Record<string, unknown>) => ({ over, why: JSON.stringify(over) });

  it('data and schema tokens: key, org, format, CSV options and name', async () => {
    for (const { over, why } of [
      bad({ key: 7 }),
      bad({ key: 'a\u0000b' }),
      bad({ org: 'org\u0000' }),
      bad({ org: '\uD800' }),
      bad({ format: 'pdf' }),
      bad({ format: ['csv'] }),
      bad({ format: 'csv', csv: 'semicolon' }),
      bad({ format: 'csv', csv: { column_separator: 'pipe', decimal_separator: 'point', quote_style: 'necessary' } }),
      bad({ format: 'csv', csv: {} }),
      bad({ name: { trim: 1 } }),
      bad({ name: 12 }),
      bad({ name: 'a\uDC00' }),
    ]) {
      const t = await signDataToken({ ...data, ...over } as never, 's', now);
      await expect(verifyDataToken(t, 's', { region: 'eu' }, now), why).rejects.toMatchObject({ code: 'invalid_data_token', status: 401 });
    }
    const fine = await signDataToken(
      { ...data, format: 'csv', name: 'Umsätze 👩‍👩‍👧', csv: { column_separator: 'tab', decimal_separator: 'comma', quote_style: 'always' } },
      's',
      now,
    );
    await expect(verifyDataToken(fine, 's', { region: 'eu' }, now)).resolves.toMatchObject({ name: 'Umsätze 👩‍👩‍👧' });
  });

  it('process tokens: items, format, CSV options and name', async () => {
    for (const { over, why } of [
      bad({ items: 'abc' }),
      bad({ items: null }),
      bad({ items: [null] }),
      bad({ items: [{ key: 1, name: 'R', id: 'r' }] }),
      bad({ items: [{ key: 'k', id: 'r' }] }),
      bad({ items: [{ key: 'k\u0000', name: 'R', id: 'r' }] }),
      bad({ format: 'csv' }),
      bad({ format: undefined }),
      bad({ csv: [] }),
      bad({ name: [] }),
    ]) {
      const t = await signProcessToken({ ...proc, ...over } as never, 's', now);
      await expect(verifyProcessToken(t, 's', { region: 'eu' }, now), why).rejects.toMatchObject({ code: 'invalid_data_token', status: 401 });
    }
    await expect(verifyProcessToken(await signProcessToken({ ...proc, items: [] }, 's', now), 's', { region: 'eu' }, now)).resolves.toMatchObject({
      items: [],
    });
  });
});

describe('CSV options of download calls', () => {
  it('fills in the defaults', () => {
    expect(csvOptionsFrom({})).toEqual({ column_separator: 'comma', decimal_separator: 'point', quote_style: 'necessary' });
  });
  it('a decimal comma needs another column separator', () => {
    expect(() => csvOptionsFrom({ csv_decimal_separator: 'comma' })).toThrow(
      expect.objectContaining({
        code: 'invalid_attribute',
        status: 422,
        source: { pointer: '/csv_decimal_separator' },
      }),
    );
    expect(csvOptionsFrom({ csv_decimal_separator: 'comma', csv_column_separator: 'semicolon' }).decimal_separator).toBe('comma');
    expect(csvOptionsFrom({ csv_decimal_separator: 'comma', csv_column_separator: 'tab' }).column_separator).toBe('tab');
    expect(csvOptionsFrom({ csv_decimal_separator: 'slash', csv_quote_style: 'always' })).toMatchObject({ decimal_separator: 'slash', quote_style: 'always' });
  });
});

describe('secrets', () => {
  it('API keys parse and reject look-alikes', () => {
    const k = generateApiKey();
    expect(parseApiKey(k.full)).toEqual({ keyId: k.keyId, secret: k.secret });
    expect(parseApiKey(k.full + 'x')).toBeNull();
    expect(parseApiKey('cairn_short_secret')).toBeNull();
  });
  it('API keys and tokens carry their region (D53)', () => {
    const us = generateApiKey('us');
    expect(us.full).toMatch(/^cairn_us_[0-9A-Za-z]{12}_[0-9A-Za-z]{40}$/);
    expect(parseApiKey(us.full)).toEqual({ keyId: us.keyId, secret: us.secret, region: 'us' });
    expect(parseApiKey(us.full.replace('cairn_us_', 'cairn_xx_'))).toBeNull();
    const t = regionToken('eu');
    expect(t).toMatch(/^eu_[0-9A-Za-z]{48}$/);
    expect(tokenRegion(t)).toBe('eu');
    expect(tokenRegion(regionToken('us', 20))).toBe('us');
    expect(tokenRegion('abcdefghijklmnopqrstuvwx')).toBeNull();
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
    // Wrapped by drizzle (cause), or only a message left after a Durable Object's RPC boundary.
    expect(isDatabaseUnavailable(new Error('Failed query: select 1', { cause: Object.assign(new Error('x'), { code: '53300' }) }))).toBe(true);
    expect(isDatabaseUnavailable(new Error('sorry, too many clients already'))).toBe(true);
    expect(isDatabaseUnavailable(new Error('Failed query: select 1', { cause: Object.assign(new Error('syntax'), { code: '42601' }) }))).toBe(false);
  });
});
