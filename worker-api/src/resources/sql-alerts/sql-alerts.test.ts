import { beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { auditLog, organizations, sqlAlertResults, sqlAlerts, sqlSnippets } from '@cairn/db';
import { newId } from '@cairn/core';
import { call, db, jsonApi, makeKey, makeOrg, makeUser, only } from '../../../test/fixtures.ts';
import { expectJsonApiDocument } from '../../../test/jsonapi-schema.ts';
import type { CreateOrganizationResult } from '@cairn/db/seed/organization';

let org: CreateOrganizationResult;
let key: string;
let sample: string;

const rel = (id: string) => ({ datasource: { data: { type: 'datasources', id } } });
const alert = (attributes: Record<string, unknown>, relationships: Record<string, unknown> = rel(sample)) => ({
  type: 'sql_alerts',
  attributes: {
    name: 'Low stock',
    sql_query: 'select count(*) from products where stock < 5',
    run_schedule: 'every',
    run_every: 60,
    trigger_condition: 'has_results',
    email_condition: 'triggered',
    ...attributes,
  },
  relationships,
});
async function create(data: unknown, k: string | { session: string } = key) {
  const res = await jsonApi('/sql_alerts', 'POST', data, k);
  expectJsonApiDocument(res.json);
  return res;
}
const pointers = (res: { json: any }) => res.json.errors.map((e: any) => e.source?.pointer);
const patch = (id: string, attributes: Record<string, unknown>, k: string = key, relationships?: Record<string, unknown>) =>
  jsonApi(`/sql_alerts/${id}`, 'PATCH', { type: 'sql_alerts', id, attributes, ...(relationships ? { relationships } : {}) }, k);

async function otherDatasource(name: string) {
  const res = await jsonApi(
    '/datasources',
    'POST',
    {
      type: 'datasources',
      attributes: { name, database_type: 'postgres', connection_mode: 'direct', host: 'db.example.test' },
    },
    key,
  );
  return res.json.data.id as string;
}

beforeAll(async () => {
  org = await makeOrg('alerts');
  key = await makeKey(org.organization.id);
  sample = org.sampleDatasource.id;
  await db().update(organizations).set({ time_zone: 'Asia/Tokyo', plan_datasources: 1000 }).where(eq(organizations.id, org.organization.id));
});

describe('SQL alerts: create, read, update, delete', () => {
  it('creates with every attribute, normalizing times and addresses and computing next_run_at', async () => {
    const snippet = newId('sql_snippet');
    await db().insert(sqlSnippets).values({ id: snippet, organization_id: org.organization.id, name: 'low_stock', text: 'stock < 5' });
    const res = await create(
      alert(
        {
          description: 'Tell purchasing',
          run_schedule: 'at',
          run_every: undefined,
          run_at: '2:30pm, 08:00,14:30',
          trigger_condition: 'greater_than',
          trigger_value: 10.5,
          email_condition: 'changed',
          emails: ' buyer@example.com,  boss@example.com ',
          cc_emails: 'cc@example.com',
          bcc_emails: null,
          error_emails: 'ops@example.com',
          attach_as: 'excel',
        },
        { ...rel(sample), sql_snippets: { data: [{ type: 'sql_snippets', id: snippet }] } },
      ),
    );
    expect(res.status).toBe(201);
    const a = res.json.data.attributes;
    expect(a).toMatchObject({
      name: 'Low stock',
      description: 'Tell purchasing',
      run_schedule: 'at',
      run_at: '08:00,14:30',
      run_every: null,
      trigger_condition: 'greater_than',
      trigger_value: 10.5,
      email_condition: 'changed',
      emails: 'buyer@example.com, boss@example.com',
      cc_emails: 'cc@example.com',
      bcc_emails: null,
      error_emails: 'ops@example.com',
      attach_as: 'excel',
      running_execution_id: null,
      last_result_status: null,
      last_query_run: null,
    });
    // The organization's time zone is Tokyo: the next run is at 08:00 or 14:30 there, within a day.
    const next = new Date(a.next_run_at);
    expect(next.getTime()).toBeGreaterThan(Date.now());
    expect(next.getTime()).toBeLessThanOrEqual(Date.now() + 86_400_000);
    expect(['08:00', '14:30']).toContain(next.toLocaleTimeString('en-GB', { timeZone: 'Asia/Tokyo', hour: '2-digit', minute: '2-digit' }));
    expect(res.json.data.relationships).toEqual({
      datasource: { data: { type: 'datasources', id: sample } },
      sql_snippets: { data: [{ type: 'sql_snippets', id: snippet }] },
    });
    const got = await call(`/sql_alerts/${res.json.data.id}?include=datasource,sql_snippets`, { key });
    expect(got.status).toBe(200);
    expectJsonApiDocument(got.json);
    expect(got.json.included.map((r: any) => `${r.type}/${r.id}`).sort()).toEqual([`datasources/${sample}`, `sql_snippets/${snippet}`].sort());
  });

  it('every: next run N minutes from now; disabled: none', async () => {
    const every = await create(alert({ run_every: 90 }));
    const next = new Date(every.json.data.attributes.next_run_at).getTime();
    expect(Math.abs(next - (Date.now() + 90 * 60_000))).toBeLessThan(60_000);
    const disabled = await create(alert({ run_schedule: 'disabled', run_every: undefined }));
    expect(disabled.status).toBe(201);
    expect(disabled.json.data.attributes).toMatchObject({ run_schedule: 'disabled', next_run_at: null, run_at: null, run_every: null });
  });

  it('updates: 200 with the alert, only the attributes sent; a new schedule clears the old one', async () => {
    const id = (await create(alert({ name: 'To change' }))).json.data.id;
    const toAt = await patch(id, { run_schedule: 'at', run_at: '7am' });
    expect(toAt.status).toBe(200);
    expectJsonApiDocument(toAt.json);
    expect(toAt.json.data.attributes).toMatchObject({ name: 'To change', run_schedule: 'at', run_at: '07:00', run_every: null });
    expect(new Date(toAt.json.data.attributes.next_run_at).toLocaleTimeString('en-GB', { timeZone: 'Asia/Tokyo', hour: '2-digit', minute: '2-digit' })).toBe(
      '07:00',
    );
    const cmp = await patch(id, { trigger_condition: 'equal', trigger_value: 0 });
    expect(cmp.json.data.attributes).toMatchObject({ trigger_condition: 'equal', trigger_value: 0 });
    const back = await patch(id, { trigger_condition: 'no_results' });
    expect(back.status).toBe(200);
    expect(back.json.data.attributes).toMatchObject({ trigger_condition: 'no_results', trigger_value: null });
    const ds = await otherDatasource('Alert target');
    const moved = await patch(id, {}, key, rel(ds));
    expect(moved.json.data.relationships.datasource.data.id).toBe(ds);
    const log = await db()
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.organization_id, org.organization.id), eq(auditLog.resource_id, id)));
    expect(log.map((l) => l.action).sort()).toEqual(['create', 'update', 'update', 'update', 'update']);
  });

  it('deletes (204) with its results', async () => {
    const id = (await create(alert({ name: 'To delete' }))).json.data.id;
    await db()
      .insert(sqlAlertResults)
      .values({ id: newId('sql_alert_result'), organization_id: org.organization.id, sql_alert_id: id, result_status: 'ok' });
    expect((await call(`/sql_alerts/${id}`, { key, method: 'DELETE' })).status).toBe(204);
    expect((await call(`/sql_alerts/${id}`, { key })).status).toBe(404);
    expect(await db().select().from(sqlAlertResults).where(eq(sqlAlertResults.sql_alert_id, id))).toHaveLength(0);
  });

  it('lists by name with pagination', async () => {
    for (const name of ['Zeta alert', 'Alpha alert']) await create(alert({ name }));
    const page = await call('/sql_alerts?page[size]=2', { key });
    expect(page.status).toBe(200);
    expectJsonApiDocument(page.json);
    expect(page.json.data).toHaveLength(2);
    expect(page.json.data[0].attributes.name).toBe('Alpha alert');
    expect(page.json.links.next).toContain('page%5Bnumber%5D=2');
    const all = await call('/sql_alerts?page[size]=200', { key });
    const names = all.json.data.map((a: any) => a.attributes.name);
    expect(names).toEqual([...names].sort());
  });

  it('concurrent updates of different attributes both survive', async () => {
    const id = (await create(alert({ name: 'Race' }))).json.data.id;
    await Promise.all([patch(id, { name: 'Race won' }), patch(id, { description: 'described' }), patch(id, { emails: 'a@example.com' })]);
    const got = await call(`/sql_alerts/${id}`, { key });
    expect(got.json.data.attributes).toMatchObject({ name: 'Race won', description: 'described', emails: 'a@example.com' });
  });
});

