/**
 * The shared security suite: every endpoint that test/security/*.ts lists is called with no key, a
 * malformed key, a disabled key, a key lacking the endpoint's permission, a key restricted to another
 * resource, and another organization's key — and once with the right permission. Every answer must
 * be a valid JSON:API document.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { apiKeys } from '@cairn/db';
import { IMPLIED_BY, PERMISSIONS, type Grant, type Permission } from '@cairn/core';
import { call, db, keyIdOf, makeKey, makeOrg, makeRawKey, type CallOptions } from './fixtures.ts';
import { expectJsonApiDocument } from './jsonapi-schema.ts';
import type { SecurityCase, SecurityCaseFactory } from './security/cases.ts';
import { securityGaps } from './security/completeness.ts';
import { operations } from './route-catalog.ts';

const modules = import.meta.glob<{ securityCases?: SecurityCaseFactory }>('./security/*.ts', { eager: true });
const factories = Object.entries(modules).flatMap(([file, m]) =>
  m.securityCases ? [{ name: file.replace(/^.*\/(.*)\.ts$/, '$1'), make: m.securityCases }] : [],
);

let cases: { module: string; c: SecurityCase }[] = [];
let disabledKey = '';
let otherOrgKey = '';
const keyCache = new Map<string, string>();
let orgId = '';

async function keyWith(grants: Grant[]) {
  const id = JSON.stringify(grants);
  // Inserted as is: restrictions may name ids that do not exist (another resource of the type).
  if (!keyCache.has(id)) keyCache.set(id, await makeRawKey(orgId, grants));
  return keyCache.get(id)!;
}

/** Every permission except the ones that would let this call through (a manage permission implies its view). */
function lacking(perms: Permission[]): Grant[] {
  const removed = new Set<Permission>(perms);
  for (const p of perms) if (IMPLIED_BY[p]) removed.add(IMPLIED_BY[p]!);
  return PERMISSIONS.filter((p) => !removed.has(p)).map((permission) => ({ permission, resources: null }));
}

function send(c: SecurityCase, o: CallOptions) {
  return call(c.path, {
    ...o,
    method: c.method,
    ...(c.body !== undefined ? { body: c.body, contentType: c.jsonapi ? 'application/vnd.api+json' : 'application/json' } : {}),
  });
}

beforeAll(async () => {
  const org = await makeOrg('security-suite');
  orgId = org.organization.id;
  const key = await makeKey(orgId);
  for (const f of factories) {
    for (const c of await f.make({ org, key })) cases.push({ module: f.name, c });
  }
  // Deletes last, so every other case still finds its resource.
  cases = [...cases.filter((x) => x.c.method !== 'DELETE'), ...cases.filter((x) => x.c.method === 'DELETE')];
  disabledKey = await makeKey(orgId);
  await db()
    .update(apiKeys)
    .set({ enabled: false })
    .where(eq(apiKeys.key_id, keyIdOf(disabledKey)));
  const other = await makeOrg('security-intruder');
  otherOrgKey = await makeKey(other.organization.id);
}, 120_000);

const label = (x: { module: string; c: SecurityCase }) => `${x.module}: ${x.c.method} ${x.c.path}`;

describe('shared security suite', () => {
  it('lists endpoints from every resource module', () => {
    expect(factories.length).toBeGreaterThan(0);
    expect(cases.length).toBeGreaterThan(factories.length);
  });

  it('has a case, or a reasoned exemption (security/completeness.ts), for every keyed operation of the OpenAPI document', async () => {
    const gaps = securityGaps(
      await operations(),
      cases.map((x) => x.c),
    );
    expect(gaps).toEqual({ uncovered: [], staleExemptions: [], unreasoned: [] });
  });

  it('the completeness check reports a route without a case, and an exemption without a reason or a route', () => {
    const ops = [
      { method: 'GET' as const, path: '/widgets/{id}', public: false },
      { method: 'GET' as const, path: '/widgets/{id}/parts', public: false },
      { method: 'POST' as const, path: '/widgets/{id}', public: false },
      { method: 'GET' as const, path: '/public/widgets/{token}', public: true },
    ];
    const gaps = securityGaps(ops, [{ method: 'GET', path: '/widgets/w1' }], {
      'GET /widgets/{id}/parts': 'tbd',
      'DELETE /gone': 'removed long ago, kept by mistake',
    });
    expect(gaps).toEqual({ uncovered: ['POST /widgets/{id}'], staleExemptions: ['DELETE /gone'], unreasoned: ['GET /widgets/{id}/parts'] });
  });

  it('401 without a key, with a malformed key and with a disabled key', async () => {
    for (const x of cases) {
      for (const [o, code] of [
        [{}, 'unauthorized'],
        [{ key: 'cairn_nope' }, 'invalid_api_key'],
        [{ key: disabledKey }, 'api_key_disabled'],
      ] as const) {
        const res = await send(x.c, o);
        expect(res.status, `${label(x)} (${code})`).toBe(401);
        expectJsonApiDocument(res.json);
        expect(res.json.errors[0].code, label(x)).toBe(code);
      }
    }
  });

  it('403 for a key without the permission', async () => {
    for (const x of cases) {
      const res = await send(x.c, { key: await keyWith(lacking(x.c.permissions)) });
      expect(res.status, `${label(x)} → ${JSON.stringify(res.json)}`).toBe(403);
      expectJsonApiDocument(res.json);
      expect(res.json.errors[0].code).toBe('forbidden');
    }
  });

  it('403 or 404 for a key restricted to another resource', async () => {
    for (const x of cases.filter((y) => y.c.restrictedTo)) {
      const grants = x.c.permissions.map((permission) => ({
        permission,
        resources: [{ type: x.c.restrictedTo!.type, id: `${x.c.restrictedTo!.id}_other` }],
      }));
      const res = await send(x.c, { key: await keyWith(grants) });
      expect([403, 404], `${label(x)} → ${res.status}`).toContain(res.status);
      expectJsonApiDocument(res.json);
    }
  });

  it("404 for another organization's resource", async () => {
    for (const x of cases.filter((y) => y.c.ownsResource !== false)) {
      const res = await send(x.c, { key: otherOrgKey });
      expect(res.status, `${label(x)} → ${JSON.stringify(res.json)}`).toBe(404);
      expectJsonApiDocument(res.json);
    }
  });

  it('passes the permission check with exactly the permission it needs', async () => {
    for (const x of cases) {
      const grants = x.c.permissions.slice(0, 1).map((permission) => ({ permission, resources: null }));
      const res = await send(x.c, { key: await keyWith(grants) });
      expect([401, 403, 404, 500], `${label(x)} → ${res.status} ${JSON.stringify(res.json)}`).not.toContain(res.status);
      // Action answers are plain JSON (application/json), a thumbnail an image; everything else must be a JSON:API document.
      const type = res.headers.get('content-type') ?? '';
      if (res.json && type.startsWith('application/json')) expect(res.json).toBeTypeOf('object');
      else if (res.json && !type.startsWith('image/')) expectJsonApiDocument(res.json);
    }
  });
});
