import type { sqlAlertResults, sqlAlerts } from '@cairn/db';
import { resource, toMany, toOne } from '../../lib/jsonapi.ts';

export type AlertRow = typeof sqlAlerts.$inferSelect;
type ResultRow = typeof sqlAlertResults.$inferSelect;

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function serializeAlert(baseUrl: string, a: AlertRow, snippetIds: string[]) {
  return resource(
    baseUrl,
    'sql_alerts',
    a.id,
    {
      name: a.name,
      description: a.description,
      sql_query: a.sql_query,
      run_schedule: a.run_schedule,
      run_at: a.run_at,
      run_every: a.run_every,
      trigger_condition: a.trigger_condition,
      trigger_value: a.trigger_value,
      email_condition: a.email_condition,
      emails: a.emails,
      cc_emails: a.cc_emails,
      bcc_emails: a.bcc_emails,
      error_emails: a.error_emails,
      attach_as: a.attach_as,
      running_execution_id: a.running_execution_id,
      last_result_status: a.last_result_status,
      last_error_message: a.last_error_message,
      last_query_run: iso(a.last_query_run),
      last_query_success: iso(a.last_query_success),
      last_query_error_message: a.last_query_error_message,
      next_run_at: iso(a.next_run_at),
      created_at: a.created_at.toISOString(),
      updated_at: a.updated_at.toISOString(),
    },
    { datasource: toOne('datasources', a.datasource_id), sql_snippets: toMany('sql_snippets', snippetIds) },
  );
}

/** One alert result; the query and its duration only with Include SQL Details. */
export function serializeAlertResult(r: ResultRow, sqlDetails: boolean) {
  return {
    result_status: r.result_status,
    error_message: r.error_message,
    ...(sqlDetails ? { sql_query: r.sql_query, sql_query_duration: r.sql_query_duration } : {}),
    created_at: r.created_at.toISOString(),
  };
}
