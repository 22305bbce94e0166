/**
 * Schedules send current data (issue 15): before drawing a PDF or PNG, a send (send_now and the cron,
 * both through deliverSchedule) runs the reports whose data is older than their refresh rate; data
 * still within it is not run again. The test workers have no renderer, so the send itself fails after
 * that step — which is what makes the step observable here.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { and, eq, inArray } from 'drizzle-orm';
import { dashboardSchedules, executions, reports, results } from '@cairn/db';
import { newId } from '@cairn/core';
import { call, db, makeKey, makeOrg } from '../../../test/fixtures.ts';
import { dashboardWith } from '../../../test/dashboard-data-helpers.ts';
import { deliverSchedule } from './deliver.ts';
import { env } from 'cloudflare:test';
import type { CreateOrganizationResult } from '@cairn/db/seed/organization';

let org: CreateOrganizationResult;
let key: string;

beforeAll(async () => {
  org = await makeOrg('schedule-freshness');
  key = await makeKey(org.organization.id);
});

/** A dashboard with a report refreshed every 15 minutes and one every 60, each with a result 25 minutes old. */
async function dashboardWithOldData(label: string) {
  const tag = Math.random().toString(36).slice(2, 8);
  const d = await dashboardWith(org.organization.id, org.sampleDatasource.id, `Freshness ${label}`, [
    { name: 'Every 15 minutes', sql: `select '${tag}' as tag, count(*) as n from orders` },
    { name: 'Every hour', sql: `select '${tag}' as tag, 2 as two` },
  ]);
  const [often, hourly] = d.reportIds as [string, string];
  await db().update(reports).set({ data_refresh_rate: 15 }).where(eq(reports.id, often));
  await db().update(reports).set({ data_refresh_rate: 60 }).where(eq(reports.id, hourly));
  const first: Record<string, string> = {};
  for (const id of [often, hourly]) {
    const res = await call(`/reports/${id}/data`, { key, method: 'POST', body: {} });
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    first[id] = res.json.execution_id;
  }
  const old = new Date(Date.now() - 25 * 60_000);
  await db()
    .update(executions)
    .set({ completed_at: old, created_at: old })
    .where(inArray(executions.id, Object.values(first)));
  await db()
    .update(results)
    .set({ data_timestamp: old })
    .where(inArray(results.execution_id, Object.values(first)));
  return { dashboard: d.id, often, hourly, first };
}

const runsOf = (reportId: string) =>
  db()
    .select()
    .from(executions)
    .where(and(eq(executions.organization_id, org.organization.id), eq(executions.report_id, reportId)));

async function scheduleFor(dashboardId: string, attach_as: string) {
  const id = newId('dashboard_schedule');
  await db().insert(dashboardSchedules).values({
    id,
    organization_id: org.organization.id,
    dashboard_id: dashboardId,
    name: 'Morning numbers',
    emails: 'ana@example.com',
    attach_as,
    schedule: 'daily;07:00',
  });
  return (await db().select().from(dashboardSchedules).where(eq(dashboardSchedules.id, id)))[0]!;
}

describe('a send runs stale reports before drawing', () => {
  it('send_now with a PDF re-runs the report older than its refresh rate, not the one within it', async () => {
    const d = await dashboardWithOldData('send-now');
    const s = await scheduleFor(d.dashboard, 'pdf');
    const before = Date.now();
    const res = await call(`/dashboard_schedules/${s.id}/send_now`, { key, method: 'POST' });
    // No renderer in the test workers: nothing is sent, but the data was brought up to date first.
    expect(res.status).toBe(422);
    const often = await runsOf(d.often);
    expect(often).toHaveLength(2);
    const rerun = often.find((e) => e.id !== d.first[d.often])!;
    expect(rerun.execution_status).toBe('success');
    expect(rerun.completed_at!.getTime()).toBeGreaterThanOrEqual(before - 1_000);
    expect(await runsOf(d.hourly)).toHaveLength(1);
  });

  it('the cron path (deliverSchedule) does the same for a PNG; and so do data attachments', async () => {
    const d = await dashboardWithOldData('cron');
    const png = await scheduleFor(d.dashboard, 'inline_png');
    const waits: Promise<unknown>[] = [];
    const out = await deliverSchedule(env as never, png, (p) => waits.push(p));
    await Promise.allSettled(waits);
    expect(out.sent).toBe(false);
    expect(await runsOf(d.often)).toHaveLength(2);
    expect(await runsOf(d.hourly)).toHaveLength(1);

    const other = await dashboardWithOldData('csv');
    const csv = await scheduleFor(other.dashboard, 'csv');
    await deliverSchedule(env as never, csv, (p) => waits.push(p));
    // Data attachments read each report through the engine with its refresh rate: the same two outcomes.
    expect(await runsOf(other.often)).toHaveLength(2);
    expect(await runsOf(other.hourly)).toHaveLength(1);
  });
});
