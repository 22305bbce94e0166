import { beforeAll, describe, expect, it } from 'vitest';
import { eq, sql } from 'drizzle-orm';
import { datasources, executions } from '@cairn/db';
import { newId } from '@cairn/core';
import { call, db, makeKey, makeOrg, makeRawKey, makeUser, only } from './fixtures.ts';
import type { CreateOrganizationResult } from '@cairn/db/seed/organization';

let org: CreateOrganizationResult;
let key: string;
let sample: string;
const run = (sqlText: string, o: { key?: string; session?: string; ds?: string; parameters?: unknown } = {}) =>
  call(`/datasources/${o.ds ?? sample}/executions`, {
    ...(o.session ? { session: o.session } : { key: o.key ?? key }), method: 'POST',
    body: { sql_query: sqlText, ...(o.parameters ? { parameters: o.parameters } : {}) },
  });

async function waitFor(id: string, done = (s: string) => !['starting', 'running', 'waiting', 'scheduled'].includes(s), ms = 20_000) {
  const until = Date.now() + ms;
  for (;;) {
    const res = await call(`/executions/${id}`, { key });
    if (done(res.json.execution_status) || Date.now() > until) return res.json;
    await new Promise((r) => setTimeout(r, 100));
  }
}

beforeAll(async () => {
  org = await makeOrg('executions');
  key = await makeKey(org.organization.id);
  sample = org.sampleDatasource.id;
});

describe('executions', () => {
  it('runs asynchronously, then hands out the data', async () => {
    const res = await run("select id, email from customers where {country=country} order by id limit 3", {
      parameters: { filters: [{ variable_name: 'country', selected_values: ['DE'] }] },
    });
    expect(res.status).toBe(201);
    expect(['starting', 'running', 'success']).toContain(res.json.execution_status);
    const done = await waitFor(res.json.execution_id);
    expect(done).toMatchObject({ execution_status: 'success', result_columns: 2, result_rows: 3, error_message: null });
    const data = await call(`/executions/${res.json.execution_id}/data`, { key });
    expect(data.status).toBe(200);
    expect(data.json.data_key).toContain(res.json.execution_id);
    expect(data.json.data_access_token).toBeTruthy();
    const [row] = await db().select().from(executions).where(eq(executions.id, res.json.execution_id));
    // The value travelled as a parameter: the stored SQL is what the analyst wrote.
    expect(row!.sql_query).toContain('{country=country}');
  });

  it('a bad query ends as query_error with the database message, and no data', async () => {
    const res = await run('select no_such_column from customers');
    const done = await waitFor(res.json.execution_id);
    expect(done.execution_status).toBe('query_error');
    expect(done.error_message).toMatch(/no_such_column/);
    expect((await call(`/executions/${res.json.execution_id}/data`, { key })).status).toBe(204);
  });

  it('an empty result answers 204 for its data', async () => {
    const res = await run('select 1 as x where false');
    expect((await waitFor(res.json.execution_id)).execution_status).toBe('success');
    expect((await call(`/executions/${res.json.execution_id}/data`, { key })).status).toBe(204);
  });

  it('cancel stops a running query in the database; cancelling again changes nothing', async () => {
    const res = await run('select pg_sleep(30)');
    const id = res.json.execution_id;
    await waitFor(id, (s) => s === 'running', 10_000);
    const t0 = Date.now();
    expect((await call(`/executions/${id}/cancel`, { key, method: 'POST' })).status).toBe(204);
    const done = await waitFor(id);
    expect(done.execution_status).toBe('cancelled');
    expect(Date.now() - t0).toBeLessThan(5_000);
    const [active] = (await db().execute(sql`select count(*)::int as n from pg_stat_activity where query like 'select pg_sleep(30)%' and state = 'active'`)) as unknown as { n: number }[];
    expect(active!.n).toBe(0);
    expect((await call(`/executions/${id}/cancel`, { key, method: 'POST' })).status).toBe(204);
    expect((await waitFor(id)).execution_status).toBe('cancelled');
  });

  it('waits when the datasource is at max_concurrent_executions, then runs', async () => {
    const id = newId('datasource');
    const [ds] = await db().select().from(datasources).where(eq(datasources.id, sample));
    await db().insert(datasources).values({ ...ds!, id, name: `Gate ${id}`, max_concurrent_executions: 1, created_at: new Date(), updated_at: new Date() });
    const a = await run('select pg_sleep(1.5), 1 as a', { ds: id });
    await waitFor(a.json.execution_id, (s) => s === 'running', 10_000);
    const b = await run('select 2 as b', { ds: id });
    const waiting = await waitFor(b.json.execution_id, (s) => s !== 'starting', 5_000);
    expect(waiting.execution_status).toBe('waiting');
    expect((await waitFor(b.json.execution_id)).execution_status).toBe('success');
    expect((await waitFor(a.json.execution_id)).execution_status).toBe('success');
  });

  it('permissions: viewers and view-only keys cannot run SQL; another organization gets 404', async () => {
    const viewer = await makeUser(org.organization.id, 'viewer');
    expect((await run('select 1', { session: viewer.session })).status).toBe(403);
    expect((await run('select 1', { key: await makeKey(org.organization.id, only('view_dashboards', 'view_datasources')) })).status).toBe(403);
    const restricted = await makeRawKey(org.organization.id, [{ permission: 'manage_dashboards', resources: [{ type: 'datasources', id: 'dsr_other' }] }]);
    expect((await run('select 1', { key: restricted })).status).toBe(403);
    const analyst = await makeUser(org.organization.id, 'analyst');
    expect((await run('select 1', { session: analyst.session })).status).toBe(201);
    const other = await makeOrg('executions-other');
    const otherKey = await makeKey(other.organization.id);
    expect((await run('select 1', { key: otherKey })).status).toBe(404);
    const mine = await run('select 1');
    expect((await call(`/executions/${mine.json.execution_id}`, { key: otherKey })).status).toBe(404);
  });

  it('validates the body', async () => {
    expect((await call(`/datasources/${sample}/executions`, { key, method: 'POST', body: {} })).json.errors[0].code).toBe('missing_attribute');
    expect((await call(`/datasources/${sample}/executions`, { key, method: 'POST', body: { sql_query: 'select 1', r_query: 'x <- 1' } })).status).toBe(422);
    expect((await call(`/datasources/${sample}/executions`, { key, method: 'POST', rawBody: 'select 1', contentType: 'text/plain' })).status).toBe(415);
  });
});
