/**
 * The SQL alert form of the administration pages: form values ↔ the API's attributes, and what a run
 * ("Run now") came to. Pure functions (unit tested in alert-form.test.ts).
 */

import type { ApiSchema } from '@cairn/client';
import type { CreateAttributes } from './types';
import {
  ALERT_COMPARISONS as COMPARISONS,
  type AlertEmailCondition as EmailCondition,
  type AlertRunSchedule as RunSchedule,
  type AlertTriggerCondition as TriggerCondition,
} from '@cairn/core';

const EMAIL_FIELDS = ['emails', 'cc_emails', 'bcc_emails', 'error_emails'] as const;

export const SCHEDULE_LABELS: Record<RunSchedule, string> = {
  disabled: 'Manual runs only (schedule off)',
  at: 'Daily at given times',
  every: 'Every N minutes',
};
export const CONDITION_LABELS: Record<TriggerCondition, string> = {
  has_results: 'The query has results',
  no_results: 'The query has no results',
  greater_than: 'Its value is greater than',
  lower_than: 'Its value is lower than',
  equal: 'Its value equals',
  not_equal: 'Its value does not equal',
};
export const EMAIL_CONDITION_LABELS: Record<EmailCondition, string> = {
  triggered: 'When the alert triggers',
  changed: 'When its status changes',
  all: 'After every run',
};

/** The alert's attributes as the API answers them (the form reads the writable ones and the run state). */
export type AlertAttributes = ApiSchema<'SqlAlert'>['attributes'];
/** The attributes a client writes (those of the create call). */
type AlertSettings = Pick<AlertAttributes, keyof CreateAttributes<'/sql_alerts'>>;

/** Every form field as the text the inputs hold. */
export type AlertFormValues = Record<
  | 'name'
  | 'description'
  | 'sql_query'
  | 'datasource'
  | 'run_schedule'
  | 'run_at'
  | 'run_every'
  | 'trigger_condition'
  | 'trigger_value'
  | 'email_condition'
  | 'emails'
  | 'cc_emails'
  | 'bcc_emails'
  | 'error_emails'
  | 'attach_as',
  string
>;

/** A new alert's form: the API's required choices preset to the safest values (manual runs, mail on trigger). */
export function newAlertForm(datasource = ''): AlertFormValues {
  return {
    name: '',
    description: '',
    sql_query: '',
    datasource,
    run_schedule: 'disabled',
    run_at: '',
    run_every: '60',
    trigger_condition: 'has_results',
    trigger_value: '',
    email_condition: 'triggered',
    emails: '',
    cc_emails: '',
    bcc_emails: '',
    error_emails: '',
    attach_as: '',
  };
}

export function formFromAlert(a: AlertSettings, datasource: string): AlertFormValues {
  return {
    name: a.name,
    description: a.description ?? '',
    sql_query: a.sql_query,
    datasource,
    run_schedule: a.run_schedule,
    run_at: a.run_at ?? '',
    run_every: a.run_every === null ? '60' : String(a.run_every),
    trigger_condition: a.trigger_condition,
    trigger_value: a.trigger_value === null ? '' : String(a.trigger_value),
    email_condition: a.email_condition,
    emails: a.emails ?? '',
    cc_emails: a.cc_emails ?? '',
    bcc_emails: a.bcc_emails ?? '',
    error_emails: a.error_emails ?? '',
    attach_as: a.attach_as ?? '',
  };
}

/** The form's values from posted form data (missing fields are empty). */
export function valuesFromFormData(form: FormData): AlertFormValues {
  const out = newAlertForm();
  for (const key of Object.keys(out) as (keyof AlertFormValues)[]) out[key] = String(form.get(key) ?? '');
  return out;
}

const orNull = (s: string): string | null => (s.trim() === '' ? null : s.trim());

