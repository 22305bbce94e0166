/**
 * The schedule form of a dashboard's scheduled e-mails as data: every attribute of a dashboard
 * schedule with its default, read from the API's attributes and written back as a JSON:API body.
 * Blank optional fields are sent as null, so the API's defaults apply (the organization's time zone,
 * the dashboard's page width and filter values, the schedule's name as the subject). The filter values
 * are the dashboard's filter bar's (lib/schedule-filters.ts).
 */
import type { ApiSchema } from '@cairn/client';
import type { ScheduleAttachAs } from '@cairn/core';
import type { FilterDef } from './filters';
import type { CreateAttributes } from './types';
import { scheduleFilterValues, scheduleParameters } from './schedule-filters';

/** Every format of the API's vocabulary (core), labelled, in the order the form offers them. */
export const ATTACH_LABELS: Record<ScheduleAttachAs, string> = {
  pdf: 'PDF',
  dark_pdf: 'PDF (dark)',
  png: 'PNG image',
  dark_png: 'PNG image (dark)',
  inline_png: 'Image in the message',
  dark_inline_png: 'Image in the message (dark)',
  csv: 'CSV data',
  excel: 'Excel workbook',
};
export const ATTACH_AS = Object.keys(ATTACH_LABELS) as ScheduleAttachAs[];

/** A schedule's attributes as the API document types them. */
export type ScheduleAttributes = ApiSchema<'DashboardSchedule'>['attributes'];

export interface ScheduleForm {
  name: string;
  emails: string;
  cc_emails: string;
  bcc_emails: string;
  attach_as: string[];
  schedule: string;
  time_zone: string;
  subject_text: string;
  body_text: string;
  send_via: string;
  page_width: string;
  /** The schedule's own filter values in URL form, by variable (a missing one: the dashboard's default). */
  filters: Record<string, string>;
  /** Stored parameters that no filter of the dashboard shows, kept as they are. */
  otherParameters: Record<string, unknown>;
  /** '' = the whole dashboard; else the id of the one report to send. */
  report: string;
}

/** A new schedule: every Monday at 08:00 in the organization's time zone, a PDF, by e-mail. */
export const SCHEDULE_DEFAULTS: ScheduleForm = {
  name: '',
  emails: '',
  cc_emails: '',
  bcc_emails: '',
  attach_as: ['pdf'],
  schedule: 'weekly;0;08:00',
  time_zone: '',
  subject_text: '',
  body_text: '',
  send_via: 'email',
  page_width: '',
  filters: {},
  otherParameters: {},
  report: '',
};

export function formFromSchedule(a: ScheduleSettings, report: string | null, defs: FilterDef[] = []): ScheduleForm {
  const { values, rest } = scheduleFilterValues(defs, a.parameters);
  return {
    name: a.name,
    emails: a.emails,
    cc_emails: a.cc_emails ?? '',
    bcc_emails: a.bcc_emails ?? '',
    attach_as: a.attach_as
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    schedule: a.schedule,
    time_zone: a.time_zone ?? '',
    subject_text: a.subject_text ?? '',
    body_text: a.body_text ?? '',
    send_via: a.send_via || 'email',
    page_width: a.page_width === null ? '' : String(a.page_width),
    filters: values,
    otherParameters: rest,
    report: report ?? '',
  };
}

const orNull = (s: string) => (s.trim() === '' ? null : s.trim());

/** The attributes a schedule is written with (those of the create call), typed as the API answers them. */
type ScheduleSettings = Pick<ScheduleAttributes, keyof CreateAttributes<'/dashboard_schedules'>>;

export type ScheduleBody = { data: { type: 'dashboard_schedules'; id?: string; attributes: ScheduleSettings; relationships: Record<string, unknown> } };

/**
 * The JSON:API body, or the fields the browser can already tell are unreadable (a page width that is
 * not a whole number); everything else is the API's to judge. `defs`: the dashboard's filters.
 */
export function scheduleBody(
  form: ScheduleForm,
  dashboardId: string,
  id?: string,
  defs: FilterDef[] = [],
): { ok: true; body: ScheduleBody } | { ok: false; errors: Record<string, string[]> } {
  const errors: Record<string, string[]> = {};
  const parameters = scheduleParameters(defs, form.filters, form.otherParameters);
  let pageWidth: number | null = null;
  if (form.page_width.trim()) {
    pageWidth = Number(form.page_width);
    if (!Number.isInteger(pageWidth)) errors.page_width = ['Enter a whole number of pixels, or leave it empty for the dashboard’s width.'];
  }
  if (Object.keys(errors).length) return { ok: false, errors };
  const attributes = {
    name: form.name.trim(),
    emails: form.emails.trim(),
    cc_emails: orNull(form.cc_emails),
    bcc_emails: orNull(form.bcc_emails),
    attach_as: form.attach_as.join(','),
    schedule: form.schedule.trim(),
    time_zone: orNull(form.time_zone),
    subject_text: orNull(form.subject_text),
    body_text: orNull(form.body_text),
    send_via: form.send_via || 'email',
    page_width: pageWidth,
    parameters,
  };
  // A report sent alone, or the whole dashboard (a dashboard sent alone clears the report).
  const relationships = form.report
    ? { report: { data: { type: 'reports', id: form.report } } }
    : { dashboard: { data: { type: 'dashboards', id: dashboardId } } };
  return { ok: true, body: { data: { type: 'dashboard_schedules', ...(id ? { id } : {}), attributes, relationships } } };
}

/** What Send now (and a test send) answers. */
export type SendNowAnswer = ApiSchema<'DashboardScheduleSendNowAnswer'>;

/** "Sent to 2 recipients with report.pdf." — what Send now reports back. */
export function describeSendNow(a: Pick<SendNowAnswer, 'recipients' | 'attachments' | 'problems'>): string {
  const files = a.attachments.filter((f) => !f.inline).map((f) => f.filename);
  const inline = a.attachments.some((f) => f.inline) ? ' and an image in the message' : '';
  const people = a.recipients === 1 ? '1 recipient' : `${a.recipients} recipients`;
  const what = files.length ? ` with ${files.join(', ')}${inline}` : inline ? ` with an image in the message` : '';
  const problems = a.problems.length ? ` Left out: ${a.problems.join('; ')}.` : '';
  return `Sent to ${people}${what}.${problems}`;
}
