import { beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { auditLog, sqlSnippetUses } from '@cairn/db';
import { call, db, jsonApi, makeKey, makeOrg, makeUser, only } from '../../../test/fixtures.ts';
import { expectJsonApiDocument } from '../../../test/jsonapi-schema.ts';
import type { CreateOrganizationResult } from '@cairn/db/seed/organization';

let org: CreateOrganizationResult;
let key: string;
let orgId: string;

const rel = (type: string, id: string | null) => ({ data: id ? { type, id } : null });
const many = (ids: string[]) => ({ data: ids.map((id) => ({ type: 'sql_snippets', id })) });
const snippet = (attributes: Record<string, unknown>, relationships?: Record<string, unknown>) => ({
  type: 'sql_snippets',
  attributes,
  ...(relationships ? { relationships } : {}),
});
let n = 0;
const uniq = (base = 's') => `${base}_${++n}_${Math.random().toString(36).slice(2, 6)}`;

async function create(attributes: Record<string, unknown>, relationships?: Record<string, unknown>, as: string | { session: string } = key) {
  const res = await jsonApi('/sql_snippets', 'POST', snippet({ name: uniq(), text: 'TRUE', ...attributes }, relationships), as);
  expectJsonApiDocument(res.json);
  return res;
}
const patch = (id: string, attributes: Record<string, unknown>, relationships?: Record<string, unknown>, as: string | { session: string } = key) =>
  jsonApi(`/sql_snippets/${id}`, 'PATCH', { ...snippet(attributes, relationships), id }, as);
const errorsOf = (res: { json: any }) => res.json.errors.map((e: any) => [e.code, e.source?.pointer ?? e.source?.parameter]);
const linkedIds = (res: { json: any }) => res.json.data.relationships.sql_snippets.data.map((s: any) => s.id);

beforeAll(async () => {
  org = await makeOrg('snippets');
  orgId = org.organization.id;
  key = await makeKey(orgId);
});

describe('sql snippets: create, read, update, delete', () => {
  it('creates, reads, updates and deletes, recording each write', async () => {
    const made = await create(
      { name: 'revenue', description: 'Net revenue', text: 'sum(total_eur)', params: [] },
      { datasource: rel('datasources', org.sampleDatasource.id) },
    );
    expect(made.status).toBe(201);
    const id = made.json.data.id;
    expect(made.json.data).toMatchObject({
      type: 'sql_snippets',
      attributes: { name: 'revenue', description: 'Net revenue', text: 'sum(total_eur)', params: [] },
      relationships: { datasource: { data: { type: 'datasources', id: org.sampleDatasource.id } }, sql_snippets: { data: [] } },
    });
    const got = await call(`/sql_snippets/${id}?include=datasource`, { key });
    expect(got.status).toBe(200);
    expectJsonApiDocument(got.json);
    expect(got.json.included.map((r: any) => r.type)).toEqual(['datasources']);
    const patched = await patch(id, { text: 'round(sum(total_eur), 2)', params: ['digits'] }, { datasource: rel('datasources', null) });
    expect(patched.status).toBe(200);
    expect(patched.json.data.attributes).toMatchObject({ name: 'revenue', text: 'round(sum(total_eur), 2)', params: ['digits'] });
    expect(patched.json.data.relationships.datasource.data).toBeNull();
    expect((await call(`/sql_snippets/${id}`, { key, method: 'DELETE' })).status).toBe(204);
    expect((await call(`/sql_snippets/${id}`, { key })).status).toBe(404);
    const log = await db()
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.organization_id, orgId), eq(auditLog.resource_id, id)));
    expect(log.map((l) => l.action).sort()).toEqual(['create', 'delete', 'update']);
  });

  it('lists by name with pagination', async () => {
    await create({ name: 'zzz_last' });
    await create({ name: 'aaa_first' });
    const res = await call('/sql_snippets?page[size]=200', { key });
    expectJsonApiDocument(res.json);
    const names: string[] = res.json.data.map((s: any) => s.attributes.name);
    expect(names.indexOf('aaa_first')).toBeLessThan(names.indexOf('zzz_last'));
    const page = await call('/sql_snippets?page[size]=1', { key });
    expect(page.json.data).toHaveLength(1);
    expect(page.json.links.next).not.toBeNull();
    expect(page.json.meta.total).toBe(res.json.data.length);
  });
});

