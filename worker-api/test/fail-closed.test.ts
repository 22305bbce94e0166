/**
 * Fail closed (issue 16): parameters naming no filter of the dashboard (and no variable of the SQL the
 * call runs) are refused with 422 on every call that takes parameters — before, such a value was
 * dropped and the call answered every row. An unparsable timerange is refused whether or not a report
 * uses it. A schedule whose stored parameters name a filter the dashboard no longer has sends nothing.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { dashboards, dashboardSchedules, exportJobs, reports } from '@cairn/db';
import { newId } from '@cairn/core';
import { call, db, jsonApi, makeKey, makeOrg, makeUser } from './fixtures.ts';
import { roomForDatasources } from './engine-fixtures.ts';
import type { CreateOrganizationResult } from '@cairn/db/seed/organization';

let org: CreateOrganizationResult;
let key: string;
let admin: Awaited<ReturnType<typeof makeUser>>;

const typo = {
  filters: [
    { variable_name: 'order_date', selected_values: [] },
    { variable_name: 'Country', selected_values: ['DE'] },
  ],
};
const rel = (type: string, id: string) => ({ data: { type, id } });
const schedule = (attributes: Record<string, unknown>, relationships: Record<string, unknown> = { dashboard: rel('dashboards', org.sampleDashboard.id) }) => ({
  type: 'dashboard_schedules',
  attributes,
  relationships,
});
const base = { name: 'Weekly', emails: 'ana@example.com', attach_as: 'csv', schedule: 'weekly;0;09:00' };

/** The answer is the one 422 for the mistyped entry (index 1), pointing at its name, with the hint. */
function expectRefusedTypo(res: { status: number; json: any }, pointer: string) {
  expect(res.status, JSON.stringify(res.json)).toBe(422);
  expect(res.json.errors).toHaveLength(1);
  expect(res.json.errors[0]).toMatchObject({
    code: 'invalid_attribute',
    source: { pointer: `${pointer}/filters/1/variable_name` },
    meta: { variable_name: 'Country', did_you_mean: 'country' },
  });
  expect(res.json.errors[0].detail).toMatch(/"Country".*did you mean "country"\?/);
}

beforeAll(async () => {
  org = await makeOrg('fail-closed');
  key = await makeKey(org.organization.id);
  admin = await makeUser(org.organization.id, 'admin');
  await roomForDatasources(org.organization.id);
});

