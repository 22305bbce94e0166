/**
 * "Run now" on the server: starts the run (POST /sql_alerts/{id}/run_query), waits for the alert to
 * finish it (its running_execution_id moves on), then reads the recorded result and sums it up.
 */
import type { ApiSchema } from '@cairn/client';
import type { ApiClient } from './api.server';
import { summarizeRun, type AlertAttributes, type RunSummary } from './alert-form';

const WAIT_MS = 25_000;
const POLL_MS = 400;

type ResultsAnswer = ApiSchema<'SqlAlertResults'>;

export type RunOutcome = { ok: true; summary: RunSummary } | { ok: true; pending: true } | { ok: false; error: string };

export async function runAlertNow(api: ApiClient, id: string): Promise<RunOutcome> {
  const path = `/sql_alerts/${encodeURIComponent(id)}`;
  const started = await api.call<ApiSchema<'SqlAlertRun'>>('POST', `${path}/run_query`);
  if (!started.ok) return { ok: false, error: started.problem.message };
  const executionId = started.body.execution_id;
  const deadline = Date.now() + WAIT_MS;
  let alert: AlertAttributes | null = null;
  for (;;) {
    const res = await api.call<{ data: { attributes: AlertAttributes } }>('GET', path);
    if (!res.ok) return { ok: false, error: res.problem.message };
    if (res.body.data.attributes.running_execution_id !== executionId) {
      alert = res.body.data.attributes;
      break;
    }
    if (Date.now() > deadline) return { ok: true, pending: true };
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
  const results = await api.call<ResultsAnswer>('GET', `${path}/results?limit=20`);
  const items = results.ok ? results.body.items : [];
  const latest = items[0];
  const previous = items.slice(1).find((x) => x.result_status === 'ok' || x.result_status === 'alert_triggered')?.result_status as
    | 'ok'
    | 'alert_triggered'
    | undefined;
  return {
    ok: true,
    summary: summarizeRun({
      status: latest?.result_status ?? alert.last_result_status ?? 'internal_error',
      error: latest ? latest.error_message : (alert.last_error_message ?? null),
      emailCondition: alert.email_condition,
      previous: previous ?? null,
      emails: alert.emails,
      errorEmails: alert.error_emails,
    }),
  };
}