describe('sql snippets: validation', () => {
  it('requires name and text', async () => {
    const res = await jsonApi('/sql_snippets', 'POST', snippet({ description: 'x' }), key);
    expect(res.status).toBe(422);
    expect(errorsOf(res)).toEqual(
      expect.arrayContaining([
        ['missing_attribute', '/data/attributes/name'],
        ['missing_attribute', '/data/attributes/text'],
      ]),
    );
  });

  it.each([
    [{ name: '1abc' }, 'name'],
    [{ name: 'has space' }, 'name'],
    [{ name: 'dash-ed' }, 'name'],
    [{ name: 'CAIRN_USER_EMAIL' }, 'name'],
    [{ name: 'cairn_custom' }, 'name'],
    [{ text: '' }, 'text'],
    [{ text: 'a\u0000' }, 'text'],
    [{ params: ['ok', '2bad'] }, 'params/1'],
    [{ params: ['a', 'A'] }, 'params'],
    [{ params: 'a' }, 'params'],
  ])('refuses %j', async (attrs, pointer) => {
    const res = await create(attrs);
    expect(res.status).toBe(422);
    expect(errorsOf(res)).toContainEqual(['invalid_attribute', `/data/attributes/${pointer}`]);
  });

  it('keeps names unique in the organization, ignoring case', async () => {
    const name = uniq('Unique');
    expect((await create({ name })).status).toBe(201);
    const again = await create({ name: name.toLowerCase() });
    expect(again.status).toBe(409);
    expect(errorsOf(again)).toEqual([['conflict', '/data/attributes/name']]);
    const other = (await create({})).json.data.id;
    expect((await patch(other, { name: name.toUpperCase() })).status).toBe(409);
    // Another organization may use the same name.
    const otherOrg = await makeOrg('snippets-names');
    expect((await create({ name }, undefined, await makeKey(otherOrg.organization.id))).status).toBe(201);
  });

  it("refuses another organization's or an unknown snippet or datasource in the relationships", async () => {
    const otherOrg = await makeOrg('snippets-rel');
    const foreignKey = await makeKey(otherOrg.organization.id);
    const foreign = (await create({}, undefined, foreignKey)).json.data.id;
    const res = await create({}, { sql_snippets: many([foreign]) });
    expect(errorsOf(res)).toEqual([['invalid_relationship', '/data/relationships/sql_snippets/data/0/id']]);
    const ds = await create({}, { datasource: rel('datasources', otherOrg.sampleDatasource.id) });
    expect(errorsOf(ds)).toEqual([['invalid_relationship', '/data/relationships/datasource/data/id']]);
  });
});