describe('SQL alerts: validation', () => {
  it('requires name, sql_query, run_schedule, trigger_condition, email_condition and the datasource', async () => {
    const res = await create({ type: 'sql_alerts', attributes: {} });
    expect(res.status).toBe(422);
    expect(pointers(res)).toEqual(
      expect.arrayContaining([
        '/data/attributes/name',
        '/data/attributes/sql_query',
        '/data/attributes/run_schedule',
        '/data/attributes/trigger_condition',
        '/data/attributes/email_condition',
        '/data/relationships/datasource',
      ]),
    );
    const nullDs = await create(alert({}, { datasource: { data: null } }));
    expect(pointers(nullDs)).toContain('/data/relationships/datasource/data');
  });

  it('run_at with at, run_every with every, neither with disabled', async () => {
    const checks: [Record<string, unknown>, string, string][] = [
      [{ run_schedule: 'at', run_every: undefined }, '/data/attributes/run_at', 'missing_attribute'],
      [{ run_schedule: 'every', run_every: undefined }, '/data/attributes/run_every', 'missing_attribute'],
      [{ run_schedule: 'every', run_every: null }, '/data/attributes/run_every', 'missing_attribute'],
      [{ run_schedule: 'disabled', run_every: 5 }, '/data/attributes/run_every', 'invalid_attribute'],
      [{ run_schedule: 'disabled', run_every: undefined, run_at: '08:00' }, '/data/attributes/run_at', 'invalid_attribute'],
      [{ run_schedule: 'every', run_at: '08:00' }, '/data/attributes/run_at', 'invalid_attribute'],
      [{ run_every: 0 }, '/data/attributes/run_every', 'invalid_attribute'],
      [{ run_every: 10_081 }, '/data/attributes/run_every', 'invalid_attribute'],
      [{ run_every: 1.5 }, '/data/attributes/run_every', 'invalid_attribute'],
      [{ run_schedule: 'at', run_every: undefined, run_at: '25:00' }, '/data/attributes/run_at', 'invalid_attribute'],
      [{ run_schedule: 'at', run_every: undefined, run_at: '13pm' }, '/data/attributes/run_at', 'invalid_attribute'],
      [{ run_schedule: 'at', run_every: undefined, run_at: '' }, '/data/attributes/run_at', 'invalid_attribute'],
      [{ run_schedule: 'hourly' }, '/data/attributes/run_schedule', 'invalid_attribute'],
    ];
    for (const [attrs, pointer, code] of checks) {
      const res = await create(alert(attrs));
      expect(res.status, JSON.stringify(attrs)).toBe(422);
      expect(
        res.json.errors.map((e: any) => [e.code, e.source?.pointer]),
        JSON.stringify(attrs),
      ).toContainEqual([code, pointer]);
    }
    expect((await create(alert({ run_every: 1 }))).status).toBe(201);
    expect((await create(alert({ run_every: 10_080 }))).status).toBe(201);
  });

  it('trigger_value for the comparisons only; conditions, e-mails and attachments checked', async () => {
    for (const cond of ['greater_than', 'lower_than', 'equal', 'not_equal']) {
      const res = await create(alert({ trigger_condition: cond }));
      expect(res.json.errors[0], cond).toMatchObject({ code: 'missing_attribute', source: { pointer: '/data/attributes/trigger_value' } });
      expect((await create(alert({ trigger_condition: cond, trigger_value: -3 }))).status, cond).toBe(201);
    }
    const extra = await create(alert({ trigger_condition: 'has_results', trigger_value: 3 }));
    expect(pointers(extra)).toEqual(['/data/attributes/trigger_value']);
    const checks: [Record<string, unknown>, string][] = [
      [{ trigger_condition: 'sometimes' }, 'trigger_condition'],
      [{ trigger_condition: 'equal', trigger_value: '3' }, 'trigger_value'],
      [{ email_condition: 'never' }, 'email_condition'],
      [{ emails: 'not-an-address' }, 'emails'],
      [{ cc_emails: 'a@example.com, b@' }, 'cc_emails'],
      [{ bcc_emails: 'x y@example.com' }, 'bcc_emails'],
      [{ error_emails: 42 }, 'error_emails'],
      [{ attach_as: 'pdf' }, 'attach_as'],
      [{ sql_query: '   ' }, 'sql_query'],
      [{ sql_query: 'select 1\u0000' }, 'sql_query'],
      [{ name: '' }, 'name'],
    ];
    for (const [attrs, name] of checks) {
      const res = await create(alert(attrs));
      expect(res.status, name).toBe(422);
      expect(pointers(res), name).toContain(`/data/attributes/${name}`);
    }
    const tooMany = await create(alert({ emails: Array.from({ length: 101 }, (_, i) => `u${i}@example.com`).join(',') }));
    expect(pointers(tooMany)).toContain('/data/attributes/emails');
  });

  it('read-only and unknown attributes; datasource and snippets of the organization only', async () => {
    const ro = await create(alert({ running_execution_id: 'exe_x', last_result_status: 'ok', next_run_at: null, colour: 'red' }));
    expect(ro.json.errors.map((e: any) => [e.code, e.source.pointer])).toEqual(
      expect.arrayContaining([
        ['read_only_attribute', '/data/attributes/running_execution_id'],
        ['read_only_attribute', '/data/attributes/last_result_status'],
        ['read_only_attribute', '/data/attributes/next_run_at'],
        ['unknown_attribute', '/data/attributes/colour'],
      ]),
    );
    const other = await makeOrg('alerts-foreign');
    const foreign = await create(alert({}, rel(other.sampleDatasource.id)));
    expect(foreign.status).toBe(422);
    expect(pointers(foreign)).toEqual(['/data/relationships/datasource/data/id']);
    const snip = await create(alert({}, { ...rel(sample), sql_snippets: { data: [{ type: 'sql_snippets', id: 'snp_nope' }] } }));
    expect(pointers(snip)).toEqual(['/data/relationships/sql_snippets/data/0/id']);
    const wrongType = await create(alert({}, { datasource: { data: { type: 'reports', id: sample } } }));
    expect(pointers(wrongType)).toEqual(['/data/relationships/datasource/data/type']);
    const id = (await create(alert({}))).json.data.id;
    const p = await patch(id, { last_query_run: '2020-01-01T00:00:00Z' });
    expect(p.json.errors[0]).toMatchObject({ code: 'read_only_attribute', source: { pointer: '/data/attributes/last_query_run' } });
    const switchWithout = await patch(id, { run_schedule: 'at' });
    expect(switchWithout.json.errors[0]).toMatchObject({ code: 'missing_attribute', source: { pointer: '/data/attributes/run_at' } });
    expect((await call('/sql_alerts', { key, method: 'POST', body: { data: alert({}) } })).status).toBe(415);
    expect((await call('/sql_alerts?include=user', { key })).status).toBe(400);
  });
});

