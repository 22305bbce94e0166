import { beforeAll, describe, expect, it } from 'vitest';
import { call, jsonApi, makeKey, makeOrg, makeUser } from '../../../test/fixtures.ts';
import { expectJsonApiDocument } from '../../../test/jsonapi-schema.ts';
import type { CreateOrganizationResult } from '@cairn/db/seed/organization';

let org: CreateOrganizationResult;
let admin: { id: string; session: string };
const keyBody = (attributes: Record<string, unknown>) => ({ type: 'api_keys', attributes });

beforeAll(async () => {
  org = await makeOrg('api-keys');
  admin = await makeUser(org.organization.id, 'admin');
});

describe('API keys (admins in the app)', () => {
  it('an admin creates a key whose secret is shown once and works at once', async () => {
    const made = await jsonApi(
      '/api_keys',
      'POST',
      keyBody({
        name: 'Reporting job',
        permissions: [{ permission: 'view_dashboards', resources: [{ type: 'dashboards', id: org.sampleDashboard.id }] }],
      }),
      { session: admin.session },
    );
    expect(made.status).toBe(201);
    expectJsonApiDocument(made.json);
    const secret = made.json.data.attributes.secret;
    expect(secret).toMatch(/^cairn_eu_[0-9A-Za-z]{12}_[0-9A-Za-z]{40}$/);
    const list = await call('/dashboards', { key: secret });
    expect(list.json.data.map((d: any) => d.id)).toEqual([org.sampleDashboard.id]);
    const got = await call(`/api_keys/${made.json.data.id}`, { session: admin.session });
    expect(got.json.data.attributes).not.toHaveProperty('secret');
    const disabled = await jsonApi(
      `/api_keys/${made.json.data.id}`,
      'PATCH',
      { ...keyBody({ enabled: false }), id: made.json.data.id },
      { session: admin.session },
    );
    expect(disabled.json.data.attributes.enabled).toBe(false);
    expect((await call('/dashboards', { key: secret })).json.errors[0].code).toBe('api_key_disabled');
    expect((await call(`/api_keys/${made.json.data.id}`, { session: admin.session, method: 'DELETE' })).status).toBe(204);
    expect((await call('/dashboards', { key: secret })).status).toBe(401);
  });

  it('validates permissions and restrictions', async () => {
    const unknown = await jsonApi('/api_keys', 'POST', keyBody({ name: 'x', permissions: [{ permission: 'root', resources: null }] }), {
      session: admin.session,
    });
    expect(unknown.status).toBe(422);
    expect(unknown.json.errors[0].source.pointer).toMatch(/^\/data\/attributes\/permissions/);
    const foreign = await jsonApi(
      '/api_keys',
      'POST',
      keyBody({ name: 'x', permissions: [{ permission: 'view_dashboards', resources: [{ type: 'dashboards', id: 'dsh_elsewhere' }] }] }),
      { session: admin.session },
    );
    expect(foreign.status).toBe(422);
    const empty = await jsonApi('/api_keys', 'POST', keyBody({ name: 'x', permissions: [] }), { session: admin.session });
    expect(empty.status).toBe(422);
    const twice = await jsonApi('/api_keys', 'POST', keyBody({ name: 'x', permissions: [{ permission: 'view_users' }, { permission: 'view_users' }] }), {
      session: admin.session,
    });
    expect(twice.status).toBe(422);
  });

  it('API keys and non-admins cannot manage keys', async () => {
    const key = await makeKey(org.organization.id);
    const byKey = await call('/api_keys', { key });
    expect(byKey.status).toBe(403);
    expect(byKey.json.errors[0].detail).toMatch(/API keys cannot manage API keys/);
    const analyst = await makeUser(org.organization.id, 'analyst');
    expect((await call('/api_keys', { session: analyst.session })).status).toBe(403);
    const other = await makeOrg('api-keys-other');
    const otherAdmin = await makeUser(other.organization.id, 'admin');
    const mine = (await call('/api_keys', { session: admin.session })).json.data[0];
    if (mine) expect((await call(`/api_keys/${mine.id}`, { session: otherAdmin.session })).status).toBe(404);
  });
});
