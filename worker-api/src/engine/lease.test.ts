import { beforeAll, describe, expect, it } from 'vitest';
import { createExecutionContext, env, runInDurableObject, waitOnExecutionContext } from 'cloudflare:test';
import worker from '../index.ts';
import { eq } from 'drizzle-orm';
import { executions } from '@cairn/db';
import { newId } from '@cairn/core';
import { call, db, makeKey, makeOrg } from '../../test/fixtures.ts';
import { roomForDatasources } from '../../test/engine-fixtures.ts';
import { pgClient } from '../../test/connectors-fixtures.ts';
import { awaitWithLease, leaseMsOf, LOST_MESSAGE, type LeaseQuery } from './lease.ts';
import type { ExecutionOutcome } from './job.ts';
import type { CreateOrganizationResult } from '@cairn/db/seed/organization';
import { datasourceGateStub } from '../durable/stubs.ts';

/**
 * Issue 14: when the runtime under a running execution dies, its status becomes truthful within one
 * lease (EXECUTION_LEASE_MS: 10 s in the test config, 45 s by default) instead of after the guard.
 */

let org: CreateOrganizationResult;
let key: string;
let pgDatasource: string;

/** Statements on the test database, the shape the lease helpers take. */
const query: LeaseQuery = async (text, params) =>
  (await pgClient(env.HYPERDRIVE.database).unsafe(text, params as never[])) as unknown as Record<string, unknown>[];

/** An execution row as a gate that has since died would have left it. */
async function orphan(status: 'running' | 'waiting' | 'starting', leaseOffsetMs: number | null): Promise<string> {
  const id = newId('execution');
  await db()
    .insert(executions)
    .values({
      id,
      organization_id: org.organization.id,
      datasource_id: pgDatasource,
      execution_type: 'sql_query',
      execution_status: status,
      sql_query: 'select pg_sleep(600)',
      created_by: 'test',
      started_at: status === 'running' ? new Date() : null,
      lease_expires_at: leaseOffsetMs === null ? null : new Date(Date.now() + leaseOffsetMs),
      expires_at: new Date(Date.now() + 86_400_000),
    });
  return id;
}

const read = async (id: string) => (await call(`/executions/${id}`, { key })).json;
const attrs = (doc: any) => doc?.data?.attributes ?? doc;

beforeAll(async () => {
  org = await makeOrg('lease');
  key = await makeKey(org.organization.id);
  await roomForDatasources(org.organization.id);
  const res = await call('/datasources', {
    key,
    method: 'POST',
    contentType: 'application/vnd.api+json',
    body: {
      data: {
        type: 'datasources',
        attributes: {
          name: 'Same server',
          database_type: 'postgres',
          connection_mode: 'direct',
          host: '127.0.0.1',
          port: 5432,
          username: 'postgres',
          password: 'postgres',
          database: 'postgres',
        },
      },
    },
  });
  expect(res.status).toBe(201);
  pgDatasource = res.json.data.id;
});