describe('SQL alerts: permissions', () => {
  it('Manage Alerts creates; View Alerts reads; Manage Datasources updates and deletes but does not create', async () => {
    const manage = await makeKey(org.organization.id, only('manage_alerts'));
    const view = await makeKey(org.organization.id, only('view_alerts'));
    const dsOnly = await makeKey(org.organization.id, only('manage_datasources'));
    const made = await create(alert({ name: 'By manager' }), manage);
    expect(made.status).toBe(201);
    const id = made.json.data.id;
    expect((await create(alert({}), view)).status).toBe(403);
    expect((await create(alert({}), dsOnly)).status).toBe(403);
    expect((await call(`/sql_alerts/${id}`, { key: view })).status).toBe(200);
    expect((await call('/sql_alerts', { key: view })).status).toBe(200);
    expect((await patch(id, { name: 'nope' }, view)).status).toBe(403);
    expect((await call(`/sql_alerts/${id}`, { key: view, method: 'DELETE' })).status).toBe(403);
    expect((await call(`/sql_alerts/${id}`, { key: dsOnly })).status).toBe(403);
    const byDs = await patch(id, { name: 'By datasource admin' }, dsOnly);
    expect(byDs.status).toBe(200);
    expect(byDs.json.data.attributes.name).toBe('By datasource admin');
    expect((await call(`/sql_alerts/${id}`, { key: dsOnly, method: 'DELETE' })).status).toBe(204);
  });

  it('the key needs access to the alert’s datasource', async () => {
    const allowed = await otherDatasource('Alerts allowed here');
    const elsewhere = await otherDatasource('Alerts not allowed here');
    const restricted = await makeKey(org.organization.id, [{ permission: 'manage_alerts', resources: [{ type: 'datasources', id: allowed }] }]);
    expect((await create(alert({}, rel(allowed)), restricted)).status).toBe(201);
    const refused = await create(alert({}, rel(elsewhere)), restricted);
    expect(refused.status).toBe(403);
    const theirs = (await create(alert({ name: 'On the other datasource' }, rel(elsewhere)))).json.data.id;
    // An alert the key cannot see does not exist for it: 404, not 403 naming it (issue 16).
    expect((await patch(theirs, { name: 'x' }, restricted)).status).toBe(404);
    expect((await call(`/sql_alerts/${theirs}`, { key: restricted, method: 'DELETE' })).status).toBe(404);
    // Reading follows the same restriction: only alerts on the allowed datasource are listed.
    const list = await call('/sql_alerts?page[size]=200', { key: restricted });
    expect(list.json.data.length).toBeGreaterThan(0);
    expect(list.json.data.every((a: any) => a.relationships.datasource.data.id === allowed)).toBe(true);
    // An alert of the organization outside the grant is invisible: 404 (as for keys restricted to alerts); lists leave it out.
    expect((await call(`/sql_alerts/${theirs}`, { key: restricted })).status).toBe(404);
    expect((await call(`/sql_alerts/${theirs}/results`, { key: restricted })).status).toBe(404);
    // Moving an alert to a datasource the key cannot reach is refused too.
    const mine = (await create(alert({ name: 'Mine' }, rel(allowed)), restricted)).json.data.id;
    expect((await patch(mine, {}, restricted, rel(elsewhere))).status).toBe(403);
    const moveDs = await patch(mine, {}, key, rel('dsr_nope'));
    expect(moveDs.status).toBe(422);
    expect(pointers(moveDs)).toEqual(['/data/relationships/datasource/data/id']);
  });

  it('keys restricted to alerts see and change only those, and cannot add new ones', async () => {
    const a = (await create(alert({ name: 'Restricted A' }))).json.data.id;
    const b = (await create(alert({ name: 'Restricted B' }))).json.data.id;
    const restricted = await makeKey(org.organization.id, [{ permission: 'manage_alerts', resources: [{ type: 'sql_alerts', id: a }] }]);
    const list = await call('/sql_alerts?page[size]=200', { key: restricted });
    expect(list.json.data.map((x: any) => x.id)).toEqual([a]);
    expect((await call(`/sql_alerts/${b}`, { key: restricted })).status).toBe(404);
    expect((await call(`/sql_alerts/${b}/results`, { key: restricted })).status).toBe(404);
    expect((await patch(b, { name: 'x' }, restricted)).status).toBe(404);
    expect((await patch(a, { name: 'Restricted A2' }, restricted)).status).toBe(200);
    expect((await create(alert({}), restricted)).status).toBe(403);
  });

  it('including the datasource needs View/Manage Datasources or Manage Dashboards; credentials stay hidden', async () => {
    const ds = await jsonApi(
      '/datasources',
      'POST',
      {
        type: 'datasources',
        attributes: { name: 'With creds', database_type: 'postgres', connection_mode: 'direct', host: 'h.test', username: 'secret-user', password: 'pw' },
      },
      key,
    );
    const id = (await create(alert({}, rel(ds.json.data.id)))).json.data.id;
    const alertsOnly = await makeKey(org.organization.id, only('view_alerts'));
    const refused = await call(`/sql_alerts/${id}?include=datasource`, { key: alertsOnly });
    expect(refused.status).toBe(403);
    expectJsonApiDocument(refused.json);
    expect((await call(`/sql_alerts?include=datasource`, { key: alertsOnly })).status).toBe(403);
    expect((await call(`/sql_alerts/${id}?include=sql_snippets`, { key: alertsOnly })).status).toBe(200);
    for (const perms of [only('view_alerts', 'view_datasources'), only('view_alerts', 'manage_dashboards')]) {
      const res = await call(`/sql_alerts/${id}?include=datasource`, { key: await makeKey(org.organization.id, perms) });
      expect(res.status).toBe(200);
      expect(res.json.included).toHaveLength(1);
      expect(res.json.included[0].attributes).not.toHaveProperty('username');
      expect(JSON.stringify(res.json)).not.toContain('secret-user');
    }
    const admin = await makeUser(org.organization.id, 'admin');
    const withCreds = await call(`/sql_alerts/${id}?include=datasource`, { session: admin.session });
    expect(withCreds.json.included[0].attributes.username).toBe('secret-user');
  });

  it('roles: viewers read alerts, analysts manage them', async () => {
    const viewer = await makeUser(org.organization.id, 'viewer');
    const analyst = await makeUser(org.organization.id, 'analyst');
    expect((await call('/sql_alerts', { session: viewer.session })).status).toBe(200);
    expect((await create(alert({}), { session: viewer.session })).status).toBe(403);
    const made = await create(alert({ name: 'By analyst' }), { session: analyst.session });
    expect(made.status).toBe(201);
    const id = made.json.data.id;
    expect((await jsonApi(`/sql_alerts/${id}`, 'PATCH', { type: 'sql_alerts', id, attributes: { name: 'x' } }, { session: viewer.session })).status).toBe(403);
    expect((await call(`/sql_alerts/${id}`, { session: analyst.session, method: 'DELETE' })).status).toBe(204);
  });

  it("another organization's alert is a 404 for every verb", async () => {
    const id = (await create(alert({ name: 'Private alert' }))).json.data.id;
    const other = await makeOrg('alerts-intruder');
    const otherKey = await makeKey(other.organization.id);
    for (const res of [
      await call(`/sql_alerts/${id}`, { key: otherKey }),
      await call(`/sql_alerts/${id}/results`, { key: otherKey }),
      await patch(id, { name: 'stolen' }, otherKey),
      await call(`/sql_alerts/${id}`, { key: otherKey, method: 'DELETE' }),
    ]) {
      expect(res.status).toBe(404);
      expectJsonApiDocument(res.json);
    }
    expect((await call('/sql_alerts?page[size]=200', { key: otherKey })).json.data.map((a: any) => a.id)).not.toContain(id);
    const [row] = await db().select().from(sqlAlerts).where(eq(sqlAlerts.id, id));
    expect(row!.name).toBe('Private alert');
  });
});
