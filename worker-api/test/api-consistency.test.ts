import { beforeAll, describe, expect, it } from 'vitest';
import { newId } from '@cairn/core';
import { dashboards } from '@cairn/db';
import type { CreateOrganizationResult } from '@cairn/db/seed/organization';
import { all, call, db, jsonApi, makeKey, makeOrg, makeRawKey, makeUser, only } from './fixtures.ts';

/**
 * The API says one thing everywhere (issue 16): updates carry their id, answers with data tokens are
 * never cached, an unknown query parameter is refused, every list searches by name and sorts, and a
 * resource the caller cannot see is a 404 whoever asks.
 */
let org: CreateOrganizationResult;
let other: CreateOrganizationResult;
let orgId: string;
let key: string;
let admin: { id: string; session: string };
let doc: any;

const codes = (res: { json: any }) => (res.json?.errors ?? []).map((e: any) => [e.code, e.source?.parameter ?? e.source?.pointer]);

/** A dashboard of the organization, inserted as is (private, unlocked). */
async function dashboard(organizationId: string, name: string): Promise<string> {
  const id = newId('dashboard');
  await db().insert(dashboards).values({ id, organization_id: organizationId, name });
  return id;
}

beforeAll(async () => {
  [org, other] = await Promise.all([makeOrg('consistency'), makeOrg('consistency other')]);
  orgId = org.organization.id;
  key = await makeKey(orgId);
  admin = await makeUser(orgId, 'admin');
  doc = (await call('/openapi.json')).json;
});

describe('PATCH bodies and media types', () => {
  it('answers 400 with a pointer to /data/id when an update leaves the id out, and 409 when it differs', async () => {
    const id = org.sampleDashboard.id;
    const missing = await jsonApi(`/dashboards/${id}`, 'PATCH', { type: 'dashboards', attributes: { description: 'x' } }, key);
    expect(missing.status).toBe(400);
    expect(codes(missing)).toEqual([['bad_request', '/data/id']]);
    expect(missing.json.errors[0].detail).toContain(id);
    const wrong = await jsonApi(`/dashboards/${id}`, 'PATCH', { type: 'dashboards', id: 'dsh_other', attributes: { description: 'x' } }, key);
    expect(wrong.status).toBe(409);
    expect(codes(wrong)).toEqual([['conflict', '/data/id']]);
    // Nothing changed by the refused calls; the same body with its id goes through.
    const ok = await jsonApi(`/dashboards/${id}`, 'PATCH', { type: 'dashboards', id, attributes: { description: 'with id' } }, key);
    expect(ok.status).toBe(200);
    expect(ok.json.data.attributes.description).toBe('with id');
    // The singleton organization takes its own id too.
    const orgPatch = await jsonApi('/organization', 'PATCH', { type: 'organizations', attributes: { name: 'x' } }, { session: admin.session });
    expect(codes(orgPatch)).toEqual([['bad_request', '/data/id']]);
  });

  it('documents data.id as required in every update body', () => {
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      const schema = item.patch?.requestBody?.content?.['application/vnd.api+json']?.schema;
      if (!schema) continue;
      expect(schema.properties.data.required, `PATCH ${path}`).toEqual(expect.arrayContaining(['type', 'id']));
    }
  });

  it('refuses the JSON:API media type with a charset (415) and says what to send instead', async () => {
    const id = org.sampleDashboard.id;
    const res = await call(`/dashboards/${id}`, {
      key,
      method: 'PATCH',
      body: { data: { type: 'dashboards', id, attributes: {} } },
      contentType: 'application/vnd.api+json; charset=utf-8',
    });
    expect(res.status).toBe(415);
    expect(res.json.errors[0].source).toEqual({ header: 'Content-Type' });
    expect(res.json.errors[0].detail).toContain('charset=utf-8');
    expect(res.json.errors[0].detail).toContain('send the bare "application/vnd.api+json"');
  });
});

