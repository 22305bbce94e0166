import { z } from '@hono/zod-openapi';
import type { ResourceBodySpec } from '../../lib/resource-body.ts';
import { resourceObjectSchema } from '../../lib/openapi.ts';
import { MAX_EMAILS, parseEmailList } from '../datasources/validate.ts';
import { MAX_RUN_TIMES, parseRunAt } from './schedule.ts';

import {
  ALERT_ATTACH_AS as ATTACH_AS,
  ALERT_EMAIL_CONDITIONS as EMAIL_CONDITIONS,
  ALERT_RUN_SCHEDULES as RUN_SCHEDULES,
  ALERT_TRIGGER_CONDITIONS as TRIGGER_CONDITIONS,
} from '@cairn/core';

const RESULT_STATUSES = ['ok', 'alert_triggered', 'alert_error', 'query_error', 'internal_error', 'internal_timeout', 'cancelled'] as const;
/** Longest interval of run_schedule every: one week. */
const MAX_RUN_EVERY = 10_080;

const emailList = z
  .string()
  .max(20_000)
  .superRefine((v, ctx) => {
    const r = parseEmailList(v);
    if ('bad' in r) ctx.addIssue({ code: 'custom', message: `"${r.bad}" is not an e-mail address.` });
    else if (r.emails.length > MAX_EMAILS) ctx.addIssue({ code: 'custom', message: `at most ${MAX_EMAILS} addresses.` });
  })
  .nullable()
  .openapi({ description: 'Comma-separated e-mail addresses.', example: 'ops@example.com, cto@example.com' });

const attributes = z.object({
  name: z.string().trim().min(1).max(200),
  description: z.string().max(2000).nullable(),
  sql_query: z
    .string()
    .max(100_000)
    .refine((s) => s.trim().length > 0, 'must not be empty.')
    .refine((s) => !s.includes('\u0000'), 'must not contain the NUL character.'),
  run_schedule: z.enum(RUN_SCHEDULES).openapi({ description: 'disabled: manual runs only; at: at the times of run_at; every: every run_every minutes.' }),
  run_at: z
    .string()
    .max(1000)
    .superRefine((v, ctx) => {
      const r = parseRunAt(v);
      if ('bad' in r) ctx.addIssue({ code: 'custom', message: `"${r.bad}" is not a time of day; write 14:30 or 2:30pm, several separated by commas.` });
      else if (r.times.length > MAX_RUN_TIMES) ctx.addIssue({ code: 'custom', message: `at most ${MAX_RUN_TIMES} times a day.` });
    })
    .nullable()
    .openapi({
      description:
        'Times of day in the organization time zone, 24-hour or 12-hour (am/pm), comma-separated; required with run_schedule at. Stored as sorted 24-hour times.',
      example: '08:00, 2:30pm',
    }),
  run_every: z
    .number()
    .int()
    .min(1)
    .max(MAX_RUN_EVERY)
    .nullable()
    .openapi({ description: `Minutes between runs (1–${MAX_RUN_EVERY}); required with run_schedule every.` }),
  trigger_condition: z.enum(TRIGGER_CONDITIONS),
  trigger_value: z.number().nullable().openapi({ description: 'Required with greater_than, lower_than, equal and not_equal.' }),
  email_condition: z
    .enum(EMAIL_CONDITIONS)
    .openapi({ description: 'triggered: mail when the alert triggers; changed: when its result status changes; all: after every run.' }),
  emails: emailList,
  cc_emails: emailList,
  bcc_emails: emailList,
  error_emails: emailList.openapi({ description: 'Addresses told when the query fails.' }),
  attach_as: z.enum(ATTACH_AS).nullable(),
});

const READ_ONLY = [
  'running_execution_id',
  'last_result_status',
  'last_error_message',
  'last_query_run',
  'last_query_success',
  'last_query_error_message',
  'next_run_at',
  'created_at',
  'updated_at',
] as const;

export const sqlAlertBody = {
  type: 'sql_alerts',
  attributes,
  required: ['name', 'sql_query', 'run_schedule', 'trigger_condition', 'email_condition'],
  readOnly: READ_ONLY,
  relationships: {
    datasource: { type: 'datasources', many: false, requiredOnCreate: true },
    sql_snippets: { type: 'sql_snippets', many: true },
  },
} satisfies ResourceBodySpec<typeof attributes.shape>;

const ts = z.string().openapi({ format: 'date-time' });

export const SqlAlert = resourceObjectSchema(
  'SqlAlert',
  'sql_alerts',
  z.object({
    name: z.string(),
    description: z.string().nullable(),
    sql_query: z.string(),
    run_schedule: z.enum(RUN_SCHEDULES),
    run_at: z.string().nullable(),
    run_every: z.number().int().nullable(),
    trigger_condition: z.enum(TRIGGER_CONDITIONS),
    trigger_value: z.number().nullable(),
    email_condition: z.enum(EMAIL_CONDITIONS),
    emails: z.string().nullable(),
    cc_emails: z.string().nullable(),
    bcc_emails: z.string().nullable(),
    error_emails: z.string().nullable(),
    attach_as: z.enum(ATTACH_AS).nullable(),
    running_execution_id: z.string().nullable(),
    last_result_status: z.enum(RESULT_STATUSES).nullable(),
    last_error_message: z.string().nullable(),
    last_query_run: ts.nullable(),
    last_query_success: ts.nullable(),
    last_query_error_message: z.string().nullable(),
    next_run_at: ts.nullable().openapi({ description: 'When the schedule runs the alert next; null when disabled.' }),
    created_at: ts,
    updated_at: ts,
  }),
  ['datasource', 'sql_snippets'],
);

export const SQL_ALERT_INCLUDES = ['datasource', 'sql_snippets'] as const;

export const RESULTS_DEFAULT = 100;
export const RESULTS_MAX = 1000;
export const RESULTS_KEPT_DAYS = 30;

export const resultsQuery = z.object({
  cursor: z.string().max(200).optional().openapi({ description: 'The `cursor` of the previous answer, for the next (older) page.' }),
  limit: z
    .string()
    .optional()
    .openapi({ description: `Results per answer, 1–${RESULTS_MAX} (default ${RESULTS_DEFAULT}).` }),
});

export const SqlAlertResults = z
  .object({
    cursor: z.string().nullable().openapi({ description: 'Pass as `cursor` to get the next (older) results; null on the last page.' }),
    count: z.number().int().openapi({ description: 'Number of items in this answer.' }),
    items: z.array(
      z.object({
        result_status: z.enum(RESULT_STATUSES),
        error_message: z.string().nullable(),
        sql_query: z.string().nullable().optional().openapi({ description: 'Only with Include SQL Details.' }),
        sql_query_duration: z.number().int().nullable().optional().openapi({ description: 'Milliseconds; only with Include SQL Details.' }),
        created_at: ts,
      }),
    ),
  })
  .openapi('SqlAlertResults');
