/**
 * POST /dashboard_schedules/send_test: "Send me a test" of the schedule form. The schedule as it is in
 * the form (not saved) is built and sent once, by the same delivery as send_now (deliver.ts), to the
 * signed-in user's own address only: the form's recipients are not written to, nothing is stored and
 * no schedule's last_sent_at changes. An API key has no address of its own: 422.
 */
import { OpenAPIHono, createRoute, z } from '@hono/zod-openapi';
import { and, eq } from 'drizzle-orm';
import { ApiError } from '@cairn/core';
import { users } from '@cairn/db';
import type { AppEnv } from '../../env.ts';
import { serviceContext, type ServiceContext } from '../../lib/context.ts';
import { readResourceBody, resourceRequestSchema, type ResourceBody } from '../../lib/resource-body.ts';
import { defineRoute } from '../../lib/routes.ts';
import { errorResponses, jsonApiBody } from '../../lib/openapi.ts';
import { requirePermission } from '../../auth/principal.ts';
import { audit } from '../../lib/audit.ts';
import { throwAll } from '../../lib/problems.ts';
import { resolveTarget } from './access.ts';
import { deliverSchedule } from './deliver.ts';
import { scheduleBody, sendNowAnswer } from './schema.ts';
import { attachAs, collect, scheduleString, timeZone } from './validate.ts';
import { checkParameterNames } from '../../engine/parameter-names.ts';

/** What a test reads: a schedule document as for create; only attach_as and the dashboard or report are needed. */
const testBody = { ...scheduleBody, required: ['attach_as'] } as typeof scheduleBody;
type Body = ResourceBody<typeof scheduleBody.attributes.shape>;

async function sendScheduleTest(ctx: ServiceContext, body: Body) {
  requirePermission(ctx.principal, 'manage_schedules');
  const p = ctx.principal;
  if (p.kind !== 'user') {
    // The caller, not the body, is what cannot be served: 403 (an API key has no mailbox).
    throw new ApiError('forbidden', 'A test is sent to the signed-in user’s own address; an API key has none. Use send_now on a saved schedule.');
  }
  const a = body.attributes;
  const checks: [string, () => unknown][] = [['attach_as', () => attachAs(a.attach_as!)]];
  if (a.schedule !== undefined) checks.push(['schedule', () => scheduleString(a.schedule!)]);
  if (a.time_zone !== undefined) checks.push(['time_zone', () => timeZone(a.time_zone!)]);
  const { values, problems } = collect(checks);
  throwAll(problems);
  const target = await resolveTarget(ctx, body.relationships as { dashboard?: string | null; report?: string | null });
  requirePermission(ctx.principal, 'manage_schedules', { type: 'dashboards', id: target.dashboard_id });
  await checkParameterNames(ctx, { dashboardId: target.dashboard_id, parameters: a.parameters, pointer: '/data/attributes/parameters', allReports: true });
  const [me] = await ctx.db
    .select({ email: users.email })
    .from(users)
    .where(and(eq(users.id, p.userId), eq(users.organization_id, p.organizationId)))
    .limit(1);
  if (!me) throw new ApiError('invalid_state', 'Your user has no e-mail address to send the test to.');
  const now = new Date();
  const name = a.name?.trim() || 'Scheduled e-mail';
  const delivery = await deliverSchedule(
    ctx.env,
    {
      id: 'test',
      organization_id: p.organizationId,
      ...target,
      name: `${name} (test)`,
      emails: me.email,
      cc_emails: null,
      bcc_emails: null,
      attach_as: values.attach_as as string,
      schedule: (values.schedule as string | undefined) ?? 'disabled',
      time_zone: (values.time_zone as string | null | undefined) ?? null,
      subject_text: a.subject_text?.trim() ? `[Test] ${a.subject_text.trim()}` : `[Test] ${name}`,
      body_text: a.body_text ?? null,
      send_via: 'email',
      page_width: a.page_width ?? null,
      parameters: a.parameters ?? null,
      next_send_at: null,
      last_sent_at: null,
      last_error_message: null,
      created_by_user_id: p.userId,
      created_at: now,
      updated_at: now,
    } as Parameters<typeof deliverSchedule>[1],
    ctx.waitUntil,
    now,
  );
  await audit(ctx, 'send_test', 'dashboards', target.dashboard_id, { sent: delivery.sent, to: me.email });
  if (!delivery.sent) {
    throw new ApiError('invalid_state', `The test e-mail was not sent: ${delivery.error_message ?? 'unknown reason'}`, {
      meta: { reason: delivery.error_message },
    });
  }
  return {
    status: 'sent' as const,
    to: me.email,
    sent_at: delivery.sent_at!,
    recipients: delivery.recipients,
    attachments: delivery.attachments,
    problems: delivery.problems,
  };
}

export const scheduleTestRoutes = new OpenAPIHono<AppEnv>();

const sendTestAnswer = sendNowAnswer
  .omit({ dashboard_schedule_id: true })
  .extend({
    to: z.string().openapi({ description: 'The signed-in user’s address, the only recipient.' }),
  })
  .openapi('DashboardScheduleSendTestAnswer');

defineRoute(
  scheduleTestRoutes,
  createRoute({
    method: 'post',
    path: '/dashboard_schedules/send_test',
    tags: ['Dashboard schedules'],
    summary: 'Send a test of unsaved schedule settings to yourself',
    description:
      'Needs Manage Schedules on the dashboard, and a signed-in user (an API key has no address: 403 forbidden). The body is a schedule document as for create, of which attach_as and the dashboard or report relationship are required; subject_text, body_text, page_width, parameters and time_zone are used as sent. The e-mail goes once, at once, to the signed-in user only — emails, cc_emails and bcc_emails are ignored — with “[Test]” before the subject. Nothing is stored. Answers like send_now, with `to`; 422 invalid_state when nothing could be sent.',
    'x-permissions': ['manage_schedules'],
    request: { body: jsonApiBody(resourceRequestSchema(testBody, 'create')) },
    responses: {
      200: { description: 'The test e-mail was sent', content: { 'application/json': { schema: sendTestAnswer } } },
      ...errorResponses(400, 401, 403, 415, 422, 429),
    },
  }),
  async (c) => {
    const body = await readResourceBody(c, testBody, 'create');
    return c.json(await sendScheduleTest(serviceContext(c), body), 200);
  },
);
