import { beforeAll, describe, expect, it } from 'vitest';
import { env } from 'cloudflare:test';
import { eq, sql } from 'drizzle-orm';
import { datasources, executions, resultChunks, results, sqlSnippets } from '@cairn/db';
import { newId } from '@cairn/core';
import { objectChunkAt, type StoredObject } from '@cairn/core/results/object';
import type { ExecutionJob } from '../../engine/job.ts';
import { call, db, jsonApi, makeKey, makeOrg, makeRawKey, makeUser, only } from '../../../test/fixtures.ts';
import { roomForDatasources } from '../../../test/engine-fixtures.ts';
import type { CreateOrganizationResult } from '@cairn/db/seed/organization';
import { datasourceGateStub } from '../../durable/stubs.ts';

let org: CreateOrganizationResult;
let key: string;
let sample: string;
const run = (sqlText: string, o: { key?: string; session?: string; ds?: string; parameters?: unknown } = {}) =>
  call(`/datasources/${o.ds ?? sample}/executions`, {
    ...(o.session ? { session: o.session } : { key: o.key ?? key }),
    method: 'POST',
    body: { sql_query: sqlText, ...(o.parameters ? { parameters: o.parameters } : {}) },
  });

/** A result's stored chunks in order, from the region's bucket (D55) or, for older results, result_chunks. */
async function storedChunksOf(executionId: string): Promise<{ seq: number; rows: number; data: Uint8Array }[]> {
  const [r] = await db().select({ stored_object: results.stored_object }).from(results).where(eq(results.execution_id, executionId));
  const obj = (r?.stored_object ?? null) as StoredObject | null;
  const bucket = env.RESULTS;
  if (!obj || !bucket) {
    const rows = await db().select().from(resultChunks).where(eq(resultChunks.execution_id, executionId)).orderBy(resultChunks.seq);
    return rows.map((c) => ({ seq: c.seq, rows: c.rows, data: c.data as Uint8Array }));
  }
  const out: { seq: number; rows: number; data: Uint8Array }[] = [];
  for (let seq = 0; ; seq++) {
    const c = await objectChunkAt(bucket, obj, seq);
    if (!c) return out;
    out.push({ seq, rows: c.rows, data: c.data });
  }
}

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
  await roomForDatasources(org.organization.id);
});

