import { beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { newId } from '@cairn/core';
import { auditLog, datasources, organizations, users } from '@cairn/db';
import type { CreateOrganizationResult } from '@cairn/db/seed/organization';
import { call, db, jsonApi, makeKey, makeOrg, makeUser, only } from '../../../test/fixtures.ts';
import { expectJsonApiDocument } from '../../../test/jsonapi-schema.ts';

let org: CreateOrganizationResult;
let other: CreateOrganizationResult;
let admin: { id: string; session: string };

const patch = (attributes: Record<string, unknown>, who: { session?: string; key?: string } = { session: admin.session }, id = org.organization.id) =>
  jsonApi('/organization', 'PATCH', { type: 'organizations', id, attributes }, who);

beforeAll(async () => {
  [org, other] = await Promise.all([makeOrg('organization'), makeOrg('organization-other')]);
  admin = await makeUser(org.organization.id, 'admin');
});

describe('GET /organization', () => {
  it('shows settings, region and plan limits with their use (seats: analysts and admins not deactivated)', async () => {
    const res = await call('/organization', { session: admin.session });
    expect(res.status).toBe(200);
    expectJsonApiDocument(res.json);
    const a = res.json.data.attributes;
    expect(res.json.data).toMatchObject({ type: 'organizations', id: org.organization.id });
    expect(a).toMatchObject({ name: org.organization.name, time_zone: 'UTC', region: 'eu', plan_analyst_seats: null, plan_datasources: null });
    // The seed's admin and ours; the sample datasource does not count.
    expect(a.analyst_seats_used).toBe(2);
    expect(a.datasources_used).toBe(0);

    await makeUser(org.organization.id, 'analyst');
    const viewer = await makeUser(org.organization.id, 'viewer');
    const gone = await makeUser(org.organization.id, 'analyst');
    await db().update(users).set({ deactivated_at: new Date() }).where(eq(users.id, gone.id));
    await db()
      .insert(datasources)
      .values({
        id: newId('datasource'),
        organization_id: org.organization.id,
        name: 'Warehouse',
        database_type: 'postgres',
        connection_mode: 'direct',
      } as typeof datasources.$inferInsert);
    const after = (await call('/organization', { session: admin.session })).json.data.attributes;
    expect(after.analyst_seats_used).toBe(3);
    expect(after.datasources_used).toBe(1);
    expect(viewer.id).toBeTruthy();
  });

  it('needs Manage Users: admins and keys holding it; analysts, viewers and other keys get 403', async () => {
    const analyst = await makeUser(org.organization.id, 'analyst');
    const viewer = await makeUser(org.organization.id, 'viewer');
    expect((await call('/organization', { session: analyst.session })).status).toBe(403);
    expect((await call('/organization', { session: viewer.session })).status).toBe(403);
    expect((await call('/organization', { key: await makeKey(org.organization.id, only('view_users')) })).status).toBe(403);
    const byKey = await call('/organization', { key: await makeKey(org.organization.id, only('manage_users')) });
    expect(byKey.status).toBe(200);
    expect(byKey.json.data.id).toBe(org.organization.id);
    expect((await call('/organization')).status).toBe(401);
  });
});

describe('PATCH /organization', () => {
  it('changes name and time zone (only what is sent) and audits it', async () => {
    const res = await patch({ time_zone: 'Europe/Berlin' });
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    expectJsonApiDocument(res.json);
    expect(res.json.data.attributes).toMatchObject({ time_zone: 'Europe/Berlin', name: org.organization.name });
    const renamed = await patch({ name: '  Acme Analytics  ' });
    expect(renamed.json.data.attributes).toMatchObject({ name: 'Acme Analytics', time_zone: 'Europe/Berlin' });
    const [row] = await db().select().from(organizations).where(eq(organizations.id, org.organization.id));
    expect(row).toMatchObject({ name: 'Acme Analytics', time_zone: 'Europe/Berlin' });
    const audited = await db().select().from(auditLog).where(eq(auditLog.resource_id, org.organization.id));
    expect(audited.filter((a) => a.action === 'update').map((a) => a.details)).toContainEqual({ attributes: ['name'] });
    // The session answer follows (the app header shows it).
    expect((await call('/auth/session', { session: admin.session })).json.organization.name).toBe('Acme Analytics');
  });

  it('refuses bad values, read-only attributes and another id', async () => {
    const tz = await patch({ time_zone: 'Mars/Olympus' });
    expect(tz.status).toBe(422);
    expect(tz.json.errors[0]).toMatchObject({ code: 'invalid_attribute', source: { pointer: '/data/attributes/time_zone' } });
    expect((await patch({ name: '' })).json.errors[0].source.pointer).toBe('/data/attributes/name');
    const ro = await patch({ plan_analyst_seats: 1000 });
    expect(ro.json.errors[0]).toMatchObject({ code: 'read_only_attribute', source: { pointer: '/data/attributes/plan_analyst_seats' } });
    expect((await patch({ region: 'us' })).json.errors[0].code).toBe('read_only_attribute');
    expect((await patch({ color: 'red' })).json.errors[0].code).toBe('unknown_attribute');
    // Another organization's id is a conflict with the caller's own organization, never a write there.
    expect((await patch({ name: 'Hijack' }, { session: admin.session }, other.organization.id)).status).toBe(409);
    const [theirs] = await db().select().from(organizations).where(eq(organizations.id, other.organization.id));
    expect(theirs!.name).not.toBe('Hijack');
    const plain = await call('/organization', {
      method: 'PATCH',
      session: admin.session,
      body: { data: { type: 'organizations', id: org.organization.id, attributes: { name: 'x' } } },
    });
    expect(plain.status).toBe(415);
  });

  it('is for admins in the app only: analysts and every API key get 403', async () => {
    const analyst = await makeUser(org.organization.id, 'analyst');
    const asAnalyst = await patch({ name: 'Nope' }, { session: analyst.session });
    expect(asAnalyst.status).toBe(403);
    expect(asAnalyst.json.errors[0].code).toBe('forbidden');
    const asKey = await patch({ name: 'Nope' }, { key: await makeKey(org.organization.id) });
    expect(asKey.status).toBe(403);
    expect(asKey.json.errors[0].detail).toContain('API keys');
  });
});
