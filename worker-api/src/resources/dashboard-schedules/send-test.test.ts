import { beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { auditLog, dashboardSchedules } from '@cairn/db';
import { db, jsonApi, makeKey, makeOrg, makeUser } from '../../../test/fixtures.ts';
import type { CreateOrganizationResult } from '@cairn/db/seed/organization';

// POST /dashboard_schedules/send_test: "Send me a test" of the schedule form (unsaved settings, to the signed-in user only).
let org: CreateOrganizationResult;
let admin: Awaited<ReturnType<typeof makeUser>>;
const body = (attributes: Record<string, unknown>, dashboard?: string | null) => ({
  type: 'dashboard_schedules',
  attributes,
  relationships: { dashboard: { data: dashboard === null ? null : { type: 'dashboards', id: dashboard ?? org.sampleDashboard.id } } },
});
const send = (data: unknown, as: string | { session: string } = { session: admin.session }) => jsonApi('/dashboard_schedules/send_test', 'POST', data, as);

beforeAll(async () => {
  org = await makeOrg('schedule-send-test');
  admin = await makeUser(org.organization.id, 'admin');
});

describe('POST /dashboard_schedules/send_test', () => {
  it("builds the form's schedule and sends it to the signed-in user only; nothing is stored", async () => {
    const before = await db().select().from(dashboardSchedules).where(eq(dashboardSchedules.organization_id, org.organization.id));
    const res = await send(
      body({ name: 'Weekly', emails: 'someone-else@example.com', bcc_emails: 'spy@example.com', attach_as: 'csv', schedule: 'weekly;0;08:00' }),
    );
    // The test workers have no mail server: the delivery is tried and its reason answered (real sending: e2e/forms-day).
    expect(res.status, JSON.stringify(res.json)).toBe(422);
    expect(res.json.errors[0].code).toBe('invalid_state');
    expect(res.json.errors[0].detail).toMatch(/^The test e-mail was not sent: /);
    const log = await db()
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.organization_id, org.organization.id), eq(auditLog.action, 'send_test')));
    expect(log).toHaveLength(1);
    expect(log[0]!.details).toMatchObject({ sent: false, to: admin.email });
    expect(await db().select().from(dashboardSchedules).where(eq(dashboardSchedules.organization_id, org.organization.id))).toHaveLength(before.length);
  });

  it('checks what it sends: attach_as, schedule and time zone as on create; a dashboard is needed', async () => {
    const missing = await send(body({ name: 'x' }));
    expect(missing.status).toBe(422);
    expect(missing.json.errors[0].source).toEqual({ pointer: '/data/attributes/attach_as' });
    const bad = await send(body({ attach_as: 'gif', schedule: 'hourly', time_zone: 'Mars/Olympus' }));
    expect(bad.status).toBe(422);
    expect(bad.json.errors.map((e: any) => e.source.pointer).sort()).toEqual([
      '/data/attributes/attach_as',
      '/data/attributes/schedule',
      '/data/attributes/time_zone',
    ]);
    const noTarget = await send({ type: 'dashboard_schedules', attributes: { attach_as: 'pdf' } });
    expect(noTarget.status).toBe(422);
    expect(noTarget.json.errors[0].code).toBe('invalid_relationship');
  });

  it("needs Manage Schedules and a user (an API key has no address); another organization's dashboard is not found", async () => {
    const viewer = await makeUser(org.organization.id, 'viewer');
    expect((await send(body({ attach_as: 'pdf' }), { session: viewer.session })).status).toBe(403);
    const key = await send(body({ attach_as: 'pdf' }), await makeKey(org.organization.id));
    expect(key.status).toBe(403);
    expect(key.json.errors[0]).toMatchObject({ code: 'forbidden' });
    expect(key.json.errors[0].detail).toMatch(/API key has none/);
    const other = await makeOrg('schedule-send-test-other');
    const foreign = await send(body({ attach_as: 'pdf' }, other.sampleDashboard.id));
    expect(foreign.status).toBe(422);
    expect(foreign.json.errors[0].code).toBe('invalid_relationship');
    expect((await send(body({ attach_as: 'pdf' }), { session: 'nope' })).status).toBe(401);
  });
});