describe('a parameter naming no filter is refused on every call that takes parameters', () => {
  it('report data and report refresh', async () => {
    const report = org.sampleDashboard.reports[0]!.id;
    expectRefusedTypo(await call(`/reports/${report}/data`, { key, method: 'POST', body: { parameters: typo } }), '/parameters');
    expectRefusedTypo(await call(`/reports/${report}/refresh`, { key, method: 'POST', body: { parameters: typo } }), '/parameters');
    // The right name runs.
    const right = await call(`/reports/${report}/data`, {
      key,
      method: 'POST',
      body: { parameters: { filters: [{ variable_name: 'country', selected_values: ['DE'] }] } },
    });
    expect([200, 204]).toContain(right.status);
  });

  it('dashboard data, status and refresh', async () => {
    const d = org.sampleDashboard.id;
    expectRefusedTypo(await call(`/dashboards/${d}/data`, { key, method: 'POST', body: { parameters: typo } }), '/parameters');
    expectRefusedTypo(await call(`/dashboards/${d}/status`, { key, method: 'POST', body: { parameters: typo } }), '/parameters');
    expectRefusedTypo(await call(`/dashboards/${d}/refresh`, { key, method: 'POST', body: { parameters: typo } }), '/parameters');
    const ok = await call(`/dashboards/${d}/status`, {
      key,
      method: 'POST',
      body: { parameters: { filters: [{ variable_name: 'country', selected_values: ['DE'] }] } },
    });
    expect(ok.status).toBe(200);
  });

  it('export jobs: no job is made', async () => {
    const report = org.sampleDashboard.reports[0]!.id;
    const before = (await db().select().from(exportJobs).where(eq(exportJobs.organization_id, org.organization.id))).length;
    expectRefusedTypo(await call(`/dashboards/${org.sampleDashboard.id}/export_pdf`, { key, method: 'POST', body: { parameters: typo } }), '/parameters');
    expectRefusedTypo(await call(`/reports/${report}/export_png`, { key, method: 'POST', body: { parameters: typo } }), '/parameters');
    expectRefusedTypo(await call(`/reports/${report}/export_csv`, { key, method: 'POST', body: { parameters: typo } }), '/parameters');
    expect((await db().select().from(exportJobs).where(eq(exportJobs.organization_id, org.organization.id))).length).toBe(before);
  });

  it('filter options and filter refresh', async () => {
    const country = org.sampleDashboard.filters.find((f) => f.variable_name === 'country')!.id;
    const body = { dashboard_id: org.sampleDashboard.id, parameters: typo };
    expectRefusedTypo(await call(`/filters/${country}/options`, { key, method: 'POST', body }), '/parameters');
    expectRefusedTypo(await call(`/filters/${country}/refresh`, { key, method: 'POST', body }), '/parameters');
  });

  it("ad hoc executions with a dashboard_id; the SQL's own variables are ad hoc filters and apply", async () => {
    const path = `/datasources/${org.sampleDatasource.id}/executions`;
    const sql = "select v from (values ('a'), ('b')) t(v) where {v=letters}";
    expectRefusedTypo(
      await call(path, { key, method: 'POST', body: { sql_query: sql, dashboard_id: org.sampleDashboard.id, parameters: typo } }),
      '/parameters',
    );
    const adHoc = await call(path, {
      key,
      method: 'POST',
      body: { sql_query: sql, dashboard_id: org.sampleDashboard.id, parameters: { filters: [{ variable_name: 'letters', selected_values: ['a'] }] } },
    });
    expect(adHoc.status, JSON.stringify(adHoc.json)).toBe(201);
    // Without a dashboard every name is an ad hoc filter of the SQL or refused: none is silently dropped.
    const stray = await call(path, {
      key,
      method: 'POST',
      body: { sql_query: 'select 1', parameters: { filters: [{ variable_name: 'letters', selected_values: ['a'] }] } },
    });
    expect(stray.status).toBe(201);
  });

  it('dashboard schedules: create, update and send_test', async () => {
    const created = await jsonApi('/dashboard_schedules', 'POST', schedule({ ...base, parameters: typo }), key);
    expectRefusedTypo(created, '/data/attributes/parameters');
    const good = await jsonApi(
      '/dashboard_schedules',
      'POST',
      schedule({ ...base, parameters: { filters: [{ variable_name: 'country', selected_values: ['DE'] }] } }),
      key,
    );
    expect(good.status, JSON.stringify(good.json)).toBe(201);
    const id = good.json.data.id;
    expectRefusedTypo(
      await jsonApi(`/dashboard_schedules/${id}`, 'PATCH', { type: 'dashboard_schedules', id, attributes: { parameters: typo } }, key),
      '/data/attributes/parameters',
    );
    const [stored] = await db().select().from(dashboardSchedules).where(eq(dashboardSchedules.id, id));
    expect(stored!.parameters).toEqual({ filters: [{ variable_name: 'country', selected_values: ['DE'] }] });
    expectRefusedTypo(
      await jsonApi('/dashboard_schedules/send_test', 'POST', schedule({ attach_as: 'csv', parameters: typo }), { session: admin.session }),
      '/data/attributes/parameters',
    );
  });

  it("a report's own variables that no filter defines are accepted (ad hoc filters whose values apply)", async () => {
    const id = newId('report');
    await db().insert(reports).values({
      id,
      organization_id: org.organization.id,
      dashboard_id: org.sampleDashboard.id,
      datasource_id: org.sampleDatasource.id,
      name: 'Letters',
      sql_query: "select v from (values ('a'), ('b'), ('c')) t(v) where {v=letters}",
    });
    const one = await call(`/reports/${id}/data`, {
      key,
      method: 'POST',
      body: { parameters: { filters: [{ variable_name: 'letters', selected_values: ['b'] }] } },
    });
    expect(one.status, JSON.stringify(one.json)).toBe(200);
    // A near miss of the variable is still refused, with the variable as the hint.
    const near = await call(`/reports/${id}/data`, {
      key,
      method: 'POST',
      body: { parameters: { filters: [{ variable_name: 'leters', selected_values: ['b'] }] } },
    });
    expect(near.status).toBe(422);
    expect(near.json.errors[0].meta).toMatchObject({ variable_name: 'leters', did_you_mean: 'letters' });
    // Every other report's dashboard call knows it too.
    const status = await call(`/dashboards/${org.sampleDashboard.id}/status`, {
      key,
      method: 'POST',
      body: { parameters: { filters: [{ variable_name: 'letters', selected_values: ['b'] }] } },
    });
    expect(status.status).toBe(200);
    await db().delete(reports).where(eq(reports.id, id));
  });

  it('every unknown name is reported at once; a name far from all gets no hint', async () => {
    const res = await call(`/dashboards/${org.sampleDashboard.id}/data`, {
      key,
      method: 'POST',
      body: {
        parameters: {
          filters: [
            { variable_name: 'zzzzzzzz', selected_values: [1] },
            { variable_name: 'COUNTRY', selected_values: ['DE'] },
          ],
        },
      },
    });
    expect(res.status).toBe(422);
    expect(res.json.errors.map((e: any) => [e.source.pointer, e.meta.did_you_mean ?? null])).toEqual([
      ['/parameters/filters/0/variable_name', null],
      ['/parameters/filters/1/variable_name', 'country'],
    ]);
  });
});

