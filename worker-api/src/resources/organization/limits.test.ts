/**
 * Organization limits (issue 15): a new organization has no analyst-seat or datasource cap; the API
 * enforces a limit only once the operator set one (422 plan_limit), and GET /organization shows the
 * limits as null until then.
 */
import { describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { organizations } from '@cairn/db';
import { call, db, jsonApi, makeKey, makeOrg } from '../../../test/fixtures.ts';

const email = (tag: string) => `${tag}-${Math.random().toString(36).slice(2, 10)}@example.test`;
const pg = () => ({
  type: 'datasources',
  attributes: { name: `PG ${Math.random().toString(36).slice(2, 7)}`, database_type: 'postgres', connection_mode: 'direct', host: 'db.example.test' },
});
const limit = (organizationId: string, set: { plan_analyst_seats?: number | null; plan_datasources?: number | null }) =>
  db().update(organizations).set(set).where(eq(organizations.id, organizationId));

describe('organization limits', () => {
  it('a new organization has none: more than ten analysts and datasources are fine', async () => {
    const org = await makeOrg('limits-none');
    const key = await makeKey(org.organization.id);
    const got = await call('/organization', { key });
    expect(got.status).toBe(200);
    expect(got.json.data.attributes).toMatchObject({ plan_analyst_seats: null, plan_datasources: null, analyst_seats_used: 1, datasources_used: 0 });
    for (let i = 0; i < 11; i++) {
      const res = await call('/users/invite', { key, method: 'POST', body: { email: email('analyst'), role: 'analyst' } });
      expect(res.status, JSON.stringify(res.json)).toBe(201);
    }
    for (let i = 0; i < 11; i++) expect((await jsonApi('/datasources', 'POST', pg(), key)).status).toBe(201);
    expect((await call('/organization', { key })).json.data.attributes).toMatchObject({ analyst_seats_used: 12, datasources_used: 11 });
  });

  it('a limit the operator set is enforced, shown, and lifted again', async () => {
    const org = await makeOrg('limits-set');
    const key = await makeKey(org.organization.id);
    await limit(org.organization.id, { plan_analyst_seats: 2, plan_datasources: 1 });
    expect((await call('/organization', { key })).json.data.attributes).toMatchObject({ plan_analyst_seats: 2, plan_datasources: 1 });
    expect((await call('/users/invite', { key, method: 'POST', body: { email: email('one'), role: 'analyst' } })).status).toBe(201);
    const seat = await call('/users/invite', { key, method: 'POST', body: { email: email('two'), role: 'analyst' } });
    expect(seat.status).toBe(422);
    expect(seat.json.errors[0]).toMatchObject({ status: '422', code: 'plan_limit', source: { pointer: '/data/attributes/role' } });
    expect(seat.json.errors[0].detail).toMatch(/All 2 analyst seats/);
    // Viewers take no seat.
    expect((await call('/users/invite', { key, method: 'POST', body: { email: email('viewer'), role: 'viewer' } })).status).toBe(201);
    expect((await jsonApi('/datasources', 'POST', pg(), key)).status).toBe(201);
    const ds = await jsonApi('/datasources', 'POST', pg(), key);
    expect(ds.status).toBe(422);
    expect(ds.json.errors[0]).toMatchObject({ code: 'plan_limit' });
    expect(ds.json.errors[0].detail).toMatch(/may have 1 datasources/);

    await limit(org.organization.id, { plan_analyst_seats: null, plan_datasources: null });
    expect((await call('/users/invite', { key, method: 'POST', body: { email: email('three'), role: 'analyst' } })).status).toBe(201);
    expect((await jsonApi('/datasources', 'POST', pg(), key)).status).toBe(201);
    expect((await call('/organization', { key })).json.data.attributes).toMatchObject({ plan_analyst_seats: null, plan_datasources: null });
  });

  it('the limits stay read-only through the API', async () => {
    const org = await makeOrg('limits-ro');
    const key = await makeKey(org.organization.id);
    const res = await jsonApi('/organization', 'PATCH', { type: 'organizations', id: org.organization.id, attributes: { plan_datasources: null } }, key);
    expect(res.status).toBe(422);
    expect(res.json.errors[0]).toMatchObject({ code: 'read_only_attribute', source: { pointer: '/data/attributes/plan_datasources' } });
  });
});
