/**
 * Restricted keys and viewers stay inside their grant (issue 14). Keys restricted to one dashboard, one
 * datasource or one SQL alert, a viewer session and a view-only key walk the routes; every call is
 * allowed or refused as the table in docs/pages/administration/api-keys.mdx says, including every
 * execution route with executions somebody else started. The last block checks that the table names
 * every operation of /openapi.json, so a new route cannot be left out of it.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { newId, PERMISSIONS, type Grant, type Permission, type RestrictableResourceType } from '@cairn/core';
import { datasources } from '@cairn/db';
import type { CreateOrganizationResult } from '@cairn/db/seed/organization';
import grantTable from '../../docs/pages/administration/api-keys.mdx?raw';
import { call, db, jsonApi, makeKey, makeOrg, makeUser, type CallOptions } from './fixtures.ts';
import { roomForDatasources } from './engine-fixtures.ts';
import type { SecurityCase, SecurityCaseFactory } from './security/cases.ts';

let org: CreateOrganizationResult;
let key = '';
let admin: { session: string };
let viewer: { session: string };
const ids = {} as Record<
  | 'dashA'
  | 'dashB'
  | 'reportA'
  | 'reportB'
  | 'ds'
  | 'ds2'
  | 'alert1'
  | 'alert2'
  | 'alertOnDs2'
  | 'filterA'
  | 'filterB'
  | 'filterShared'
  | 'filterOrg'
  | 'snippet'
  | 'group'
  | 'agent'
  | 'linkA'
  | 'linkB'
  | 'scheduleA'
  | 'scheduleB'
  | 'adHoc'
  | 'runA'
  | 'runB'
  | 'runAlert1'
  | 'runAlert2'
  | 'runFilterA'
  | 'runFilterOrg',
  string
>;
const keys = {} as Record<'dash' | 'ds' | 'dsDash' | 'alert' | 'alertOnDash' | 'alertsDsDash' | 'viewOnly', string>;

const rel = (type: string, id: string) => ({ data: { type, id } });
const many = (type: string, list: string[]) => ({ data: list.map((id) => ({ type, id })) });
const restrictedTo = (type: RestrictableResourceType, id: string, perms: Permission[]): Grant[] =>
  perms.map((permission) => ({ permission, resources: [{ type, id }] }));
const expectOk = (res: { status: number; json: unknown }, what: string) =>
  expect(res.status, `${what} → ${res.status} ${JSON.stringify(res.json)}`).toBeLessThan(300);
const expectStatus = (res: { status: number; json: any }, status: number, what: string) => {
  expect(res.status, `${what} → ${JSON.stringify(res.json)}`).toBe(status);
  if (status >= 400) expect(res.json.errors[0].code, what).toBe(status === 403 ? 'forbidden' : 'not_found');
};

/**
 * The shared security suite's cases (test/security/*.ts), made once in this organization: they carry a
 * valid body for every write, so a refusal is the permission's and not the body's.
 */
let madeCases: Promise<SecurityCase[]> | null = null;
function securityCases(): Promise<SecurityCase[]> {
  madeCases ??= (async () => {
    const modules = import.meta.glob<{ securityCases?: SecurityCaseFactory }>('./security/*.ts', { eager: true });
    const cases: SecurityCase[] = [];
    // Modules without cases (cases.ts, completeness.ts) hold the suite's types and bookkeeping.
    for (const m of Object.values(modules)) if (m.securityCases) cases.push(...(await m.securityCases({ org, key })));
    return cases;
  })();
  return madeCases;
}

async function settled(id: string) {
  for (let i = 0; i < 200; i++) {
    const res = await call(`/executions/${id}`, { key });
    if (!['starting', 'running', 'waiting', 'scheduled'].includes(res.json.execution_status)) return res.json;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`execution ${id} did not finish`);
}

const sqlDropdown = (variable_name: string, dashboards: string[]) => ({
  type: 'filters',
  attributes: { variable_name, control_type: 'dropdown', value_type: 'TEXT', sql_query: "select 'a' as v" },
  relationships: { datasource: rel('datasources', org.sampleDatasource.id), dashboards: many('dashboards', dashboards) },
});