describe('an unparsable timerange is refused whether or not a report uses it', () => {
  it('422 with a pointer to timerange on data, status and schedules; a good one runs', async () => {
    // No sample report uses the built-in timerange.
    const report = org.sampleDashboard.reports[0]!.id;
    for (const timerange of ['last week', '2024-01-01..2024-02-01', '5~3']) {
      const res = await call(`/reports/${report}/data`, { key, method: 'POST', body: { parameters: { timerange } } });
      expect(res.status, timerange).toBe(422);
      expect(res.json.errors[0]).toMatchObject({ code: 'invalid_attribute', source: { pointer: '/parameters/timerange' } });
    }
    const status = await call(`/dashboards/${org.sampleDashboard.id}/status`, { key, method: 'POST', body: { parameters: { timerange: 'the other day' } } });
    expect(status.status).toBe(422);
    expect(status.json.errors[0].source.pointer).toBe('/parameters/timerange');
    const sched = await jsonApi('/dashboard_schedules', 'POST', schedule({ ...base, parameters: { timerange: 'soon' } }), key);
    expect(sched.status).toBe(422);
    expect(sched.json.errors[0].source.pointer).toBe('/data/attributes/parameters/timerange');
    for (const timerange of ['1717200000~1719792000', '~1719792000', '1717200000~', '']) {
      const ok = await call(`/reports/${report}/data`, { key, method: 'POST', body: { parameters: { timerange } } });
      expect([200, 204], timerange).toContain(ok.status);
    }
  });
});

describe('stored parameters naming a filter the dashboard no longer has', () => {
  it("a schedule sends nothing and says why; the dashboard's own stale defaults do not refuse its viewers", async () => {
    const filter = await jsonApi(
      '/filters',
      'POST',
      {
        type: 'filters',
        attributes: { variable_name: 'region', control_type: 'input', value_type: 'TEXT' },
        relationships: { dashboards: { data: [{ type: 'dashboards', id: org.sampleDashboard.id }] } },
      },
      key,
    );
    expect(filter.status, JSON.stringify(filter.json)).toBe(201);
    const region = { filters: [{ variable_name: 'region', selected_values: ['north'] }] };
    const made = await jsonApi('/dashboard_schedules', 'POST', schedule({ ...base, parameters: region }), key);
    expect(made.status, JSON.stringify(made.json)).toBe(201);
    await db().update(dashboards).set({ default_parameters: region }).where(eq(dashboards.id, org.sampleDashboard.id));

    expect((await call(`/filters/${filter.json.data.id}`, { key, method: 'DELETE' })).status).toBe(204);
    const sent = await call(`/dashboard_schedules/${made.json.data.id}/send_now`, { key, method: 'POST' });
    expect(sent.status).toBe(422);
    expect(sent.json.errors[0].code).toBe('invalid_state');
    expect(sent.json.errors[0].detail).toMatch(/parameters do not fit its dashboard any more, so nothing was sent: .*"region"/);
    const [row] = await db()
      .select()
      .from(dashboardSchedules)
      .where(and(eq(dashboardSchedules.id, made.json.data.id), eq(dashboardSchedules.organization_id, org.organization.id)));
    expect(row!.last_error_message).toMatch(/"region"/);
    expect(row!.last_sent_at).toBeNull();

    // The defaults are the owner's: a viewer's call without parameters still runs.
    const status = await call(`/dashboards/${org.sampleDashboard.id}/status`, { key, method: 'POST', body: {} });
    expect(status.status).toBe(200);
    await db().update(dashboards).set({ default_parameters: {} }).where(eq(dashboards.id, org.sampleDashboard.id));
  });
});
