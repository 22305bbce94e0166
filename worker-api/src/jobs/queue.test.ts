/**
 * The job queue (src/jobs, D54): the consumer runs a scheduled e-mail through a real SMTP server (the
 * catcher vitest.peers.ts starts) and a message delivered twice sends one e-mail; a delivery that died
 * while sending sends nothing more and says so; a refused send is retried; a message that keeps failing
 * goes through the real queue's retries to the dead-letter queue, whose consumer records the failure;
 * the cron only enqueues.
 */
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { createExecutionContext, createMessageBatch, env, getQueueResult } from 'cloudflare:test';
import { and, eq } from 'drizzle-orm';
import { newId } from '@cairn/core';
import { dashboardSchedules, exportJobs, jobSends } from '@cairn/db';
import worker from '../index.ts';
import type { Env } from '../env.ts';
import { scheduleSendKey, type JobMessage } from './messages.ts';
import { db, jsonApi, makeKey, makeOrg } from '../../test/fixtures.ts';
import { eventually } from '../../test/engine-fixtures.ts';
import type { CreateOrganizationResult } from '@cairn/db/seed/organization';

let org: CreateOrganizationResult;
let key: string;
const withMail = { ...(env as unknown as Env), SMTP_HOST: '127.0.0.1', SMTP_PORT: String(inject('smtpPort')) } as Env;

async function inbox(to: string): Promise<{ id: string; subject: string | null }[]> {
  const res = await fetch(`${inject('mailInbox')}/messages?to=${encodeURIComponent(to)}`);
  return (await res.json()) as { id: string; subject: string | null }[];
}

async function makeSchedule(emails: string): Promise<string> {
  const res = await jsonApi(
    '/dashboard_schedules',
    'POST',
    {
      type: 'dashboard_schedules',
      attributes: { name: `Queue ${crypto.randomUUID().slice(0, 6)}`, emails, attach_as: 'csv', schedule: 'daily;07:00', subject_text: 'Queued numbers' },
      relationships: { dashboard: { data: { type: 'dashboards', id: org.sampleDashboard.id } } },
    },
    key,
  );
  expect(res.status, JSON.stringify(res.json)).toBe(201);
  return res.json.data.id as string;
}

/** Delivers one message to the consumer as the queue would (attempt `attempts`) and answers ack/retry. */
async function deliver(body: JobMessage, attempts = 1, bindings: Env = withMail, queue = 'cairn-jobs') {
  const batch = createMessageBatch<JobMessage>(queue, [{ id: crypto.randomUUID(), timestamp: new Date(), attempts, body }]);
  const ctx = createExecutionContext();
  await worker.queue(batch, bindings, ctx);
  return getQueueResult(batch, ctx);
}

const scheduleRow = async (id: string) => (await db().select().from(dashboardSchedules).where(eq(dashboardSchedules.id, id)))[0]!;

beforeAll(async () => {
  org = await makeOrg('jobs-queue');
  key = await makeKey(org.organization.id);
});