describe('sql snippets: nesting and cycles', () => {
  it('records the snippets a text names and the related ones', async () => {
    const base = await create({ name: uniq('base') });
    const extra = await create({});
    const top = await create({ text: `[${base.json.data.attributes.name}] AND '[not_a_snippet]'` }, { sql_snippets: many([extra.json.data.id]) });
    expect(top.status).toBe(201);
    expect(linkedIds(top).sort()).toEqual([base.json.data.id, extra.json.data.id].sort());
    const withInclude = await call(`/sql_snippets/${top.json.data.id}?include=sql_snippets`, { key });
    expect(withInclude.json.included.map((s: any) => s.id).sort()).toEqual([base.json.data.id, extra.json.data.id].sort());
    // A new text keeps the explicit relation and drops what the old text named.
    const retexted = await patch(top.json.data.id, { text: 'FALSE' });
    expect(linkedIds(retexted)).toEqual([extra.json.data.id]);
    const cleared = await patch(top.json.data.id, {}, { sql_snippets: many([]) });
    expect(linkedIds(cleared)).toEqual([]);
  });

  it('refuses cycles through relationships and through texts, naming them', async () => {
    const a = await create({ name: uniq('a') });
    const b = await create({ name: uniq('b') }, { sql_snippets: many([a.json.data.id]) });
    const cycle = await patch(a.json.data.id, {}, { sql_snippets: many([b.json.data.id]) });
    expect(cycle.status).toBe(422);
    expect(cycle.json.errors[0].code).toBe('invalid_relationship');
    const [aName, bName] = [a.json.data.attributes.name, b.json.data.attributes.name];
    expect(cycle.json.errors[0].detail).toContain(`${aName} → ${bName} → ${aName}`);
    const viaText = await patch(a.json.data.id, { text: `x + [${bName}]` });
    expect(viaText.status).toBe(422);
    expect(viaText.json.errors[0].detail).toContain(`${aName} → ${bName} → ${aName}`);
    const self = await patch(a.json.data.id, { text: `[${aName}]` });
    expect(self.status).toBe(422);
    expect(self.json.errors[0].detail).toContain(`${aName} → ${aName}`);
    const selfRel = await patch(a.json.data.id, {}, { sql_snippets: many([a.json.data.id]) });
    expect(errorsOf(selfRel)).toEqual([['invalid_relationship', '/data/relationships/sql_snippets/data/0/id']]);
    // A new snippet whose name an existing text already uses closes the cycle too.
    const pending = uniq('later');
    const c = await create({ text: `[${pending}]` });
    const closing = await create({ name: pending, text: `[${c.json.data.attributes.name}]` });
    expect(closing.status).toBe(422);
    expect(closing.json.errors[0].detail).toContain('cycle');
  });

  it('allows at most 10 levels of nesting', async () => {
    let previous: string | null = null;
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) {
      const res = await create({}, previous ? { sql_snippets: many([previous]) } : undefined);
      expect(res.status).toBe(201);
      previous = res.json.data.id;
      ids.push(previous!);
    }
    const tooDeep = await create({}, { sql_snippets: many([previous!]) });
    expect(tooDeep.status).toBe(422);
    expect(tooDeep.json.errors[0].detail).toContain('at most 10 levels');
    // Nor by adding a level at the bottom.
    const bottom = await create({});
    expect((await patch(ids[0]!, {}, { sql_snippets: many([bottom.json.data.id]) })).status).toBe(422);
  });
});

describe('sql snippets: delete', () => {
  it('refuses to delete a snippet still used by a report, a filter or another snippet, naming the user', async () => {
    const used = await create({ name: uniq('used'), text: "status = 'paid'" });
    const name = used.json.data.attributes.name;
    const rep = await jsonApi(
      '/reports',
      'POST',
      {
        type: 'reports',
        attributes: { name: 'Uses snippet', sql_query: `SELECT 1 WHERE [${name}]` },
        relationships: { dashboard: rel('dashboards', org.sampleDashboard.id), datasource: rel('datasources', org.sampleDatasource.id) },
      },
      key,
    );
    expect(rep.status).toBe(201);
    const blocked = await call(`/sql_snippets/${used.json.data.id}`, { key, method: 'DELETE' });
    expect(blocked.status).toBe(422);
    expectJsonApiDocument(blocked.json);
    expect(blocked.json.errors[0].code).toBe('invalid_state');
    expect(blocked.json.errors[0].detail).toContain(`report "Uses snippet" (${rep.json.data.id})`);
    expect((await call(`/reports/${rep.json.data.id}`, { key, method: 'DELETE' })).status).toBe(204);
    expect((await call(`/sql_snippets/${used.json.data.id}`, { key, method: 'DELETE' })).status).toBe(204);

    const inner = await create({});
    const outer = await create({ text: `[${inner.json.data.attributes.name}]` });
    const nested = await call(`/sql_snippets/${inner.json.data.id}`, { key, method: 'DELETE' });
    expect(nested.status).toBe(422);
    expect(nested.json.errors[0].detail).toContain(`sql snippet "${outer.json.data.attributes.name}"`);

    const forFilter = await create({ text: 'SELECT code FROM countries' });
    const f = await jsonApi(
      '/filters',
      'POST',
      {
        type: 'filters',
        attributes: { variable_name: uniq('v'), control_type: 'dropdown', value_type: 'TEXT', sql_query: `[${forFilter.json.data.attributes.name}]` },
        relationships: { datasource: rel('datasources', org.sampleDatasource.id) },
      },
      key,
    );
    expect(f.status).toBe(201);
    const byFilter = await call(`/sql_snippets/${forFilter.json.data.id}`, { key, method: 'DELETE' });
    expect(byFilter.json.errors[0].detail).toContain(`filter "${f.json.data.attributes.variable_name}"`);
    // Deleting the user releases it.
    expect((await call(`/filters/${f.json.data.id}`, { key, method: 'DELETE' })).status).toBe(204);
    expect((await call(`/sql_snippets/${forFilter.json.data.id}`, { key, method: 'DELETE' })).status).toBe(204);
    const left = await db().select().from(sqlSnippetUses).where(eq(sqlSnippetUses.owner_id, f.json.data.id));
    expect(left).toEqual([]);
  });
});