beforeAll(async () => {
  org = await makeOrg('grants');
  key = await makeKey(org.organization.id);
  await roomForDatasources(org.organization.id);
  admin = await makeUser(org.organization.id, 'admin');
  viewer = await makeUser(org.organization.id, 'viewer');
  ids.dashA = org.sampleDashboard.id;
  ids.reportA = org.sampleDashboard.reports[0]!.id;
  ids.ds = org.sampleDatasource.id;
  ids.dashB = (await jsonApi('/dashboards', 'POST', { type: 'dashboards', attributes: { name: 'Grants B' } }, key)).json.data.id;
  ids.reportB = (
    await jsonApi(
      '/reports',
      'POST',
      {
        type: 'reports',
        attributes: { name: 'B report', sql_query: 'select 2 as n' },
        relationships: { dashboard: rel('dashboards', ids.dashB), datasource: rel('datasources', ids.ds) },
      },
      key,
    )
  ).json.data.id;
  ids.ds2 = newId('datasource');
  await db()
    .insert(datasources)
    .values({ id: ids.ds2, organization_id: org.organization.id, name: 'Grants other', database_type: 'postgres', connection_mode: 'direct' });
  const alert = (name: string) => ({
    type: 'sql_alerts',
    relationships: { datasource: rel('datasources', ids.ds) },
    attributes: { name, sql_query: 'select 1 as n', run_schedule: 'disabled', trigger_condition: 'has_results', email_condition: 'triggered' },
  });
  ids.alert1 = (await jsonApi('/sql_alerts', 'POST', alert('Grants alert 1'), key)).json.data.id;
  ids.alert2 = (await jsonApi('/sql_alerts', 'POST', alert('Grants alert 2'), key)).json.data.id;
  ids.alertOnDs2 = (
    await jsonApi('/sql_alerts', 'POST', { ...alert('Grants alert on ds2'), relationships: { datasource: rel('datasources', ids.ds2) } }, key)
  ).json.data.id;
  const filter = async (body: unknown) => {
    const res = await jsonApi('/filters', 'POST', body, key);
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    return res.json.data.id as string;
  };
  ids.filterA = await filter(sqlDropdown('grants_a', [ids.dashA]));
  ids.filterB = await filter(sqlDropdown('grants_b', [ids.dashB]));
  ids.filterShared = await filter(sqlDropdown('grants_shared', [ids.dashA, ids.dashB]));
  ids.filterOrg = await filter(sqlDropdown('grants_org', []));
  ids.snippet = (await jsonApi('/sql_snippets', 'POST', { type: 'sql_snippets', attributes: { name: 'grants_snippet', text: 'TRUE' } }, key)).json.data.id;
  ids.group = (await jsonApi('/dashboard_groups', 'POST', { type: 'dashboard_groups', attributes: { name: 'Grants group' } }, key)).json.data.id;
  ids.agent = (await jsonApi('/datasource_agents', 'POST', { type: 'datasource_agents', attributes: { name: 'Grants agent' } }, key)).json.data.id;
  const link = async (dashboard: string) =>
    (
      await jsonApi(
        '/dashboard_sharing_links',
        'POST',
        {
          type: 'dashboard_sharing_links',
          attributes: { name: 'Grants link' },
          relationships: { dashboard: rel('dashboards', dashboard) },
        },
        key,
      )
    ).json.data.id as string;
  ids.linkA = await link(ids.dashA);
  ids.linkB = await link(ids.dashB);
  const schedule = async (dashboard: string) =>
    (
      await jsonApi(
        '/dashboard_schedules',
        'POST',
        {
          type: 'dashboard_schedules',
          attributes: { name: 'Grants schedule', emails: 'a@example.test', attach_as: 'csv', schedule: 'disabled' },
          relationships: { dashboard: rel('dashboards', dashboard) },
        },
        key,
      )
    ).json.data.id as string;
  ids.scheduleA = await schedule(ids.dashA);
  ids.scheduleB = await schedule(ids.dashB);

  // Executions somebody else started: an admin's ad hoc SQL, report refreshes, alert runs, dropdown queries.
  const adHoc = await call(`/datasources/${ids.ds}/executions`, { session: admin.session, method: 'POST', body: { sql_query: 'select 42 as answer' } });
  expect(adHoc.status, JSON.stringify(adHoc.json)).toBe(201);
  ids.adHoc = adHoc.json.execution_id;
  const refresh = async (path: string, body: unknown = {}) => {
    const res = await call(path, { key, method: 'POST', body });
    expect(res.json?.execution_id, `${path} → ${JSON.stringify(res.json)}`).toBeTruthy();
    return res.json.execution_id as string;
  };
  ids.runA = await refresh(`/reports/${ids.reportA}/refresh`);
  ids.runB = await refresh(`/reports/${ids.reportB}/refresh`);
  ids.runAlert1 = await refresh(`/sql_alerts/${ids.alert1}/run_query`);
  ids.runAlert2 = await refresh(`/sql_alerts/${ids.alert2}/run_query`);
  ids.runFilterA = await refresh(`/filters/${ids.filterA}/refresh`, { dashboard_id: ids.dashA });
  ids.runFilterOrg = await refresh(`/filters/${ids.filterOrg}/refresh`);
  for (const id of [ids.adHoc, ids.runA, ids.runB, ids.runAlert1, ids.runAlert2, ids.runFilterA, ids.runFilterOrg]) {
    expect((await settled(id)).execution_status, id).toBe('success');
  }

  const o = org.organization.id;
  keys.dash = await makeKey(o, restrictedTo('dashboards', ids.dashA, ['view_dashboards', 'manage_dashboards', 'view_schedules', 'manage_schedules']));
  keys.ds = await makeKey(o, restrictedTo('datasources', ids.ds, ['view_datasources', 'manage_datasources']));
  keys.dsDash = await makeKey(o, restrictedTo('datasources', ids.ds, ['manage_dashboards']));
  keys.alert = await makeKey(o, restrictedTo('sql_alerts', ids.alert1, ['view_alerts', 'manage_alerts']));
  keys.alertOnDash = await makeKey(o, restrictedTo('dashboards', ids.dashA, ['view_alerts', 'manage_alerts']));
  keys.alertsDsDash = await makeKey(o, [{ permission: 'view_alerts', resources: null }, ...restrictedTo('datasources', ids.ds, ['manage_dashboards'])]);
  keys.viewOnly = await makeKey(
    o,
    PERMISSIONS.filter((p) => p.startsWith('view_')).map((permission) => ({ permission, resources: null })),
  );
}, 180_000);