describe('Cache-Control', () => {
  it('marks answers holding data tokens private, no-store (status polls, report data, datasource schema)', async () => {
    const dash = org.sampleDashboard.id;
    const status = await call(`/dashboards/${dash}/status`, { key, method: 'POST', body: {} });
    expect(status.status).toBe(200);
    expect(status.headers.get('cache-control')).toBe('private, no-store');
    const one = await call(`/dashboards/${dash}`, { key: await makeKey(orgId) });
    const report = one.json.data.relationships.reports.data[0].id;
    const data = await call(`/reports/${report}/data`, { key, method: 'POST', body: {} });
    expect([200, 204]).toContain(data.status);
    expect(data.headers.get('cache-control')).toBe('private, no-store');
    if (data.status === 200) expect(data.json.data_access_token).toBeTruthy();
    const schema = await call(`/datasources/${org.sampleDatasource.id}/schema`, { key });
    expect(schema.status).toBe(200);
    expect(schema.json.data_access_token).toBeTruthy();
    expect(schema.headers.get('cache-control')).toBe('private, no-store');
    // Errors too; the conditional reads keep their own policy (an ETag to revalidate).
    expect((await call('/dashboards/dsh_missing', { key })).headers.get('cache-control')).toBe('private, no-store');
    expect((await call('/dashboards', { key })).headers.get('cache-control')).toBe('private, no-cache');
  });
});