describe('scheduled e-mails from the queue', () => {
  it('sends once: the same message delivered again (a retry, a redelivery) sends no second e-mail', async () => {
    const to = `once-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const id = await makeSchedule(to);
    const msg: JobMessage = { kind: 'schedule', organizationId: org.organization.id, scheduleId: id, dueAt: '2026-01-05T07:00:00.000Z' };
    expect(await deliver(msg)).toMatchObject({ explicitAcks: [expect.any(String)], retryMessages: [] });
    expect(await inbox(to)).toHaveLength(1);
    expect((await inbox(to))[0]!.subject).toBe('Queued numbers');
    expect((await scheduleRow(id)).last_sent_at?.toISOString()).toBe(msg.dueAt);
    const [send] = await db()
      .select()
      .from(jobSends)
      .where(eq(jobSends.key, scheduleSendKey(id, msg.dueAt)));
    expect(send).toMatchObject({ send_state: 'sent', organization_id: org.organization.id });

    // Delivered twice more (attempt 2 and a concurrent copy): acked, nothing sent.
    const again = await Promise.all([deliver(msg, 2), deliver(msg, 1)]);
    for (const r of again) expect(r).toMatchObject({ explicitAcks: [expect.any(String)], retryMessages: [] });
    expect(await inbox(to)).toHaveLength(1);

    // The next due time is another key: sent.
    expect(await deliver({ ...msg, dueAt: '2026-01-06T07:00:00.000Z' })).toMatchObject({ retryMessages: [] });
    expect(await inbox(to)).toHaveLength(2);
  });

  it('a delivery that died while sending is not sent again; the schedule says why', async () => {
    const to = `died-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const id = await makeSchedule(to);
    const dueAt = '2026-02-01T07:00:00.000Z';
    await db()
      .insert(jobSends)
      .values({ key: scheduleSendKey(id, dueAt), organization_id: org.organization.id, send_state: 'sending' });
    const r = await deliver({ kind: 'schedule', organizationId: org.organization.id, scheduleId: id, dueAt }, 2);
    expect(r.retryMessages).toEqual([]);
    expect(await inbox(to)).toHaveLength(0);
    expect((await scheduleRow(id)).last_error_message).toMatch(/may have been delivered, so it was not sent again/);
  });

  it('a send the mail server refused is retried (its key released), and a later attempt sends it', async () => {
    const id = await makeSchedule('nobody@reject.invalid');
    const dueAt = '2026-03-01T07:00:00.000Z';
    const msg: JobMessage = { kind: 'schedule', organizationId: org.organization.id, scheduleId: id, dueAt };
    const r = await deliver(msg);
    expect(r.retryMessages).toHaveLength(1);
    expect(r.explicitAcks).toEqual([]);
    expect(
      await db()
        .select()
        .from(jobSends)
        .where(eq(jobSends.key, scheduleSendKey(id, dueAt))),
    ).toEqual([]);
    expect((await scheduleRow(id)).last_error_message).toBeTruthy();
    const to = `fixed-${crypto.randomUUID().slice(0, 8)}@example.com`;
    await db().update(dashboardSchedules).set({ emails: to }).where(eq(dashboardSchedules.id, id));
    expect(await deliver(msg, 2)).toMatchObject({ retryMessages: [] });
    expect(await inbox(to)).toHaveLength(1);
  });

  it("another organization's schedule id in a message finds nothing and sends nothing", async () => {
    const other = await makeOrg('jobs-queue-other');
    const to = `cross-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const id = await makeSchedule(to);
    const r = await deliver({ kind: 'schedule', organizationId: other.organization.id, scheduleId: id, dueAt: '2026-04-01T07:00:00.000Z' });
    expect(r.explicitAcks).toHaveLength(1);
    expect(await inbox(to)).toHaveLength(0);
  });
});

describe('dead-letter queue', () => {
  it("a message failing every attempt goes through the real queue's retries to the DLQ, which records it on the schedule", async () => {
    // The test workers have no SMTP_HOST: every attempt fails with a reason that may pass, so it is retried.
    const id = await makeSchedule(`dlq-${crypto.randomUUID().slice(0, 8)}@example.com`);
    const dueAt = '2026-05-01T07:00:00.000Z';
    await env.JOBS.send({ kind: 'schedule', organizationId: org.organization.id, scheduleId: id, dueAt });
    const row = await eventually(
      async () => {
        const r = await scheduleRow(id);
        return r.last_error_message?.startsWith('The e-mail due at') ? r : null;
      },
      25_000,
      250,
    );
    // max_retries = 3 (wrangler.toml): the first attempt and three retries, then the DLQ.
    expect(row.last_error_message).toBe(
      `The e-mail due at ${dueAt} was not sent: every attempt failed, and it will not be tried again. Last error: no mail server is configured (SMTP_HOST is not set)`,
    );
    expect(row.last_sent_at).toBeNull();
  });

  it('an export job whose message died is marked error, not left running', async () => {
    const id = newId('export_job');
    await db()
      .insert(exportJobs)
      .values({ id, organization_id: org.organization.id, kind: 'dashboard_png', dashboard_id: org.sampleDashboard.id, job_status: 'running' });
    const [dashboard] = await db()
      .select()
      .from((await import('@cairn/db')).dashboards)
      .where(eq((await import('@cairn/db')).dashboards.id, org.sampleDashboard.id));
    const spec = {
      id,
      organizationId: org.organization.id,
      kind: 'dashboard_png' as const,
      dashboard: dashboard!,
      report: null,
      parameters: {},
      mode: 'light' as const,
      width: 800,
    };
    const r = await deliver(
      {
        kind: 'export',
        organizationId: org.organization.id,
        spec,
        principal: { kind: 'api_key', organizationId: org.organization.id, apiKeyId: 'x', grants: [] },
      },
      4,
      withMail,
      'cairn-jobs-dlq',
    );
    expect(r.explicitAcks).toHaveLength(1);
    const [job] = await db()
      .select()
      .from(exportJobs)
      .where(and(eq(exportJobs.id, id), eq(exportJobs.organization_id, org.organization.id)));
    expect(job).toMatchObject({ job_status: 'error', error_message: expect.stringMatching(/gave up after several attempts/) });
  });
});

describe('the cron only enqueues', () => {
  it('a due schedule becomes a queue message that the consumer sends; next_send_at moves on at once', async () => {
    const id = await makeSchedule(`cron-${crypto.randomUUID().slice(0, 8)}@example.com`);
    const due = new Date(Date.now() - 60_000);
    await db().update(dashboardSchedules).set({ next_send_at: due }).where(eq(dashboardSchedules.id, id));
    const { runCron } = await import('../cron.ts');
    const summary = await runCron(env as unknown as Env, new Date());
    expect(summary.schedulesSent).toContain(id);
    expect((await scheduleRow(id)).next_send_at!.getTime()).toBeGreaterThan(Date.now());
    // The consumer picked it up (no SMTP in these workers: it records why it was not sent).
    await eventually(async () => (await scheduleRow(id)).last_error_message, 20_000, 250);
  });
});

declare module 'vitest' {
  export interface ProvidedContext {
    /** The SMTP catcher vitest.peers.ts started: its SMTP port and its HTTP inbox. */
    smtpPort: number;
    mailInbox: string;
  }
}
