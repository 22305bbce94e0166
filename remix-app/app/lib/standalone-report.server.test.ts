import { describe, expect, it } from 'vitest';
import { ApiClient } from './api.server';
import type { AppEnv, ServiceBinding } from './env.server';
import { readTarget, saveStandalone } from './standalone-report.server';
import { binding } from './service-binding.test-kit';

const page = new Request('http://app/app/reports/new');
const client = (api: ServiceBinding) => new ApiClient({ API: api, DATA: api } as AppEnv, page, 'tok123');
const report = {
  data: {
    type: 'reports',
    attributes: { name: 'Orders', sql_query: 'select 1' },
    relationships: { datasource: { data: { type: 'datasources', id: 'dsr_1' } } },
  },
};
const at = (r: Request) => `${r.method} ${new URL(r.url).pathname}`;

describe('saving from the standalone SQL editor', () => {
  it('puts the report on the dashboard picked', async () => {
    const api = binding(() => Response.json({ data: { id: 'rep_1' } }, { status: 201 }));
    expect(await saveStandalone(client(api), report, { dashboardId: 'dsh_7' })).toEqual({ ok: true, dashboardId: 'dsh_7' });
    expect(api.seen.map(at)).toEqual(['POST /reports']);
    const sent = (await api.seen[0]!.json()) as typeof report & { data: { relationships: Record<string, unknown> } };
    expect(sent.data.relationships).toEqual({
      datasource: { data: { type: 'datasources', id: 'dsr_1' } },
      dashboard: { data: { type: 'dashboards', id: 'dsh_7' } },
    });
  });

  it('creates a new dashboard with the name given, then the report on it', async () => {
    const api = binding((r) =>
      new URL(r.url).pathname === '/dashboards'
        ? Response.json({ data: { id: 'dsh_new', type: 'dashboards' } }, { status: 201 })
        : Response.json({ data: { id: 'rep_1' } }, { status: 201 }),
    );
    expect(await saveStandalone(client(api), report, { newDashboard: '  Sales  ' })).toEqual({ ok: true, dashboardId: 'dsh_new' });
    expect(api.seen.map(at)).toEqual(['POST /dashboards', 'POST /reports']);
    expect(await api.seen[0]!.json()).toEqual({ data: { type: 'dashboards', attributes: { name: 'Sales' } } });
    expect(((await api.seen[1]!.json()) as { data: { relationships: { dashboard: unknown } } }).data.relationships.dashboard).toEqual({
      data: { type: 'dashboards', id: 'dsh_new' },
    });
  });

  it('deletes the new dashboard again when the report is refused, and answers the report’s errors', async () => {
    const api = binding((r) => {
      if (r.method === 'POST' && new URL(r.url).pathname === '/dashboards') return Response.json({ data: { id: 'dsh_new' } }, { status: 201 });
      if (r.method === 'DELETE') return new Response(null, { status: 204 });
      return Response.json(
        { errors: [{ status: '422', code: 'missing_attribute', detail: 'name is required.', source: { pointer: '/data/attributes/name' } }] },
        { status: 422 },
      );
    });
    const answer = await saveStandalone(client(api), report, { newDashboard: 'Sales' });
    expect(answer).toMatchObject({ ok: false, status: 422, errors: [{ code: 'missing_attribute', source: { pointer: '/data/attributes/name' } }] });
    expect(api.seen.map(at)).toEqual(['POST /dashboards', 'POST /reports', 'DELETE /dashboards/dsh_new']);
  });

  it('refuses without a target or a name, calling nothing', async () => {
    const api = binding(() => Response.json({}));
    expect(await saveStandalone(client(api), report, null)).toMatchObject({
      ok: false,
      status: 422,
      errors: [{ source: { pointer: '/data/relationships/dashboard' } }],
    });
    expect(await saveStandalone(client(api), report, { newDashboard: '   ' })).toMatchObject({ ok: false, errors: [{ detail: 'Name the new dashboard.' }] });
    expect(api.seen).toHaveLength(0);
    expect(readTarget({ dashboardId: 'dsh_1' })).toEqual({ dashboardId: 'dsh_1' });
    expect(readTarget({ newDashboard: 'x' })).toEqual({ newDashboard: 'x' });
    expect(readTarget({ dashboardId: 3 })).toBeNull();
    expect(readTarget(null)).toBeNull();
  });
});