describe('a key restricted to one dashboard', () => {
  it('reads and changes that dashboard and what belongs to it', async () => {
    const k = keys.dash;
    const list = await call('/dashboards', { key: k });
    expect(list.json.data.map((d: any) => d.id)).toEqual([ids.dashA]);
    expectOk(await call(`/dashboards/${ids.dashA}`, { key: k }), 'GET dashboard A');
    expectOk(
      await jsonApi(`/dashboards/${ids.dashA}`, 'PATCH', { type: 'dashboards', id: ids.dashA, attributes: { description: 'kept' } }, k),
      'PATCH dashboard A',
    );
    expectOk(await call(`/reports/${ids.reportA}`, { key: k }), 'GET report A');
    expectOk(await jsonApi(`/reports/${ids.reportA}`, 'PATCH', { type: 'reports', id: ids.reportA, attributes: { description: 'kept' } }, k), 'PATCH report A');
    expectOk(await jsonApi(`/filters/${ids.filterA}`, 'PATCH', { type: 'filters', id: ids.filterA, attributes: { display_name: 'A' } }, k), 'PATCH filter A');
    expectOk(await call(`/dashboard_sharing_links/${ids.linkA}`, { key: k }), 'GET link A');
    expectOk(await call(`/dashboard_schedules/${ids.scheduleA}`, { key: k }), 'GET schedule A');
    expectOk(await call(`/dashboards/${ids.dashA}/status`, { key: k, method: 'POST', body: {} }), 'status A');
    expectOk(await call(`/executions/${ids.runA}`, { key: k }), 'execution of report A');
    expectOk(await call(`/executions/${ids.runFilterA}`, { key: k }), 'execution of filter A');
    expectStatus(await call(`/executions/${ids.runA}/cancel`, { key: k, method: 'POST' }), 204, 'cancel report A run');
    expectOk(await call('/sql_snippets', { key: k }), 'snippets are read');
  });

  it('is refused other dashboards and what belongs to them', async () => {
    const k = keys.dash;
    expectStatus(await call(`/dashboards/${ids.dashB}`, { key: k }), 404, 'GET dashboard B');
    expectStatus(
      await jsonApi(`/dashboards/${ids.dashB}`, 'PATCH', { type: 'dashboards', id: ids.dashB, attributes: { description: 'x' } }, k),
      404,
      'PATCH dashboard B',
    );
    expectStatus(await call(`/reports/${ids.reportB}`, { key: k }), 404, 'GET report B');
    expectStatus(
      await jsonApi(`/reports/${ids.reportB}`, 'PATCH', { type: 'reports', id: ids.reportB, attributes: { description: 'x' } }, k),
      404,
      'PATCH report B',
    );
    expectStatus(await call(`/filters/${ids.filterB}`, { key: k }), 404, 'GET filter B');
    expectStatus(await call(`/dashboard_sharing_links/${ids.linkB}`, { key: k }), 404, 'GET link B');
    expectStatus(await call(`/dashboard_schedules/${ids.scheduleB}`, { key: k }), 404, 'GET schedule B');
    for (const id of [ids.runB, ids.adHoc, ids.runAlert1]) {
      expectStatus(await call(`/executions/${id}`, { key: k }), 404, `GET execution ${id}`);
      expectStatus(await call(`/executions/${id}/data`, { key: k }), 404, `data of execution ${id}`);
      expectStatus(await call(`/executions/${id}/cancel`, { key: k, method: 'POST' }), 404, `cancel execution ${id}`);
    }
  });

  it('changes nothing organization-wide and runs no ad hoc SQL', async () => {
    const k = keys.dash;
    expectStatus(
      await jsonApi(`/filters/${ids.filterShared}`, 'PATCH', { type: 'filters', id: ids.filterShared, attributes: { display_name: 'x' } }, k),
      403,
      'filter shared with dashboard B',
    );
    expectStatus(await call(`/filters/${ids.filterShared}`, { key: k, method: 'DELETE' }), 403, 'delete a filter shared with B');
    expectStatus(
      await jsonApi(`/filters/${ids.filterOrg}`, 'PATCH', { type: 'filters', id: ids.filterOrg, attributes: { display_name: 'x' } }, k),
      403,
      'filter on no dashboard',
    );
    expectStatus(await call(`/filters/${ids.filterOrg}/refresh`, { key: k, method: 'POST', body: {} }), 403, 'run a filter on no dashboard');
    expectStatus(
      await jsonApi('/filters', 'POST', { type: 'filters', attributes: { variable_name: 'grants_new', control_type: 'input', value_type: 'TEXT' } }, k),
      403,
      'filter on no dashboard',
    );
    const onA = await jsonApi(
      '/filters',
      'POST',
      {
        type: 'filters',
        attributes: { variable_name: 'grants_on_a', control_type: 'input', value_type: 'TEXT' },
        relationships: { dashboards: many('dashboards', [ids.dashA]) },
      },
      k,
    );
    expectStatus(onA, 201, 'a new filter on dashboard A');
    expectStatus(await jsonApi('/sql_snippets', 'POST', { type: 'sql_snippets', attributes: { name: 'grants_x', text: '1' } }, k), 403, 'create snippet');
    expectStatus(
      await jsonApi(`/sql_snippets/${ids.snippet}`, 'PATCH', { type: 'sql_snippets', id: ids.snippet, attributes: { text: 'FALSE' } }, k),
      403,
      'change snippet',
    );
    expectStatus(await call(`/sql_snippets/${ids.snippet}`, { key: k, method: 'DELETE' }), 403, 'delete snippet');
    expectStatus(await jsonApi('/dashboard_groups', 'POST', { type: 'dashboard_groups', attributes: { name: 'x' } }, k), 403, 'create group');
    expectStatus(
      await jsonApi(`/dashboard_groups/${ids.group}`, 'PATCH', { type: 'dashboard_groups', id: ids.group, attributes: { name: 'x' } }, k),
      403,
      'change group',
    );
    expectStatus(await call(`/dashboard_groups/${ids.group}`, { key: k, method: 'DELETE' }), 403, 'delete group');
    expectStatus(await call('/dashboard_groups/sort', { key: k, method: 'POST', body: { dashboard_group_ids: [ids.group] } }), 403, 'sort groups');
    expectStatus(await jsonApi('/dashboards', 'POST', { type: 'dashboards', attributes: { name: 'x' } }, k), 403, 'create dashboard');
    expectStatus(await call(`/dashboards/${ids.dashA}/duplicate`, { key: k, method: 'POST' }), 403, 'duplicate dashboard');
    expectStatus(await call(`/datasources/${ids.ds}/executions`, { key: k, method: 'POST', body: { sql_query: 'select 1' } }), 403, 'ad hoc SQL');
    expectStatus(await jsonApi('/datasource_agents', 'POST', { type: 'datasource_agents', attributes: { name: 'x' } }, k), 403, 'create agent');
  });
});

