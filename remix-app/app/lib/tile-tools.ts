/**
 * The analyst app's extra report tools (pure; unit-testable): each report's SQL for **Show SQL**, and the
 * answer of the dashboard action that duplicates a report. Sharing links and the print view never use them.
 */
import type { DashboardAttributes, ReportAttributes, SingleDocument } from './types';

/**
 * Each report's SQL by report id, as the API answered it for this user (reports without a `sql_query`
 * string are left out, so their tile offers no **Show SQL**).
 */
export function reportSqlById(doc: SingleDocument<DashboardAttributes>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const r of doc.included ?? []) {
    if (r.type !== 'reports') continue;
    const sql = (r.attributes as Partial<ReportAttributes>).sql_query;
    if (typeof sql === 'string') out[r.id] = sql;
  }
  return out;
}

/** What the dashboard's `duplicate-report` action answers: the copy's id, or the API's refusal. */
export type DuplicateAnswer = { ok: true; copyId: string | null } | { ok: false; error: string };

/** The copy's id from the API's `201` document (`POST /reports/{id}/duplicate`). */
export function duplicatedId(body: unknown): string | null {
  const id = (body as { data?: { id?: unknown } } | null)?.data?.id;
  return typeof id === 'string' && id ? id : null;
}

/** The SQL as the dialog shows it: line endings normalised, no trailing blank lines. */
export function sqlForDisplay(sql: string): string {
  return sql.replace(/\r\n?/g, '\n').replace(/\s+$/, '');
}