describe('sql snippets: permissions', () => {
  it('viewers read, analysts write, view-only keys cannot write', async () => {
    const id = (await create({})).json.data.id;
    const viewer = await makeUser(orgId, 'viewer');
    expect((await call(`/sql_snippets/${id}`, { session: viewer.session })).status).toBe(200);
    expect((await create({}, undefined, { session: viewer.session })).status).toBe(403);
    const analyst = await makeUser(orgId, 'analyst');
    expect((await create({}, undefined, { session: analyst.session })).status).toBe(201);
    const viewKey = await makeKey(orgId, only('view_dashboards'));
    expect((await call('/sql_snippets', { key: viewKey })).status).toBe(200);
    expect((await patch(id, { text: 'x' }, undefined, viewKey)).status).toBe(403);
    expect((await call(`/sql_snippets/${id}`, { key: viewKey, method: 'DELETE' })).status).toBe(403);
    expect((await call(`/sql_snippets/${id}?include=datasource`, { key: viewKey })).status).toBe(403);
    expect((await call('/sql_snippets', { key: await makeKey(orgId, only('view_users')) })).status).toBe(403);
  });

  it("answers 404 for another organization's snippet", async () => {
    const otherOrg = await makeOrg('snippets-intruder');
    const foreign = (await create({}, undefined, await makeKey(otherOrg.organization.id))).json.data.id;
    for (const res of [
      await call(`/sql_snippets/${foreign}`, { key }),
      await patch(foreign, { text: 'x' }),
      await call(`/sql_snippets/${foreign}`, { key, method: 'DELETE' }),
    ]) {
      expect(res.status).toBe(404);
      expectJsonApiDocument(res.json);
    }
  });

  it('concurrent updates of different attributes both survive', async () => {
    const id = (await create({})).json.data.id;
    await Promise.all([patch(id, { description: 'described' }), patch(id, { params: ['p'] }), patch(id, { text: 'NOT TRUE' })]);
    expect((await call(`/sql_snippets/${id}`, { key })).json.data.attributes).toMatchObject({ description: 'described', params: ['p'], text: 'NOT TRUE' });
  });
});

describe('sql snippets: OpenAPI', () => {
  it('documents every call with its permission and error answers', async () => {
    const doc = (await call('/openapi.json')).json;
    for (const [method, path, permission] of [
      ['get', '/sql_snippets', 'view_dashboards'],
      ['post', '/sql_snippets', 'manage_dashboards'],
      ['get', '/sql_snippets/{id}', 'view_dashboards'],
      ['patch', '/sql_snippets/{id}', 'manage_dashboards'],
      ['delete', '/sql_snippets/{id}', 'manage_dashboards'],
    ] as const) {
      const op = doc.paths[path]?.[method];
      expect(op, `${method} ${path}`).toBeDefined();
      expect(op['x-permissions']).toEqual([permission]);
      expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['401', '403', '429']));
    }
    expect(Object.keys(doc.paths['/sql_snippets'].post.responses)).toContain('409');
    expect(doc.components.schemas.SqlSnippet).toBeDefined();
  });
});