describe('keys restricted to one datasource', () => {
  it('manage that datasource, run SQL on it and see every execution on it', async () => {
    const k = keys.ds;
    expectOk(await call(`/datasources/${ids.ds}`, { key: k }), 'GET datasource');
    expectStatus(await call(`/datasources/${ids.ds2}`, { key: k }), 404, 'GET other datasource');
    expectStatus(await call(`/datasources/${ids.ds}/executions`, { key: k, method: 'POST', body: { sql_query: 'select 1' } }), 201, 'ad hoc SQL on it');
    expectStatus(await call(`/datasources/${ids.ds2}/executions`, { key: k, method: 'POST', body: { sql_query: 'select 1' } }), 403, 'ad hoc SQL elsewhere');
    // Managing the datasource reads every execution on it, the admin's ad hoc one included.
    expectOk(await call(`/executions/${ids.adHoc}`, { key: k }), 'admin ad hoc run');
    expectOk(await call(`/executions/${ids.adHoc}/data`, { key: k }), 'its data');
    expectOk(await call(`/executions/${ids.runA}`, { key: k }), 'a report run on it');
  });

  it('add nothing organization-wide', async () => {
    const k = keys.ds;
    expectStatus(
      await jsonApi('/datasources', 'POST', { type: 'datasources', attributes: { name: 'x', database_type: 'postgres', connection_mode: 'direct' } }, k),
      403,
      'create datasource',
    );
    expectStatus(await jsonApi('/datasource_agents', 'POST', { type: 'datasource_agents', attributes: { name: 'x' } }, k), 403, 'create agent');
    expectStatus(
      await jsonApi(`/datasource_agents/${ids.agent}`, 'PATCH', { type: 'datasource_agents', id: ids.agent, attributes: { name: 'x' } }, k),
      403,
      'change agent',
    );
    expectStatus(await call(`/datasource_agents/${ids.agent}`, { key: k, method: 'DELETE' }), 403, 'delete agent');
  });

  it('with Manage Dashboards, run ad hoc SQL there but see no dashboard and no one else’s ad hoc rows', async () => {
    const k = keys.dsDash;
    expectStatus(await call(`/datasources/${ids.ds}/executions`, { key: k, method: 'POST', body: { sql_query: 'select 1' } }), 201, 'ad hoc SQL on it');
    expectStatus(await call(`/datasources/${ids.ds2}/executions`, { key: k, method: 'POST', body: { sql_query: 'select 1' } }), 403, 'ad hoc SQL elsewhere');
    expect((await call('/dashboards', { key: k })).json.data).toEqual([]);
    expectStatus(await call(`/executions/${ids.adHoc}`, { key: k }), 404, 'admin ad hoc run');
    expectStatus(await jsonApi('/sql_snippets', 'POST', { type: 'sql_snippets', attributes: { name: 'grants_y', text: '1' } }, k), 403, 'create snippet');
  });
});