describe('executions', () => {
  it('runs asynchronously, then hands out the data', async () => {
    const res = await run('select id, email from customers where {country=country} order by id limit 3', {
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

  it("reads the filter values with a dashboard's filters when dashboard_id names one the caller may see", async () => {
    const dash = await jsonApi('/dashboards', 'POST', { type: 'dashboards', attributes: { name: 'Editor context' } }, key);
    expect(dash.status).toBe(201);
    const filter = await jsonApi(
      '/filters',
      'POST',
      {
        type: 'filters',
        attributes: {
          variable_name: 'shop_country',
          control_type: 'dropdown_multi_manual',
          value_type: 'TEXT',
          values: ['DE', 'FR'],
          value_names: ['Germany', 'France'],
        },
        relationships: { datasource: { data: { type: 'datasources', id: sample } }, dashboards: { data: [{ type: 'dashboards', id: dash.json.data.id }] } },
      },
      key,
    );
    expect(filter.status).toBe(201);
    const text = 'select distinct o.country from orders o where {[o.country]=shop_country} order by 1';
    const parameters = { filters: [{ variable_name: 'shop_country', selected_values: ['DE'] }] };
    const withDashboard = await call(`/datasources/${sample}/executions`, {
      key,
      method: 'POST',
      body: { sql_query: text, parameters, dashboard_id: dash.json.data.id },
    });
    expect(withDashboard.status).toBe(201);
    expect(await waitFor(withDashboard.json.execution_id)).toMatchObject({ execution_status: 'success', result_rows: 1 });
    // Without the dashboard the variable has no definition: an ad hoc text filter, whose values apply all the same.
    const without = await run(text, { parameters });
    expect((await waitFor(without.json.execution_id)).result_rows).toBe(1);
    const unset = await run(text);
    expect((await waitFor(unset.json.execution_id)).result_rows).toBeGreaterThan(1);
    const missing = await call(`/datasources/${sample}/executions`, { key, method: 'POST', body: { sql_query: text, parameters, dashboard_id: 'dsh_nope' } });
    expect(missing.status).toBe(404);
  });

  it('snippets and the built-in snippets work in ad hoc SQL', async () => {
    const name = `n_${newId('sql_snippet').slice(4, 12).toLowerCase()}`;
    await db()
      .insert(sqlSnippets)
      .values({ id: newId('sql_snippet'), organization_id: org.organization.id, name, text: 'select 40 + 2 as answer' });
    const res = await run(`[${name}]`);
    expect((await waitFor(res.json.execution_id)).execution_status).toBe('success');
    const [chunk] = await storedChunksOf(res.json.execution_id);
    expect(new TextDecoder().decode(chunk!.data)).toBe('[42]');
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
    const [active] = (await db().execute(
      sql`select count(*)::int as n from pg_stat_activity where query like 'select pg_sleep(30)%' and state = 'active'`,
    )) as unknown as { n: number }[];
    expect(active!.n).toBe(0);
    expect((await call(`/executions/${id}/cancel`, { key, method: 'POST' })).status).toBe(204);
    expect((await waitFor(id)).execution_status).toBe('cancelled');
  });

  it('waits when the datasource is at max_concurrent_executions, then runs', async () => {
    const id = newId('datasource');
    const [ds] = await db().select().from(datasources).where(eq(datasources.id, sample));
    await db()
      .insert(datasources)
      .values({ ...ds!, id, name: `Gate ${id}`, max_concurrent_executions: 1, created_at: new Date(), updated_at: new Date() });
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

/** A datasource made through the API (its password sealed as in production). */
async function makeDatasource(attributes: Record<string, unknown>) {
  const res = await jsonApi(
    '/datasources',
    'POST',
    { type: 'datasources', attributes: { name: `DS ${newId('datasource')}`, connection_mode: 'direct', ...attributes } },
    key,
  );
  expect(res.status, JSON.stringify(res.json)).toBe(201);
  return res.json.data.id as string;
}
const pgAttrs = { database_type: 'postgres', host: '127.0.0.1', port: 5432, username: 'postgres', password: 'postgres', database: 'postgres' };
const mariaAttrs = { database_type: 'mariadb', host: '127.0.0.1', port: 3306, username: 'root', database: null };

/** Runs a job on a datasource's gate directly, with per-test limits (statement timeout, guard). */
async function runOnGate(dsId: string, text: string, over: Partial<ExecutionJob> = {}) {
  const id = newId('execution');
  await db()
    .insert(executions)
    .values({
      id,
      organization_id: org.organization.id,
      datasource_id: dsId,
      execution_type: 'sql_query',
      execution_status: 'starting',
      sql_query: text,
      expires_at: new Date(Date.now() + 86_400_000),
    });
  const gate = datasourceGateStub(env, dsId);
  const out = await gate.run({
    executionId: id,
    organizationId: org.organization.id,
    datasourceId: dsId,
    text,
    values: [],
    paramsHash: 'test',
    maxConcurrent: 20,
    sessionTimeZone: 'UTC',
    resultTimeZone: 'UTC',
    ...over,
  });
  const [row] = await db().select().from(executions).where(eq(executions.id, id));
  return { out, row: row! };
}

describe('executions on real databases', () => {
  it('a Postgres datasource streams a large result into many chunks; fields, rows and time zones are stored', async () => {
    const ds = await makeDatasource(pgAttrs);
    const res = await run(
      `select i::bigint as id, 'customer_' || (i % 50) as customer, (i % 7)::numeric(10,2) as amount,
      timestamptz '2024-01-01 00:00:00+00' + i * interval '1 minute' as created_at from generate_series(1, 60000) as s(i)`,
      { ds, parameters: { tz: 'Europe/Berlin' } },
    );
    expect(res.status).toBe(201);
    const done = await waitFor(res.json.execution_id, undefined, 60_000);
    expect(done).toMatchObject({ execution_status: 'success', result_rows: 60000, result_columns: 4 });
    const chunks = await storedChunksOf(res.json.execution_id);
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.map((c) => c.seq)).toEqual(chunks.map((_, i) => i));
    expect(chunks.reduce((n, c) => n + c.rows, 0)).toBe(60000);
    // Every row, in order, byte for byte: the encoder refills its chunk buffers once the object has copied them.
    const rows = JSON.parse(`[${chunks.map((c) => new TextDecoder().decode(c.data)).join(',')}]`) as unknown[][];
    expect(rows.map((r) => r[0])).toEqual(Array.from({ length: 60000 }, (_, i) => i + 1));
    expect(rows[59999]).toEqual([60000, 'customer_0', 3, '2024-02-11T16:00:00Z']);
    const [r] = await db().select().from(results).where(eq(results.execution_id, res.json.execution_id));
    expect(r!.row_count).toBe(60000);
    expect(r!.time_zone).toBe('Europe/Berlin');
    expect(r!.fields.map((f) => [f.name, f.data_type])).toEqual([
      ['id', 'BigInt'],
      ['customer', 'String'],
      ['amount', 'Float'],
      ['created_at', 'DateTime'],
    ]);
    expect(r!.fields[0]).toMatchObject({ min_value: 1, max_value: 60000, unique_count: 60000 });
    expect(r!.fields[1]!.unique_count).toBe(50);
  }, 90_000);

  it("runs in the datasource's data time zone (session time zone)", async () => {
    const ds = await makeDatasource({ ...pgAttrs, data_time_zone: 'America/New_York' });
    const res = await run("select current_setting('TimeZone') as tz", { ds });
    expect((await waitFor(res.json.execution_id)).execution_status).toBe('success');
    const [chunk] = await storedChunksOf(res.json.execution_id);
    expect(new TextDecoder().decode(chunk!.data)).toBe('["America/New_York"]');
  });

  it('cancel stops a running MariaDB query (KILL QUERY)', async () => {
    const ds = await makeDatasource(mariaAttrs);
    const res = await run('select sleep(30) as s', { ds });
    const id = res.json.execution_id;
    expect((await waitFor(id, (s) => s === 'running', 10_000)).execution_status).toBe('running');
    await new Promise((r) => setTimeout(r, 300));
    const t0 = Date.now();
    expect((await call(`/executions/${id}/cancel`, { key, method: 'POST' })).status).toBe(204);
    expect((await waitFor(id)).execution_status).toBe('cancelled');
    expect(Date.now() - t0).toBeLessThan(5_000);
  });

  it('a statement timeout ends timed_out (Postgres and MariaDB)', async () => {
    const pg = await runOnGate(await makeDatasource(pgAttrs), 'select pg_sleep(5)', { timeoutMs: 500 });
    expect(pg.out.status).toBe('timed_out');
    expect(pg.row).toMatchObject({ execution_status: 'timed_out' });
    expect(pg.row.error_message).toMatch(/statement timeout/);
    const maria = await runOnGate(await makeDatasource(mariaAttrs), 'select sleep(5)', { timeoutMs: 500 });
    expect(maria.out.status).toBe('timed_out');
    expect(maria.row.execution_status).toBe('timed_out');
  });

  it('the overall guard ends a run as internal_timeout', async () => {
    const t0 = Date.now();
    const { out, row } = await runOnGate(await makeDatasource(pgAttrs), 'select pg_sleep(10)', { timeoutMs: 60_000, guardMs: 700 });
    expect(out.status).toBe('internal_timeout');
    expect(row.execution_status).toBe('internal_timeout');
    expect(row.error_message).toMatch(/limit for one execution/);
    expect(Date.now() - t0).toBeLessThan(8_000);
  });

  it("an unreachable database or a refused login is internal_error with the driver's message", async () => {
    const closed = await makeDatasource({ ...pgAttrs, port: 1 });
    const res = await run('select 1', { ds: closed });
    const done = await waitFor(res.json.execution_id);
    expect(done.execution_status).toBe('internal_error');
    expect(done.error_message).toMatch(/127\.0\.0\.1:1/);
    const wrong = await makeDatasource({ ...pgAttrs, username: 'no_such_user_here' });
    const denied = await waitFor((await run('select 1', { ds: wrong })).json.execution_id);
    expect(denied.execution_status).toBe('internal_error');
    expect(denied.error_message).toMatch(/no_such_user_here/);
  });

  it('a datasource type without a driver is refused with a 422 naming the type', async () => {
    const ds = await makeDatasource({ database_type: 'mongodb', host: 'mongo.example.test', username: 'u', password: 'p' });
    const res = await run('select 1', { ds });
    expect(res.status).toBe(422);
    expect(res.json.errors[0].code).toBe('invalid_state');
    expect(res.json.errors[0].detail).toContain('"mongodb"');
  });

  it('a restarted gate writes off executions it does not know that are older than the guard', async () => {
    const ds = await makeDatasource(pgAttrs);
    const lost = newId('execution');
    const fresh = newId('execution');
    const old = new Date(Date.now() - 30 * 60_000);
    await db()
      .insert(executions)
      .values([
        {
          id: lost,
          organization_id: org.organization.id,
          datasource_id: ds,
          execution_type: 'sql_query',
          execution_status: 'running',
          sql_query: 'select 1',
          started_at: old,
          created_at: old,
          expires_at: new Date(Date.now() + 3_600_000),
        },
        {
          id: fresh,
          organization_id: org.organization.id,
          datasource_id: ds,
          execution_type: 'sql_query',
          execution_status: 'running',
          sql_query: 'select 1',
          started_at: new Date(),
          expires_at: new Date(Date.now() + 3_600_000),
        },
      ]);
    // The first job a (new) gate object gets makes it sweep its datasource.
    expect((await runOnGate(ds, 'select 1')).out.status).toBe('success');
    const rows = await db().select().from(executions).where(sql`${executions.id} in (${lost}, ${fresh})`);
    expect(rows.find((r) => r.id === lost)).toMatchObject({ execution_status: 'internal_error' });
    expect(rows.find((r) => r.id === lost)!.error_message).toMatch(/restarted/);
    expect(rows.find((r) => r.id === fresh)!.execution_status).toBe('running');
  });
});