/** A number input's text as the API's number; text that is no number is sent as it is, for the API to refuse at its field. */
function numberOrText(s: string): number | string | null {
  const t = s.trim();
  if (t === '') return null;
  const n = Number(t);
  return Number.isFinite(n) ? n : t;
}

/**
 * The JSON:API body of a create or update. Values the chosen schedule or condition does not use are
 * left out (the API refuses them, and clears them on update); empty texts are null.
 */
export function alertBody(v: AlertFormValues, id?: string) {
  const attributes: Record<string, unknown> = {
    name: v.name.trim(),
    description: orNull(v.description),
    sql_query: v.sql_query,
    run_schedule: v.run_schedule,
    trigger_condition: v.trigger_condition,
    email_condition: v.email_condition,
    attach_as: orNull(v.attach_as),
  };
  if (v.run_schedule === 'at') attributes.run_at = orNull(v.run_at);
  if (v.run_schedule === 'every') attributes.run_every = numberOrText(v.run_every);
  if (COMPARISONS.has(v.trigger_condition)) attributes.trigger_value = numberOrText(v.trigger_value);
  for (const k of EMAIL_FIELDS) attributes[k] = orNull(v[k]);
  return {
    data: {
      type: 'sql_alerts',
      ...(id ? { id } : {}),
      attributes,
      ...(v.datasource ? { relationships: { datasource: { data: { type: 'datasources', id: v.datasource } } } } : {}),
    },
  };
}

type RunTone = 'ok' | 'warn' | 'bad' | 'plain';

export interface RunSummary {
  tone: RunTone;
  /** What the run came to, in words. */
  headline: string;
  /** Who was e-mailed, or why nobody was (null: nothing to say). */
  mail: string | null;
  /** The query's or the e-mail's error, as the API recorded it. */
  error: string | null;
}

const ERROR_STATUSES = new Set(['alert_error', 'query_error', 'internal_error', 'internal_timeout']);

/**
 * What a finished run came to, from its recorded result: triggered or not, the error, and whether the
 * e-mail went out (by the rules the API follows: error runs mail error_emails; otherwise the email
 * condition decides, `changed` comparing with the previous evaluated run; a failed send is in the error).
 */
export function summarizeRun(r: {
  status: string;
  error: string | null;
  emailCondition: EmailCondition;
  previous: 'ok' | 'alert_triggered' | null;
  emails: string | null;
  errorEmails: string | null;
}): RunSummary {
  const notSent = r.error && /The e-mail was not sent/.test(r.error) ? r.error.slice(r.error.indexOf('The e-mail was not sent')) : null;
  if (r.status === 'cancelled') return { tone: 'plain', headline: 'The run was cancelled.', mail: null, error: null };
  if (ERROR_STATUSES.has(r.status)) {
    const headline = r.status === 'query_error' ? 'The query failed.' : r.status === 'alert_error' ? 'The result could not be evaluated.' : 'The run failed.';
    const mail = notSent ?? (r.errorEmails ? `Error e-mail sent to ${r.errorEmails}.` : 'No error e-mail: the alert has no error recipients.');
    return {
      tone: 'bad',
      headline,
      mail,
      error: r.error && notSent ? r.error.slice(0, r.error.indexOf('The e-mail was not sent')).replace(/[\s—]+$/, '') || null : r.error,
    };
  }
  const triggered = r.status === 'alert_triggered';
  const headline = triggered ? 'The alert triggered: the condition is met.' : 'The alert did not trigger: the condition is not met.';
  const due = r.emailCondition === 'all' || (r.emailCondition === 'triggered' ? triggered : r.status !== (r.previous ?? 'ok'));
  let mail: string | null;
  if (!due) mail = 'No e-mail: the e-mail condition does not ask for one after this run.';
  else if (notSent) mail = notSent;
  else if (!r.emails) mail = 'No e-mail: the alert has no recipients.';
  else mail = `E-mail sent to ${r.emails}.`;
  return { tone: triggered ? 'warn' : 'ok', headline, mail, error: null };
}