describe('keys restricted to one alert', () => {
  it('read, change and run that alert and its executions only', async () => {
    const k = keys.alert;
    expectOk(await call(`/sql_alerts/${ids.alert1}`, { key: k }), 'GET alert 1');
    expectOk(await call(`/sql_alerts/${ids.alert1}/results`, { key: k }), 'results of alert 1');
    expectOk(
      await jsonApi(`/sql_alerts/${ids.alert1}`, 'PATCH', { type: 'sql_alerts', id: ids.alert1, attributes: { description: 'kept' } }, k),
      'PATCH alert 1',
    );
    expectOk(await call(`/executions/${ids.runAlert1}`, { key: k }), 'run of alert 1');
    expectStatus(await call(`/executions/${ids.runAlert1}/cancel`, { key: k, method: 'POST' }), 204, 'cancel run of alert 1');
    expectStatus(await call(`/sql_alerts/${ids.alert2}`, { key: k }), 404, 'GET alert 2');
    expectStatus(await call(`/sql_alerts/${ids.alert2}/run_query`, { key: k, method: 'POST' }), 404, 'run alert 2');
    expectStatus(await call(`/executions/${ids.runAlert2}`, { key: k }), 404, 'run of alert 2');
    expectStatus(await call(`/executions/${ids.adHoc}`, { key: k }), 404, 'admin ad hoc run');
    expectStatus(await call(`/datasources/${ids.ds}/executions`, { key: k, method: 'POST', body: { sql_query: 'select 1' } }), 403, 'ad hoc SQL');
    const create = {
      type: 'sql_alerts',
      relationships: { datasource: rel('datasources', ids.ds) },
      attributes: { name: 'x', sql_query: 'select 1', run_schedule: 'disabled', trigger_condition: 'has_results', email_condition: 'triggered' },
    };
    expectStatus(await jsonApi('/sql_alerts', 'POST', create, k), 403, 'create alert');
    // Alerts restricted to a dashboard reach no alert at all.
    expectStatus(await call(`/sql_alerts/${ids.alert1}`, { key: keys.alertOnDash }), 404, 'alert key restricted to a dashboard');
    expect((await call('/sql_alerts', { key: keys.alertOnDash })).json.data).toEqual([]);
  });

  it('include only the datasources their Manage Dashboards grant reaches', async () => {
    const listed = await call('/sql_alerts?include=datasource&page[size]=100', { key: keys.alertsDsDash });
    expectOk(listed, 'list alerts with their datasources');
    const alertDatasources = new Set(listed.json.data.map((a: any) => a.relationships.datasource.data.id));
    expect(alertDatasources).toEqual(new Set([ids.ds, ids.ds2]));
    expect(listed.json.included.map((d: any) => d.id)).toEqual([ids.ds]);
    const other = await call(`/sql_alerts/${ids.alertOnDs2}?include=datasource`, { key: keys.alertsDsDash });
    expectOk(other, 'alert on the other datasource');
    expect(other.json.included).toEqual([]);
  });
});