describe('unknown query parameters', () => {
  it('are refused with 400 naming each of them', async () => {
    const dash = org.sampleDashboard.id;
    const list = await call('/dashboards?colour=red&filter[nme]=x&page[size]=2', { key });
    expect(list.status).toBe(400);
    expect(codes(list)).toEqual([
      ['invalid_query_parameter', 'colour'],
      ['invalid_query_parameter', 'filter[nme]'],
    ]);
    expect(list.json.errors[0].detail).toContain('filter[name]');
    const one = await call(`/dashboards/${dash}?page[size]=1`, { key });
    expect(codes(one)).toEqual([['invalid_query_parameter', 'page[size]']]);
    const poll = await call(`/dashboards/${dash}/status?refresh=1`, { key, method: 'POST', body: {} });
    expect(codes(poll)).toEqual([['invalid_query_parameter', 'refresh']]);
    const schema = await call(`/datasources/${org.sampleDatasource.id}/schema?names=public`, { key });
    expect(codes(schema)).toEqual([['invalid_query_parameter', 'names']]);
    expect(schema.json.errors[0].detail).toContain('takes name');
    // Declared parameters still work.
    expect((await call(`/dashboards/${dash}?include=reports`, { key })).status).toBe(200);
  });

  it('are refused on every documented call that the key may use', async () => {
    const ids: Record<string, string> = { id: org.sampleDashboard.id };
    const fresh = await makeKey(orgId); // its own rate-limit bucket
    let checked = 0;
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      if (path.startsWith('/auth/')) continue;
      for (const method of ['get', 'post', 'patch', 'put', 'delete']) {
        if (!item[method]) continue;
        const url = path.replace(/\{(\w+)\}/g, (_m, p) => ids[p] ?? 'x_unknown') + '?cairn_unknown=1';
        const res = await call(url, { key: fresh, method: method.toUpperCase(), ...(method === 'get' || method === 'delete' ? {} : { body: {} }) });
        expect(codes(res), `${method.toUpperCase()} ${path}`).toEqual([['invalid_query_parameter', 'cairn_unknown']]);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(80);
  });
});

describe('lists: filter[name] and sort', () => {
  const lists = () => Object.entries<any>(doc.paths).filter(([path, item]) => item.get?.summary?.startsWith('List') && !path.includes('{'));

  it('declare filter[name] and sort on every list in the OpenAPI document', () => {
    expect(lists().length).toBeGreaterThanOrEqual(13);
    for (const [path, item] of lists()) {
      const names = item.get.parameters.filter((p: any) => p.in === 'query').map((p: any) => p.name);
      expect(names, path).toEqual(expect.arrayContaining(['page[size]', 'page[number]', 'filter[name]', 'sort']));
    }
  });

  it('answer every list: a name nobody has gives an empty page, bad values are 400 naming the parameter, each sort field works both ways', async () => {
    const auth = { session: (await makeUser(orgId, 'admin')).session }; // its own rate-limit bucket
    for (const [path, item] of lists()) {
      const none = await call(`${path}?filter[name]=${encodeURIComponent('no such name ' + newId('dashboard'))}`, auth);
      expect(none.status, `${path} ${JSON.stringify(none.json)}`).toBe(200);
      expect(none.json.data, path).toEqual([]);
      expect(none.json.meta.total, path).toBe(0);
      expect(codes(await call(`${path}?filter[name]=`, auth)), path).toEqual([['invalid_query_parameter', 'filter[name]']]);
      expect(codes(await call(`${path}?filter[name]=${'x'.repeat(256)}`, auth)), path).toEqual([['invalid_query_parameter', 'filter[name]']]);
      expect(codes(await call(`${path}?sort=shoe_size`, auth)), path).toEqual([['invalid_query_parameter', 'sort']]);
      expect(codes(await call(`${path}?sort=created_at,-created_at`, auth)), path).toEqual([['invalid_query_parameter', 'sort']]);
      const sortParam = item.get.parameters.find((p: any) => p.name === 'sort');
      const fields = /: ([a-z_, ]+)\. Without it/.exec(sortParam.description)![1]!.split(', ');
      expect(fields, path).toEqual(expect.arrayContaining(['name', 'created_at', 'updated_at']));
      for (const f of fields) {
        const up = await call(`${path}?sort=${f}`, auth);
        const down = await call(`${path}?sort=-${f}`, auth);
        expect([up.status, down.status], `${path} sort=${f}`).toEqual([200, 200]);
        expect(down.json.meta.total, path).toBe(up.json.meta.total);
      }
      const created = (await call(`${path}?sort=-created_at&page[size]=200`, auth)).json.data.map((r: any) => r.attributes.created_at).filter(Boolean);
      expect(created, `${path} newest first`).toEqual([...created].sort().reverse());
    }
  });

  it('search names case-insensitively, take wildcards literally, sort, page and stay in the organization', async () => {
    const own = await makeOrg('lists');
    const k = await makeKey(own.organization.id);
    const made = {
      alpha: await dashboard(own.organization.id, 'Alpha Sales'),
      beta: await dashboard(own.organization.id, 'beta sales review'),
      pct: await dashboard(own.organization.id, '100%_off Sales'),
      plain: await dashboard(own.organization.id, 'Gamma'),
    };
    await dashboard(other.organization.id, 'Alpha Sales of the other organization');
    const names = (res: any) => res.json.data.map((d: any) => d.attributes.name);
    const sales = await call('/dashboards?filter[name]=SALES', { key: k });
    expect(names(sales)).toEqual(['100%_off Sales', 'Alpha Sales', 'beta sales review']);
    expect(sales.json.meta.total).toBe(3);
    expect(names(await call('/dashboards?filter[name]=%25', { key: k }))).toEqual(['100%_off Sales']);
    expect(names(await call('/dashboards?filter[name]=_', { key: k }))).toEqual(['100%_off Sales']);
    expect(names(await call('/dashboards?filter[name]=sales&sort=-name', { key: k }))).toEqual(['beta sales review', 'Alpha Sales', '100%_off Sales']);
    const page = await call('/dashboards?filter[name]=sales&sort=name&page[size]=2', { key: k });
    expect(names(page)).toEqual(['100%_off Sales', 'Alpha Sales']);
    expect(page.json.meta.total).toBe(3);
    expect(decodeURIComponent(page.json.links.next)).toContain('filter[name]=sales');
    expect(decodeURIComponent(page.json.links.next)).toContain('sort=name');
    expect(names(await call(page.json.links.next.replace('https://api.test', ''), { key: k }))).toEqual(['beta sales review']);
    // A key restricted to one dashboard searches only what it may see.
    const restricted = await makeKey(own.organization.id, [{ permission: 'view_dashboards', resources: [{ type: 'dashboards', id: made.beta }] }]);
    expect(names(await call('/dashboards?filter[name]=sales', { key: restricted }))).toEqual(['beta sales review']);
    // Several sort fields: updated_at descending, then name.
    await jsonApi(`/dashboards/${made.plain}`, 'PATCH', { type: 'dashboards', id: made.plain, attributes: { description: 'touched' } }, k);
    expect(names(await call('/dashboards?sort=-updated_at,name&page[size]=1', { key: k }))).toEqual(['Gamma']);
    expect(names(await call('/dashboards?filter[name]=a&sort=-created_at', { key: k })).slice(0, 2)).toEqual(['Gamma', '100%_off Sales']);
  });

  it('search users by name or e-mail, and API keys by name', async () => {
    const own = await makeOrg('user lists');
    const viewer = await makeUser(own.organization.id, 'viewer');
    const adminUser = await makeUser(own.organization.id, 'admin');
    const k = await makeKey(own.organization.id, all());
    const byMail = await call(`/users?filter[name]=${encodeURIComponent(viewer.email.slice(0, 12).toUpperCase())}`, { key: k });
    expect(byMail.json.data.map((u: any) => u.id)).toEqual([viewer.id]);
    const byName = await call('/users?filter[name]=test%20VIEWER', { key: k });
    expect(byName.json.data.map((u: any) => u.id)).toEqual([viewer.id]);
    await makeKey(own.organization.id, only('view_dashboards'));
    const keys = await call('/api_keys?filter[name]=key%20&sort=-created_at', { session: adminUser.session });
    expect(keys.status).toBe(200);
    expect(keys.json.meta.total).toBe(2);
    const created = keys.json.data.map((x: any) => x.attributes.created_at);
    expect(created).toEqual([...created].sort().reverse());
  });
});

describe('404 before 403', () => {
  it('answers 404 to a restricted key for a dashboard that does not exist or that it cannot see, and 403 only for one it sees', async () => {
    const sample = org.sampleDashboard.id;
    const hidden = await dashboard(orgId, 'Hidden from the key');
    const viewOnly = await makeKey(orgId, [{ permission: 'view_dashboards', resources: [{ type: 'dashboards', id: sample }] }]);
    const manageSample = await makeKey(orgId, [{ permission: 'manage_dashboards', resources: [{ type: 'dashboards', id: sample }] }]);
    for (const id of ['dsh_doesnotexist', hidden, other.sampleDashboard.id]) {
      for (const [path, method, body] of [
        [`/dashboards/${id}`, 'GET', undefined],
        [`/dashboards/${id}/status`, 'POST', {}],
        [`/dashboards/${id}/duplicate`, 'POST', {}],
        [`/dashboards/${id}/export_pdf`, 'POST', {}],
      ] as const) {
        const res = await call(path, { key: viewOnly, method, body });
        expect(res.status, `${method} ${path}: ${JSON.stringify(res.json)}`).toBe(404);
        expect(res.json.errors[0].code).toBe('not_found');
      }
      // Without Manage Dashboards at all: 403 naming the permission, never the id.
      const refused = await jsonApi(`/dashboards/${id}`, 'PATCH', { type: 'dashboards', id, attributes: { description: 'x' } }, viewOnly);
      expect(refused.status, `PATCH ${id}`).toBe(403);
      expect(refused.json.errors[0].detail).toBe('This API key lacks the Manage Dashboards permission.');
      // With Manage Dashboards on the sample only: what it cannot see is a 404 for every write.
      const patch = await jsonApi(`/dashboards/${id}`, 'PATCH', { type: 'dashboards', id, attributes: { description: 'x' } }, manageSample);
      expect(patch.status, `PATCH ${id}`).toBe(404);
      expect((await call(`/dashboards/${id}`, { key: manageSample, method: 'DELETE' })).status, `DELETE ${id}`).toBe(404);
      expect((await call(`/dashboards/${id}/lock`, { key: manageSample, method: 'POST' })).status, `lock ${id}`).toBe(404);
    }
    // Visible, but the key may only view it.
    expect((await call(`/dashboards/${sample}`, { key: viewOnly })).status).toBe(200);
    const patch = await jsonApi(`/dashboards/${sample}`, 'PATCH', { type: 'dashboards', id: sample, attributes: { description: 'x' } }, viewOnly);
    expect(patch.status).toBe(403);
    expect(patch.json.errors[0].detail).toContain('Manage Dashboards');
    // Manage restricted to another dashboard, view on all: the sample is visible, so 403.
    const manageOther = await makeKey(orgId, [
      { permission: 'view_dashboards', resources: null },
      { permission: 'manage_dashboards', resources: [{ type: 'dashboards', id: hidden }] },
    ]);
    expect((await jsonApi(`/dashboards/${sample}`, 'PATCH', { type: 'dashboards', id: sample, attributes: {} }, manageOther)).status).toBe(403);
    expect((await jsonApi('/dashboards/dsh_doesnotexist', 'PATCH', { type: 'dashboards', id: 'dsh_doesnotexist', attributes: {} }, manageOther)).status).toBe(
      404,
    );
    // A key restricted to a dashboard that was deleted meanwhile.
    const stale = await makeRawKey(orgId, [{ permission: 'view_dashboards', resources: [{ type: 'dashboards', id: 'dsh_deletedlongago' }] }]);
    expect((await call('/dashboards/dsh_nothere', { key: stale })).status).toBe(404);
  });

  it('answers 404 to a restricted key for a datasource it cannot see, and 403 for one it sees but may not change', async () => {
    const ds = org.sampleDatasource.id;
    const manageOne = await makeKey(orgId, [{ permission: 'manage_datasources', resources: [{ type: 'datasources', id: ds }] }]);
    for (const id of ['dsr_doesnotexist', other.sampleDatasource.id]) {
      expect((await call(`/datasources/${id}`, { key: manageOne })).status, id).toBe(404);
      expect((await call(`/datasources/${id}/schema`, { key: manageOne })).status, id).toBe(404);
      expect((await call(`/datasources/${id}/test_connection`, { key: manageOne, method: 'POST' })).status, id).toBe(404);
      expect((await jsonApi(`/datasources/${id}`, 'PATCH', { type: 'datasources', id, attributes: { name: 'x' } }, manageOne)).status, id).toBe(404);
      expect((await call(`/datasources/${id}`, { key: manageOne, method: 'DELETE' })).status, id).toBe(404);
    }
    // View only: it sees the sample datasource but may not change it; without Manage Datasources at all the
    // refusal names the permission, not the id.
    const viewOne = await makeKey(orgId, [{ permission: 'view_datasources', resources: [{ type: 'datasources', id: ds }] }]);
    expect((await call(`/datasources/${ds}`, { key: viewOne })).status).toBe(200);
    expect((await call('/datasources/dsr_doesnotexist', { key: viewOne })).status).toBe(404);
    for (const id of [ds, 'dsr_doesnotexist']) {
      const res = await jsonApi(`/datasources/${id}`, 'PATCH', { type: 'datasources', id, attributes: { name: 'x' } }, viewOne);
      expect(res.status, id).toBe(403);
      expect(res.json.errors[0].detail).toBe('This API key lacks the Manage Datasources permission.');
    }
  });

  it('answers 404 to users for dashboards they cannot see; a write the role never allows is 403 naming the permission, not the id', async () => {
    const viewer = await makeUser(orgId, 'viewer');
    const analyst = await makeUser(orgId, 'analyst');
    const privateOne = await dashboard(orgId, 'Private to its owner');
    const sample = org.sampleDashboard.id;
    const patch = (id: string, session: string) => jsonApi(`/dashboards/${id}`, 'PATCH', { type: 'dashboards', id, attributes: {} }, { session });
    // The analyst holds Manage Dashboards: a missing or private dashboard is a 404.
    for (const id of ['dsh_doesnotexist', privateOne]) {
      expect((await call(`/dashboards/${id}`, { session: analyst.session })).status, id).toBe(404);
      expect((await patch(id, analyst.session)).status, id).toBe(404);
      expect((await call(`/dashboards/${id}/status`, { session: viewer.session, method: 'POST', body: {} })).status, id).toBe(404);
      expect((await call(`/dashboards/${id}`, { session: viewer.session })).status, id).toBe(404);
    }
    // The viewer may never change a dashboard: 403 whatever the id, and the refusal names no id.
    expect((await call(`/dashboards/${sample}`, { session: viewer.session })).status).toBe(200);
    for (const id of [sample, privateOne, 'dsh_doesnotexist']) {
      const res = await patch(id, viewer.session);
      expect(res.status, id).toBe(403);
      expect(res.json.errors[0].detail, id).toBe('This user lacks the Manage Dashboards permission.');
    }
    // Likewise a key without View Dashboards at all.
    const noDashboards = await makeKey(orgId, only('view_datasources'));
    for (const id of [sample, 'dsh_doesnotexist']) {
      const res = await call(`/dashboards/${id}`, { key: noDashboards });
      expect(res.status, id).toBe(403);
      expect(res.json.errors[0].detail).not.toContain(id);
    }
  });
});
