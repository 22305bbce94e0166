/**
 * API keys' last_used_at (issue 15): written when a key authenticates, at most once a minute per key,
 * without touching updated_at; the admin API shows it. Sessions write nothing.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { apiKeys } from '@cairn/db';
import { parseApiKey } from '@cairn/core';
import { call, db, makeKey, makeOrg, makeUser } from '../../../test/fixtures.ts';
import type { CreateOrganizationResult } from '@cairn/db/seed/organization';

let org: CreateOrganizationResult;
let admin: { id: string; session: string };

beforeAll(async () => {
  org = await makeOrg('api-keys-last-used');
  admin = await makeUser(org.organization.id, 'admin');
});

const rowOf = async (secret: string) =>
  (
    await db()
      .select()
      .from(apiKeys)
      .where(eq(apiKeys.key_id, parseApiKey(secret)!.keyId))
  )[0]!;

async function lastUsed(secret: string, ms = 5_000): Promise<Date | null> {
  const until = Date.now() + ms;
  for (;;) {
    const row = await rowOf(secret);
    if (row.last_used_at || Date.now() > until) return row.last_used_at;
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('API key last used', () => {
  it('is written on authentication, shown by the API, and not written again within a minute', async () => {
    const secret = await makeKey(org.organization.id);
    const before = await rowOf(secret);
    expect(before.last_used_at).toBeNull();
    const startedAt = Date.now();
    expect((await call('/dashboards', { key: secret })).status).toBe(200);
    const first = await lastUsed(secret);
    expect(first, 'last_used_at written').not.toBeNull();
    expect(first!.getTime()).toBeGreaterThanOrEqual(startedAt - 1_000);
    expect(first!.getTime()).toBeLessThanOrEqual(Date.now() + 1_000);
    // The key was used, not edited.
    expect((await rowOf(secret)).updated_at.getTime()).toBe(before.updated_at.getTime());

    // Within the minute: more uses, no new write.
    for (let i = 0; i < 3; i++) expect((await call('/dashboards', { key: secret })).status).toBe(200);
    await new Promise((r) => setTimeout(r, 300));
    expect((await rowOf(secret)).last_used_at!.getTime()).toBe(first!.getTime());

    // The admin list and the key itself show it.
    const list = await call('/api_keys', { session: admin.session });
    const mine = list.json.data.find((k: any) => k.id === before.id);
    expect(mine.attributes.last_used_at).toBe(first!.toISOString());
    const got = await call(`/api_keys/${before.id}`, { session: admin.session });
    expect(got.json.data.attributes.last_used_at).toBe(first!.toISOString());
  });

  it('a wrong secret or a disabled key writes nothing', async () => {
    const secret = await makeKey(org.organization.id);
    const wrong = secret.slice(0, -4) + (secret.endsWith('AAAA') ? 'BBBB' : 'AAAA');
    expect((await call('/dashboards', { key: wrong })).status).toBe(401);
    const row = await rowOf(secret);
    await db().update(apiKeys).set({ enabled: false }).where(eq(apiKeys.id, row.id));
    expect((await call('/dashboards', { key: secret })).status).toBe(401);
    await new Promise((r) => setTimeout(r, 300));
    expect((await rowOf(secret)).last_used_at).toBeNull();
  });
});