describe('viewers and view-only keys change nothing and read only what they may see', () => {
  const principals = (): [string, CallOptions][] => [
    ['viewer session', { session: viewer.session }],
    ['view-only key', { key: keys.viewOnly }],
  ];

  it("read a dashboard's executions but cannot cancel them, and never see an admin's ad hoc rows", async () => {
    for (const [who, as] of principals()) {
      expectOk(await call(`/executions/${ids.runA}`, as), `${who}: report run`);
      expect([200, 204], who).toContain((await call(`/executions/${ids.runA}/data`, as)).status);
      expectOk(await call(`/executions/${ids.runAlert1}`, as), `${who}: alert run`);
      expectStatus(await call(`/executions/${ids.runA}/cancel`, { ...as, method: 'POST' }), 403, `${who}: cancel report run`);
      expectStatus(await call(`/executions/${ids.runAlert1}/cancel`, { ...as, method: 'POST' }), 403, `${who}: cancel alert run`);
      expectStatus(await call(`/executions/${ids.runFilterA}/cancel`, { ...as, method: 'POST' }), 403, `${who}: cancel dropdown query`);
      expectStatus(await call(`/executions/${ids.adHoc}`, as), 404, `${who}: admin ad hoc run`);
      expectStatus(await call(`/executions/${ids.adHoc}/data`, as), 404, `${who}: admin ad hoc rows`);
      expectStatus(await call(`/executions/${ids.adHoc}/cancel`, { ...as, method: 'POST' }), 404, `${who}: cancel admin ad hoc run`);
    }
    // The viewer does not see dashboard B (private to the organization's key), so not its executions either.
    expectStatus(await call(`/executions/${ids.runB}`, { session: viewer.session }), 404, 'viewer: run of a hidden dashboard');
    // The admin who started the ad hoc run reads its rows.
    expectOk(await call(`/executions/${ids.adHoc}/data`, { session: admin.session }), 'admin: own ad hoc rows');
  });

  it('every write a viewer or a view-only key can reach is refused (read-and-compute calls aside)', async () => {
    const cases = await securityCases();
    // series_colors: a viewer's dashboard assigns colours to the values it draws (View Dashboards, by design).
    const compute =
      /^\/(dashboards\/[^/]+\/(status|refresh|data|export_pdf|export_png|series_colors)|reports\/[^/]+\/(data|refresh|export_pdf|export_png|export_csv)|filters\/[^/]+\/(options|refresh)|public\/)/;
    const writes = cases.filter((c) => c.method !== 'GET' && !compute.test(c.path));
    expect(writes.length).toBeGreaterThan(40);
    for (const [who, as] of principals()) {
      for (const c of writes) {
        const res = await call(c.path, {
          ...as,
          method: c.method,
          ...(c.body !== undefined ? { body: c.body, contentType: c.jsonapi ? 'application/vnd.api+json' : 'application/json' } : {}),
        });
        expect([403, 404], `${who}: ${c.method} ${c.path} → ${res.status} ${JSON.stringify(res.json)}`).toContain(res.status);
      }
    }
  }, 120_000);
});