describe('execution leases', () => {
  it('reads an unfinished execution whose lease ran out as internal_error, and writes it off', async () => {
    const expired = await Promise.all((['running', 'waiting', 'starting'] as const).map((s) => orphan(s, -1_000)));
    for (const id of expired) {
      const got = attrs(await read(id));
      expect(got.execution_status).toBe('internal_error');
      expect(got.error_message).toBe(LOST_MESSAGE);
      expect(got.completed_at).not.toBeNull();
      const [row] = await db().select().from(executions).where(eq(executions.id, id));
      expect(row!.execution_status).toBe('internal_error');
    }
    // Its data call and cancel answer as for any failed execution.
    const data = await call(`/executions/${expired[0]}/data`, { key });
    expect(data.status).toBe(204);

    // A lease still running, and a row from before leases (none): left as they are.
    const live = await orphan('running', 60_000);
    const legacy = await orphan('running', null);
    expect(attrs(await read(live)).execution_status).toBe('running');
    expect(attrs(await read(legacy)).execution_status).toBe('running');
  });

  it('gives a new execution a lease when it is recorded', async () => {
    const id = newId('execution');
    await db()
      .insert(executions)
      .values({
        id,
        organization_id: org.organization.id,
        datasource_id: pgDatasource,
        execution_type: 'sql_query',
        sql_query: 'select 1',
        expires_at: new Date(Date.now() + 86_400_000),
      });
    const [row] = await db().select().from(executions).where(eq(executions.id, id));
    expect(row!.lease_expires_at!.getTime()).toBeGreaterThan(Date.now() + 30_000);
  });

  it('keeps a live long query running past the lease length, renewing it', async () => {
    const lease = leaseMsOf(env);
    expect(lease).toBe(10_000);
    const started = await call(`/datasources/${pgDatasource}/executions`, {
      key,
      method: 'POST',
      body: { sql_query: `select pg_sleep(${(lease * 1.5) / 1000}) as slept` },
    });
    expect(started.status).toBe(201);
    const id = attrs(started.json).execution_id ?? started.json.data.id;
    const leases: number[] = [];
    const until = Date.now() + lease * 1.3;
    while (Date.now() < until) {
      const got = attrs(await read(id));
      expect(got.execution_status, 'still running').toMatch(/^(starting|running)$/);
      const [row] = await db().select({ lease: executions.lease_expires_at }).from(executions).where(eq(executions.id, id));
      leases.push(row!.lease!.getTime());
      await new Promise((r) => setTimeout(r, 1_000));
    }
    // Past one lease length and still running: the gate renewed it (several distinct leases seen).
    expect(new Set(leases).size).toBeGreaterThanOrEqual(3);
    expect(leases.at(-1)!).toBeGreaterThan(Date.now());
    for (;;) {
      const got = attrs(await read(id));
      if (got.execution_status !== 'running') {
        expect(got.execution_status).toBe('success');
        break;
      }
      await new Promise((r) => setTimeout(r, 250));
    }
  }, 60_000);

  it('keeps an execution queued behind a long one waiting past the lease length, renewing it, then runs it', async () => {
    const lease = leaseMsOf(env);
    // One slot: the second run waits in the gate's queue while the first sleeps through 2 leases (the
    // watch below lasts 1.2 leases, so a slow start of the first leaves room before the slot frees).
    const made = await call('/datasources', {
      key,
      method: 'POST',
      contentType: 'application/vnd.api+json',
      body: {
        data: {
          type: 'datasources',
          attributes: {
            name: 'One slot',
            database_type: 'postgres',
            connection_mode: 'direct',
            host: '127.0.0.1',
            port: 5432,
            username: 'postgres',
            password: 'postgres',
            database: 'postgres',
            max_concurrent_executions: 1,
          },
        },
      },
    });
    expect(made.status, JSON.stringify(made.json)).toBe(201);
    const ds = made.json.data.id;
    const start = async (sql: string) => {
      const res = await call(`/datasources/${ds}/executions`, { key, method: 'POST', body: { sql_query: sql } });
      expect(res.status).toBe(201);
      return attrs(res.json).execution_id ?? res.json.data.id;
    };
    const first = await start(`select pg_sleep(${(lease * 2) / 1000}) as slept`);
    for (let i = 0; attrs(await read(first)).execution_status !== 'running'; i++) {
      expect(i).toBeLessThan(100);
      await new Promise((r) => setTimeout(r, 100));
    }
    const second = await start('select 2 as queued');
    const leases = new Set<number>();
    const seen = new Set<string>();
    const until = Date.now() + lease * 1.2;
    while (Date.now() < until) {
      // Each read writes the execution off if its lease ran out: it must stay queued ('starting' until the
      // gate has taken it, which on a loaded machine can be the first read, then 'waiting').
      const status = attrs(await read(second)).execution_status;
      seen.add(status);
      expect(status, 'still queued').toMatch(/^(starting|waiting)$/);
      const [row] = await db().select({ lease: executions.lease_expires_at }).from(executions).where(eq(executions.id, second));
      leases.add(row!.lease!.getTime());
      await new Promise((r) => setTimeout(r, 1_000));
    }
    expect(seen.has('waiting'), 'the gate queued it').toBe(true);
    expect(leases.size, 'the queued execution’s lease was renewed').toBeGreaterThanOrEqual(3);
    for (let i = 0; ; i++) {
      const got = attrs(await read(second));
      if (!['waiting', 'starting', 'running'].includes(got.execution_status)) {
        expect(got.execution_status).toBe('success');
        break;
      }
      expect(i).toBeLessThan(200);
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(attrs(await read(first)).execution_status).toBe('success');
  }, 60_000);

  it('ends a wait on a run whose runtime died: lease ran out, or the call failed', async () => {
    const fast = { EXECUTION_LEASE_MS: '3000' };
    // The gate's call never settles (its runtime is gone) and nobody renews: written off within about a lease.
    const stuck = await orphan('running', 1_500);
    const t0 = Date.now();
    const out = await awaitWithLease(fast, query, stuck, new Promise<ExecutionOutcome>(() => {}));
    expect(out).toMatchObject({ executionId: stuck, status: 'internal_error', errorMessage: LOST_MESSAGE });
    expect(Date.now() - t0).toBeLessThan(6_000);
    expect(attrs(await read(stuck)).execution_status).toBe('internal_error');

    // The call to the gate fails (the object was reset under it): written off at once.
    const broken = await orphan('running', 60_000);
    const failed = await awaitWithLease(fast, query, broken, Promise.reject(new Error('Durable Object reset because its code was updated.')));
    expect(failed.status).toBe('internal_error');
    expect(failed.errorMessage).toMatch(/the server running it failed \(Durable Object reset/);
    expect(attrs(await read(broken)).execution_status).toBe('internal_error');

    // A run that finishes normally is simply its outcome.
    const fine = await orphan('running', 60_000);
    const done: ExecutionOutcome = { executionId: fine, status: 'success', dataKey: 'k', rowCount: 1, errorMessage: null };
    expect(await awaitWithLease(fast, query, fine, Promise.resolve(done))).toEqual(done);
  }, 30_000);

  it('is written off by the cron even when nobody reads it', async () => {
    const expired = await orphan('running', -1_000);
    const live = await orphan('running', 60_000);
    const ctx = createExecutionContext();
    await worker.scheduled({ scheduledTime: Date.now(), cron: '* * * * *', noRetry() {} } as ScheduledController, env, ctx);
    await waitOnExecutionContext(ctx);
    const rows = await db().select().from(executions).where(eq(executions.organization_id, org.organization.id));
    expect(rows.find((r) => r.id === expired)).toMatchObject({ execution_status: 'internal_error', error_message: LOST_MESSAGE });
    expect(rows.find((r) => r.id === live)!.execution_status).toBe('running');
  });

  it('tells the truth within a lease when the runtime under a running query dies', async () => {
    const started = await call(`/datasources/${pgDatasource}/executions`, { key, method: 'POST', body: { sql_query: 'select pg_sleep(40) as slept' } });
    expect(started.status).toBe(201);
    const id = attrs(started.json).execution_id ?? started.json.data.id;
    for (let i = 0; attrs(await read(id)).execution_status !== 'running'; i++) {
      expect(i).toBeLessThan(100);
      await new Promise((r) => setTimeout(r, 100));
    }
    // The gate's runtime dies under the query (its object is reset, as a crash or a deploy would).
    const gate = datasourceGateStub(env, pgDatasource);
    await runInDurableObject(gate, (_instance, state) => state.abort('simulated crash')).catch(() => {});
    const t0 = Date.now();
    let got = attrs(await read(id));
    while (got.execution_status === 'running' && Date.now() - t0 < leaseMsOf(env) + 5_000) {
      await new Promise((r) => setTimeout(r, 250));
      got = attrs(await read(id));
    }
    expect(got.execution_status).toBe('internal_error');
    expect(got.error_message).toMatch(/^The execution was lost/);
    expect(Date.now() - t0).toBeLessThan(leaseMsOf(env) + 5_000);
  }, 60_000);
});
