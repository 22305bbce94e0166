import { bigint, boolean, customType, index, integer, jsonb, pgTable, primaryKey, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt, orgId, ts, updatedAt } from './common.ts';
import { organizations, users } from './organizations.ts';
import { dashboards, reports, type InputParameters } from './dashboards.ts';

export const dashboardSchedules = pgTable(
  'dashboard_schedules',
  {
    id: text().primaryKey(),
    organization_id: orgId().references(() => organizations.id, { onDelete: 'cascade' }),
    dashboard_id: text().references(() => dashboards.id, { onDelete: 'cascade' }),
    /** When set, the schedule sends this report instead of the whole dashboard. */
    report_id: text().references(() => reports.id, { onDelete: 'cascade' }),
    created_by_user_id: text().references(() => users.id, { onDelete: 'set null' }),
    name: text().notNull(),
    emails: text().notNull(),
    cc_emails: text(),
    bcc_emails: text(),
    attach_as: text().notNull(),
    /** disabled | daily;times | weekly;days;times | monthly;days;times */
    schedule: text().notNull(),
    time_zone: text(),
    subject_text: text(),
    body_text: text(),
    send_via: text(),
    page_width: integer(),
    parameters: jsonb().$type<InputParameters>(),
    next_send_at: ts(),
    last_sent_at: ts(),
    last_error_message: text(),
    created_at: createdAt(),
    updated_at: updatedAt(),
  },
  (t) => [index('schedules_org_idx').on(t.organization_id), index('schedules_next_idx').on(t.next_send_at)],
);

export const dashboardSharingLinks = pgTable(
  'dashboard_sharing_links',
  {
    id: text().primaryKey(),
    organization_id: orgId().references(() => organizations.id, { onDelete: 'cascade' }),
    dashboard_id: text()
      .notNull()
      .references(() => dashboards.id, { onDelete: 'cascade' }),
    name: text().notNull(),
    description: text(),
    /** The unguessable public token of the link (/s/{token}). */
    token: text().notNull(),
    toolbar_enabled: boolean().notNull().default(true),
    parameters_enabled: boolean().notNull().default(false),
    filter_bar_enabled: boolean().notNull().default(false),
    refresh_enabled: boolean().notNull().default(false),
    data_download_enabled: boolean().notNull().default(true),
    unlimited_csv_export_enabled: boolean().notNull().default(false),
    sharing_secret_required: boolean().notNull().default(false),
    /** AES-GCM sealed secret used to sign parameters in embedded links. */
    sharing_secret_encrypted: text(),
    /** PBKDF2 hash; the password is never returned. */
    sharing_password_hash: text(),
    color_mode: text().$type<'light' | 'dark'>().notNull().default('light'),
    ip_whitelist: text(),
    created_at: createdAt(),
    updated_at: updatedAt(),
  },
  (t) => [uniqueIndex('sharing_links_token_unique').on(t.token), index('sharing_links_org_idx').on(t.organization_id)],
);

export const exportJobs = pgTable(
  'export_jobs',
  {
    id: text().primaryKey(),
    organization_id: orgId().references(() => organizations.id, { onDelete: 'cascade' }),
    kind: text().$type<'dashboard_pdf' | 'dashboard_png' | 'report_pdf' | 'report_png' | 'report_csv'>().notNull(),
    dashboard_id: text().references(() => dashboards.id, { onDelete: 'cascade' }),
    report_id: text().references(() => reports.id, { onDelete: 'cascade' }),
    parameters: jsonb().$type<InputParameters>(),
    /** Hash of (kind, target, parameters): finds the recent job inside the unlimited-CSV window. */
    params_hash: text(),
    job_status: text().$type<'started' | 'running' | 'success' | 'error'>().notNull().default('started'),
    file_key: text(),
    /** The file's name and media type once it is stored (export_file_chunks). */
    file_name: text(),
    content_type: text(),
    file_size: bigint({ mode: 'number' }),
    error_message: text(),
    created_by: text(),
    expires_at: ts(),
    created_at: createdAt(),
    updated_at: updatedAt(),
  },
  (t) => [index('export_jobs_org_idx').on(t.organization_id), index('export_jobs_hash_idx').on(t.params_hash)],
);

const bytea = customType<{ data: Uint8Array; driverData: Uint8Array }>({ dataType: () => 'bytea' });

/**
 * The bytes of an export job's file, in order (about 1 MB per chunk), so the data server can stream a
 * large CSV without holding it. Deleted with the job (and by the cron once the job expires).
 */
export const exportFileChunks = pgTable(
  'export_file_chunks',
  {
    job_id: text()
      .notNull()
      .references(() => exportJobs.id, { onDelete: 'cascade' }),
    organization_id: orgId().references(() => organizations.id, { onDelete: 'cascade' }),
    seq: integer().notNull(),
    data: bytea().notNull(),
  },
  (t) => [primaryKey({ columns: [t.job_id, t.seq] })],
);

/**
 * E-mails sent by background jobs, by idempotency key (migration 0012, D54): a queue message may be
 * delivered again, so a job records its send here first ('sending') and marks it 'sent' after; a
 * delivery that finds its key already here sends nothing.
 */
export const jobSends = pgTable(
  'job_sends',
  {
    key: text().primaryKey(),
    organization_id: orgId().references(() => organizations.id, { onDelete: 'cascade' }),
    send_state: text().$type<'sending' | 'sent'>().notNull().default('sending'),
    created_at: createdAt(),
    sent_at: ts(),
  },
  (t) => [index('job_sends_created_idx').on(t.created_at)],
);
