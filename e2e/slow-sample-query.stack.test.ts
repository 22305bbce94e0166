/**
 * Issue 14: one slow sample query must not freeze the service for everyone (on the old one-connection
 * embedded database a 15 s `pg_sleep` held another browser's dashboard for 14.8 s), and Stop must end it
 * at once. Against the running stack (embedded PostgreSQL under `npm start`, a real server under
 * `npm test` when one is on 5432): while a sample query sleeps, other calls and the app's pages answer
 * quickly, and cancelling it ends it within a second or two.
 */
import { describe, expect, it } from 'vitest';
import { apiFetch, getStack } from './harness.ts';

const attrs = (doc: any) => doc?.data?.attributes ?? doc;

async function timed<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const t0 = Date.now();
  const out = await fn();
  return [out, Date.now() - t0];
}

describe('a slow sample query', () => {
  it('holds nobody else up, and a cancel ends it at once', async () => {
    const list = await apiFetch('/datasources');
    expect(list.status).toBe(200);
    const sample = (list.body as any).data.find((d: any) => d.attributes.is_sample);
    expect(sample, 'the stack has a sample datasource').toBeTruthy();
    const started = await apiFetch(`/datasources/${sample.id}/executions`, {
      method: 'POST',
      body: { sql_query: 'select pg_sleep(20) as slept' },
      headers: { 'content-type': 'application/json' },
    });
    expect(started.status, started.text).toBe(201);
    const id = attrs(started.body).execution_id ?? (started.body as any).data.id;
    for (let i = 0; attrs((await apiFetch(`/executions/${id}`)).body).execution_status !== 'running'; i++) {
      expect(i, 'the query starts').toBeLessThan(100);
      await new Promise((r) => setTimeout(r, 100));
    }

    // Meanwhile: the API, another sample query and the app's sign-in page answer in well under the sleep.
    const [dashboards, listMs] = await timed(() => apiFetch('/dashboards'));
    expect(dashboards.status).toBe(200);
    expect(listMs).toBeLessThan(3_000);
    const [quick, quickMs] = await timed(async () => {
      const res = await apiFetch(`/datasources/${sample.id}/executions`, {
        method: 'POST',
        body: { sql_query: 'select count(*) as n from orders' },
        headers: { 'content-type': 'application/json' },
      });
      const other = attrs(res.body).execution_id ?? (res.body as any).data.id;
      for (;;) {
        const got = attrs((await apiFetch(`/executions/${other}`)).body);
        if (!['starting', 'running', 'waiting', 'scheduled'].includes(got.execution_status)) return got;
        await new Promise((r) => setTimeout(r, 50));
      }
    });
    expect(quick.execution_status).toBe('success');
    expect(quickMs).toBeLessThan(5_000);
    const app = getStack().app;
    if (app) {
      const [page, pageMs] = await timed(() => fetch(`${app}login`));
      expect(page.status).toBe(200);
      expect(pageMs).toBeLessThan(3_000);
    }
    expect(attrs((await apiFetch(`/executions/${id}`)).body).execution_status, 'still sleeping').toBe('running');

    // Stop: the query ends within a couple of seconds, not when its sleep is over.
    const [cancel, cancelMs] = await timed(async () => {
      const res = await apiFetch(`/executions/${id}/cancel`, { method: 'POST' });
      for (;;) {
        const got = attrs((await apiFetch(`/executions/${id}`)).body);
        if (got.execution_status !== 'running') return { res, got };
        await new Promise((r) => setTimeout(r, 50));
      }
    });
    expect(cancel.res.status).toBeLessThan(300);
    expect(cancel.got.execution_status).toBe('cancelled');
    expect(cancelMs).toBeLessThan(3_000);
  }, 60_000);
});
