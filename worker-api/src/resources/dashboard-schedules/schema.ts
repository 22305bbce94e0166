import { z } from '@hono/zod-openapi';
import { SCHEDULE_ATTACH_AS as ATTACH_AS } from '@cairn/core';
import type { ResourceBodySpec } from '../../lib/resource-body.ts';
import { resourceObjectSchema } from '../../lib/openapi.ts';
import { name, text, timestamp } from '../../lib/field-checks.ts';
import { inputParametersSchema } from '../reports/schema.ts';

export const MAX_RECIPIENTS = 50;
export const PAGE_WIDTH = { min: 400, max: 4000 } as const;

const scheduleAttributes = z.object({
  name,
  emails: text(20_000).openapi({ description: `Comma-separated addresses, at most ${MAX_RECIPIENTS}.`, example: 'ana@example.com, bo@example.com' }),
  cc_emails: text(20_000).nullable(),
  bcc_emails: text(20_000).nullable(),
  attach_as: z
    .string()
    .max(200)
    .openapi({ description: `Comma list of ${ATTACH_AS.join(', ')}; each at most once.`, example: 'pdf,inline_png' }),
  schedule: z.string().max(1000).openapi({
    description:
      '"disabled", "daily;TIMES", "weekly;DAYS;TIMES" (days 0 Monday … 6 Sunday) or "monthly;DAYS;TIMES" (days 1–31); times 24-hour HH:MM or 12-hour h[:mm] am/pm, comma-separated.',
    example: 'weekly;0,3;08:00,5:30 pm',
  }),
  time_zone: z
    .string()
    .max(64)
    .nullable()
    .openapi({ description: "IANA time zone of the schedule's times; null uses the organization's.", example: 'Europe/Berlin' }),
  subject_text: text(1000).nullable(),
  body_text: text(20_000).nullable(),
  send_via: z.enum(['email']).openapi({ default: 'email' }),
  page_width: z
    .number()
    .int()
    .min(PAGE_WIDTH.min)
    .max(PAGE_WIDTH.max)
    .nullable()
    .openapi({ description: `Pixels, ${PAGE_WIDTH.min}–${PAGE_WIDTH.max}; null uses the dashboard's default_page_width.` }),
  parameters: inputParametersSchema.nullable(),
});

export const scheduleBody = {
  type: 'dashboard_schedules',
  attributes: scheduleAttributes,
  required: ['name', 'attach_as', 'schedule', 'emails'],
  readOnly: ['last_sent_at', 'next_send_at', 'created_at', 'updated_at'],
  relationships: {
    dashboard: { type: 'dashboards', many: false },
    report: { type: 'reports', many: false },
  },
} satisfies ResourceBodySpec<typeof scheduleAttributes.shape>;

export const DashboardSchedule = resourceObjectSchema(
  'DashboardSchedule',
  'dashboard_schedules',
  z.object({
    name: z.string(),
    emails: z.string(),
    cc_emails: z.string().nullable(),
    bcc_emails: z.string().nullable(),
    attach_as: z.string(),
    schedule: z.string(),
    time_zone: z.string().nullable(),
    subject_text: z.string().nullable(),
    body_text: z.string().nullable(),
    send_via: z.string(),
    page_width: z.number().int().nullable(),
    parameters: z.record(z.string(), z.unknown()).nullable(),
    next_send_at: timestamp.nullable().openapi({ description: 'Read-only: the next send time (null when disabled).' }),
    last_sent_at: timestamp.nullable(),
    created_at: timestamp,
    updated_at: timestamp,
  }),
  ['dashboard', 'report'],
);

export const SCHEDULE_INCLUDES = ['dashboard', 'report'] as const;

export const sendNowBody = z.object({}).strict().openapi('DashboardScheduleSendNow');
export const sendNowAnswer = z
  .object({
    status: z.literal('sent'),
    dashboard_schedule_id: z.string(),
    sent_at: timestamp,
    recipients: z.number().int().openapi({ description: 'Addresses the mail server accepted (to, cc and bcc).' }),
    attachments: z.array(
      z.object({
        filename: z.string(),
        content_type: z.string(),
        size: z.number().int(),
        inline: z.boolean().openapi({ description: 'true for inline_png images shown in the body.' }),
      }),
    ),
    problems: z.array(z.string()).openapi({ description: 'Reports whose data could not be attached (their query failed); the e-mail names them too.' }),
  })
  .openapi('DashboardScheduleSendNowAnswer');
