/**
 * 404 before 403, on every route of the OpenAPI document (ARCHITECTURE D44, issue 16): a call naming an
 * id that does not exist is a 404 for every principal — an API key restricted to named resources that
 * holds each permission somewhere, and signed-in users of each role. A 403 is allowed only when the
 * caller lacks the route's permission altogether (or may never make the call, as a key managing keys),
 * and then it names the permission, never the id: a refusal must not tell a caller which ids exist.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { ID_PREFIXES, newId, PERMISSIONS, type Grant } from '@cairn/core';
import { dashboards, reports } from '@cairn/db';
import { call, db, jsonApi, makeKey, makeUser, type CallOptions } from './fixtures.ts';
import { expectJsonApiDocument } from './jsonapi-schema.ts';
import { baseBody, buildWorld, fillPath, openApiDocument, operations, paramKinds, type IdKind, type Operation, type World } from './route-catalog.ts';

/** The id kind of `@cairn/core` that a path parameter's collection holds (an invitation is a user). */
const PREFIX_KIND: Record<IdKind, keyof typeof ID_PREFIXES> = {
  dashboards: 'dashboard',
  reports: 'report',
  dashboard_groups: 'dashboard_group',
  dashboard_sharing_links: 'dashboard_sharing_link',
  export_jobs: 'export_job',
  filters: 'filter',
  sql_snippets: 'sql_snippet',
  dashboard_schedules: 'dashboard_schedule',
  datasources: 'datasource',
  datasource_agents: 'datasource_agent',
  sql_alerts: 'sql_alert',
  users: 'user',
  user_groups: 'user_group',
  api_keys: 'api_key',
  executions: 'execution',
  invitations: 'user',
};

let doc: any;
let ops: Operation[] = [];
let W: World;
let alert: string;
/** A second alert: the one the restricted keys name (so W's own alert is invisible to them). */
let otherAlert: string;

beforeAll(async () => {
  doc = await openApiDocument();
  ops = (await operations()).filter((op) => !op.public && op.params.length > 0);
  W = await buildWorld('notfound');
  alert = W.ids.sql_alerts;
  const made = await jsonApi(
    '/sql_alerts',
    'POST',
    {
      type: 'sql_alerts',
      attributes: {
        name: 'Named by the restricted keys',
        sql_query: 'select 1',
        run_schedule: 'every',
        run_every: 60,
        trigger_condition: 'has_results',
        email_condition: 'triggered',
      },
      relationships: { datasource: { data: { type: 'datasources', id: W.org.sampleDatasource.id } } },
    },
    W.key,
  );
  otherAlert = made.json.data.id;
}, 120_000);

/** Every permission, each restricted to the given resources of the organization. */
const restricted = (resources: NonNullable<Grant['resources']>): Grant[] => PERMISSIONS.map((permission) => ({ permission, resources }));

const missingId = (k: IdKind) => newId(PREFIX_KIND[k]);

