/**
 * Writes and their audit rows commit together (lib/transaction.ts withTransaction): a write that fails
 * leaves no audit row, one that succeeds leaves exactly one. Run on both database access paths.
 */
import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { auditLog, createDb, userGroups } from '@cairn/db';
import { newId } from '@cairn/core';
import type { Env } from '../src/env.ts';
import { withTransaction } from '../src/lib/transaction.ts';
import { db, jsonApi, makeKey, makeOrg } from './fixtures.ts';

const rowsOf = (organizationId: string, resourceId: string) =>
  db()
    .select({ action: auditLog.action })
    .from(auditLog)
    .where(and(eq(auditLog.organization_id, organizationId), eq(auditLog.resource_id, resourceId)));

describe('withTransaction', () => {
  it('writes the audit row in the transaction: none when the work fails after it, one when it commits', async () => {
    const org = await makeOrg('audit-tx');
    const organizationId = org.organization.id;
    const client = createDb((env as unknown as Env).HYPERDRIVE.connectionString, { max: 1 });
    const ctx = {
      direct: () => client,
      principal: { kind: 'api_key' as const, organizationId, apiKeyId: 'key_audit_tx', grants: [] },
      requestId: `audit-tx-${newId('user_group')}`,
    };
    const make = (id: string) =>
      withTransaction(ctx, async ({ tx, audit }) => {
        await tx.insert(userGroups).values({ id, organization_id: organizationId, name: `Group ${id}` });
        await audit('create', 'user_groups', id);
      });
    const failed = newId('user_group');
    await expect(
      withTransaction(ctx, async ({ tx, audit }) => {
        await tx.insert(userGroups).values({ id: failed, organization_id: organizationId, name: 'Never kept' });
        await audit('create', 'user_groups', failed);
        throw new Error('the write fails after its audit row');
      }),
    ).rejects.toThrow(/fails after/);
    expect(await rowsOf(organizationId, failed)).toEqual([]);
    expect(await db().select().from(userGroups).where(eq(userGroups.id, failed))).toEqual([]);
    const kept = newId('user_group');
    await make(kept);
    expect(await rowsOf(organizationId, kept)).toEqual([{ action: 'create' }]);
    await client.sql.end({ timeout: 5 });
  });

  it('through the API: a refused update leaves no audit row, a successful one exactly one', async () => {
    const org = await makeOrg('audit-tx-api');
    const key = await makeKey(org.organization.id);
    const made = await jsonApi('/user_groups', 'POST', { type: 'user_groups', attributes: { name: 'Audited' } }, key);
    const id = made.json.data.id as string;
    expect(await rowsOf(org.organization.id, id)).toEqual([{ action: 'create' }]);
    // A member that is no user of the organization: refused, nothing written, nothing audited.
    const refused = await jsonApi(
      `/user_groups/${id}`,
      'PATCH',
      { type: 'user_groups', id, relationships: { users: { data: [{ type: 'users', id: 'usr_nobody' }] } } },
      key,
    );
    expect(refused.status).toBeGreaterThanOrEqual(400);
    expect(await rowsOf(org.organization.id, id)).toEqual([{ action: 'create' }]);
    const updated = await jsonApi(`/user_groups/${id}`, 'PATCH', { type: 'user_groups', id, attributes: { description: 'changed' } }, key);
    expect(updated.status).toBe(200);
    expect((await rowsOf(org.organization.id, id)).map((r) => r.action).sort()).toEqual(['create', 'update']);
  });
});
