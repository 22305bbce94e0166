import { doublePrecision, index, integer, pgTable, text } from 'drizzle-orm/pg-core';
import { createdAt, orgId, ts, updatedAt } from './common.ts';
import { organizations } from './organizations.ts';
import { datasources } from './datasources.ts';

export const sqlAlerts = pgTable(
  'sql_alerts',
  {
    id: text().primaryKey(),
    organization_id: orgId().references(() => organizations.id, { onDelete: 'cascade' }),
    datasource_id: text()
      .notNull()
      .references(() => datasources.id, { onDelete: 'restrict' }),
    name: text().notNull(),
    description: text(),
    sql_query: text().notNull(),
    run_schedule: text().$type<'disabled' | 'at' | 'every'>().notNull(),
    /** Comma-separated times of day, for run_schedule at. */
    run_at: text(),
    /** Minutes between runs, for run_schedule every. */
    run_every: integer(),
    trigger_condition: text().$type<'has_results' | 'no_results' | 'greater_than' | 'lower_than' | 'equal' | 'not_equal'>().notNull().default('has_results'),
    trigger_value: doublePrecision(),
    email_condition: text().$type<'triggered' | 'changed' | 'all'>().notNull(),
    emails: text(),
    cc_emails: text(),
    bcc_emails: text(),
    error_emails: text(),
    attach_as: text().$type<'csv' | 'excel'>(),
    running_execution_id: text(),
    last_result_status: text(),
    last_error_message: text(),
    last_query_run: ts(),
    last_query_success: ts(),
    last_query_error_message: text(),
    next_run_at: ts(),
    created_at: createdAt(),
    updated_at: updatedAt(),
  },
  (t) => [index('sql_alerts_org_idx').on(t.organization_id)],
);

/** Kept 30 days. */
export const sqlAlertResults = pgTable(
  'sql_alert_results',
  {
    id: text().primaryKey(),
    organization_id: orgId().references(() => organizations.id, { onDelete: 'cascade' }),
    sql_alert_id: text()
      .notNull()
      .references(() => sqlAlerts.id, { onDelete: 'cascade' }),
    execution_id: text(),
    result_status: text().$type<'ok' | 'alert_triggered' | 'alert_error' | 'query_error' | 'internal_error' | 'internal_timeout' | 'cancelled'>().notNull(),
    error_message: text(),
    sql_query: text(),
    sql_query_duration: integer(),
    created_at: createdAt(),
  },
  (t) => [index('alert_results_alert_idx').on(t.sql_alert_id, t.created_at)],
);