async function walk(who: string, auth: CallOptions, pick: (k: IdKind) => string = missingId, only: (op: Operation) => boolean = () => true) {
  const failures: string[] = [];
  let calls = 0;
  // Deletes last: should one ever succeed, the other calls still find what they name.
  const ordered = [...ops.filter((o) => o.method !== 'DELETE'), ...ops.filter((o) => o.method === 'DELETE')].filter(only);
  for (const op of ordered) {
    const kinds = paramKinds(op);
    const { path, ids } = await fillPath(op, (k) => pick(k as IdKind));
    const missing = Object.values(ids);
    const body = await baseBody(doc, op, W, ids);
    const jsonapi = op.body?.kind === 'jsonapi';
    const res = await call(path, {
      ...auth,
      method: op.method,
      ...(body !== undefined ? { body, contentType: jsonapi ? 'application/vnd.api+json' : 'application/json' } : {}),
    });
    calls++;
    const label = `${who}: ${op.method} ${op.path} (${kinds.join(', ')}) → ${res.status}`;
    const text = JSON.stringify(res.json ?? '');
    try {
      expectJsonApiDocument(res.json);
    } catch {
      failures.push(`${label}: not a JSON:API error document: ${text.slice(0, 200)}`);
      continue;
    }
    const detail: string = res.json.errors?.[0]?.detail ?? '';
    if (res.status === 404) {
      if (res.json.errors[0].code !== 'not_found') failures.push(`${label}: code ${res.json.errors[0].code}`);
    } else if (res.status === 403) {
      // Only "lacks the permission (altogether)" or a call this kind of caller never makes.
      if (missing.some((id) => text.includes(id))) failures.push(`${label}: a 403 naming the id: ${detail}`);
      else if (/ on (dashboard|datasource|SQL alert|report) "/.test(detail)) failures.push(`${label}: a 403 naming a resource: ${detail}`);
    } else {
      failures.push(`${label}: expected 404 (or 403 naming no id): ${text.slice(0, 300)}`);
    }
  }
  return { failures, calls };
}

/** Every permission, each restricted to the sample dashboard, the sample datasource and the other alert. */
const restrictedToSamples = () =>
  restricted([
    { type: 'dashboards', id: W.org.sampleDashboard.id },
    { type: 'datasources', id: W.org.sampleDatasource.id },
    { type: 'sql_alerts', id: otherAlert },
  ]);

describe('404 before 403 on every route that names an id', () => {
  it('answers 404 for ids that do not exist to keys restricted to named resources', async () => {
    const sample = { dashboard: W.org.sampleDashboard.id, datasource: W.org.sampleDatasource.id };
    const keys: [string, Grant[]][] = [
      ['key restricted to a dashboard, a datasource and an alert', restrictedToSamples()],
      ['key restricted to a dashboard', restricted([{ type: 'dashboards', id: sample.dashboard }])],
      ['key restricted to a datasource', restricted([{ type: 'datasources', id: sample.datasource }])],
    ];
    const failures: string[] = [];
    for (const [who, grants] of keys) {
      const out = await walk(who, { key: await makeKey(W.org.organization.id, grants) });
      failures.push(...out.failures);
      expect(out.calls).toBeGreaterThan(60);
    }
    expect(failures, failures.join('\n')).toEqual([]);
  }, 240_000);

  it('answers 404 for ids that do not exist to viewers and analysts (403 only for what the role never allows, naming no id)', async () => {
    const failures: string[] = [];
    for (const role of ['viewer', 'analyst'] as const) {
      const user = await makeUser(W.org.organization.id, role);
      failures.push(...(await walk(role, { session: user.session })).failures);
    }
    expect(failures, failures.join('\n')).toEqual([]);
  }, 240_000);

  it('answers 404 to a restricted key for the dashboards, datasources and alerts of its organization that its grants do not reach', async () => {
    // Routes whose every path parameter names a restrictable resource or what hangs off W's dashboard,
    // filled with W's own (they exist; the key's grants name other dashboards, datasources and alerts).
    const restrictable = new Set<IdKind>(['dashboards', 'datasources', 'sql_alerts']);
    const hanging = new Set<IdKind>([...restrictable, 'reports', 'filters', 'dashboard_schedules', 'dashboard_sharing_links', 'export_jobs']);
    const own = (op: Operation) => paramKinds(op).every((k) => hanging.has(k as IdKind));
    const { failures, calls } = await walk(
      'key restricted to other resources (invisible ids)',
      { key: await makeKey(W.org.organization.id, restrictedToSamples()) },
      (k) => W.ids[k],
      own,
    );
    expect(calls).toBeGreaterThan(50);
    expect(failures, failures.join('\n')).toEqual([]);
    // Nothing was changed or removed by the walk.
    for (const k of restrictable) expect((await call(`/${k}/${W.ids[k as IdKind]}`, { key: W.key })).status, k).toBe(200);
  }, 240_000);

  it('answers 404 to viewers and analysts for a private dashboard of another user and its reports', async () => {
    const dashboard = newId('dashboard');
    const report = newId('report');
    await db().insert(dashboards).values({ id: dashboard, organization_id: W.org.organization.id, name: 'Private to nobody here' });
    await db().insert(reports).values({
      id: report,
      organization_id: W.org.organization.id,
      dashboard_id: dashboard,
      datasource_id: W.org.sampleDatasource.id,
      name: 'Private report',
      sql_query: 'select 1',
    });
    const ids: Partial<Record<IdKind, string>> = { dashboards: dashboard, reports: report };
    const mine = (op: Operation) => paramKinds(op).every((k) => k in ids);
    const failures: string[] = [];
    for (const role of ['viewer', 'analyst'] as const) {
      const user = await makeUser(W.org.organization.id, role);
      const out = await walk(`${role} (a private dashboard)`, { session: user.session }, (k) => ids[k]!, mine);
      expect(out.calls).toBeGreaterThan(20);
      failures.push(...out.failures);
    }
    expect(failures, failures.join('\n')).toEqual([]);
    expect((await call(`/dashboards/${dashboard}`, { key: W.key })).status).toBe(200);
  }, 240_000);

  it('still answers 403 for a visible resource the caller may only view (the walk can fail)', async () => {
    const viewer = await makeUser(W.org.organization.id, 'viewer');
    const id = W.ids.dashboards;
    const res = await jsonApi(`/dashboards/${id}`, 'PATCH', { type: 'dashboards', id, attributes: {} }, { session: viewer.session });
    expect(res.status).toBe(403);
    const key = await makeKey(W.org.organization.id, [
      { permission: 'view_alerts', resources: null },
      { permission: 'manage_alerts', resources: [{ type: 'sql_alerts', id: otherAlert }] },
    ]);
    const run = await call(`/sql_alerts/${alert}/run_query`, { key, method: 'POST' });
    expect(run.status, JSON.stringify(run.json)).toBe(403);
    expect(run.json.errors[0].detail).toContain(alert);
    // Manage Alerts on one alert only, and no View Alerts beyond it: another alert of the organization is
    // invisible, so running it is a 404 like an id that does not exist (it was a 403 naming the alert).
    const one = await makeKey(W.org.organization.id, [{ permission: 'manage_alerts', resources: [{ type: 'sql_alerts', id: otherAlert }] }]);
    for (const id of [alert, newId('sql_alert')]) {
      const res = await call(`/sql_alerts/${id}/run_query`, { key: one, method: 'POST' });
      expect(res.status, JSON.stringify(res.json)).toBe(404);
      expect(res.json.errors[0].code).toBe('not_found');
    }
  });
});