describe('organization-wide writes', () => {
  it('refuse a key holding every permission restricted to a dashboard, a datasource and an alert (403)', async () => {
    const cases = await securityCases();
    const orgWide =
      /^\/(dashboards(\/restore|\/[^/]+\/duplicate)?|dashboard_groups(\/.*)?|datasource_agents(\/.*)?|datasources|sql_snippets(\/.*)?|users(\/.*)?|user_groups(\/.*)?)$/;
    const writes = cases.filter((c) => c.method !== 'GET' && orgWide.test(c.path));
    expect(writes.length).toBeGreaterThan(20);
    const named = [
      { type: 'dashboards' as const, id: ids.dashA },
      { type: 'datasources' as const, id: ids.ds },
      { type: 'sql_alerts' as const, id: ids.alert1 },
    ];
    const restricted = await makeKey(
      org.organization.id,
      PERMISSIONS.map((permission) => ({ permission, resources: named })),
    );
    for (const c of writes) {
      const res = await call(c.path, {
        key: restricted,
        method: c.method,
        ...(c.body !== undefined ? { body: c.body, contentType: c.jsonapi ? 'application/vnd.api+json' : 'application/json' } : {}),
      });
      // Duplicating a dashboard outside the grant: it is invisible to this key, so 404 (D44).
      const duplicated = /^\/dashboards\/([^/]+)\/duplicate$/.exec(c.path)?.[1];
      expectStatus(res, duplicated && duplicated !== ids.dashA ? 404 : 403, `${c.method} ${c.path}`);
    }
  }, 120_000);
});

describe('the grant table', () => {
  it('names every operation of the OpenAPI document', async () => {
    const doc = (await call('/openapi.json')).json;
    const missing: string[] = [];
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, unknown>>)) {
      for (const method of Object.keys(item).filter((m) => ['get', 'post', 'put', 'patch', 'delete'].includes(m))) {
        if (!grantTable.includes(`\`${method.toUpperCase()} ${path}\``)) missing.push(`${method.toUpperCase()} ${path}`);
      }
    }
    expect(missing, 'add these calls to the table in docs/pages/administration/api-keys.mdx').toEqual([]);
  });
});
