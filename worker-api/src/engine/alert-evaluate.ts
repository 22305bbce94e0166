import type { FinalStatus } from './job.ts';

export type TriggerCondition = 'has_results' | 'no_results' | 'greater_than' | 'lower_than' | 'equal' | 'not_equal';
export type EmailCondition = 'triggered' | 'changed' | 'all';
export type AlertResultStatus = 'ok' | 'alert_triggered' | 'alert_error' | 'query_error' | 'internal_error' | 'internal_timeout' | 'cancelled';

const WORDS: Record<Exclude<TriggerCondition, 'has_results' | 'no_results'>, string> = {
  greater_than: 'greater than',
  lower_than: 'lower than',
  equal: 'equal to',
  not_equal: 'not equal to',
};

/**
 * The alert result of a finished query. has_results / no_results look at the row count; the four
 * comparisons need exactly one value (one row, one column) that is a number (or a numeric string, as
 * big integers and decimals are stored) and compare it with trigger_value. Any other shape is
 * alert_error, with a message saying what came back.
 */
export function evaluateTrigger(
  condition: TriggerCondition,
  triggerValue: number | null,
  result: { rowCount: number; firstRow: unknown[] | null },
): { status: 'ok' | 'alert_triggered' | 'alert_error'; message: string | null } {
  if (condition === 'has_results') return { status: result.rowCount > 0 ? 'alert_triggered' : 'ok', message: null };
  if (condition === 'no_results') return { status: result.rowCount === 0 ? 'alert_triggered' : 'ok', message: null };
  const error = (message: string) => ({ status: 'alert_error' as const, message });
  if (triggerValue === null || !Number.isFinite(triggerValue)) return error(`The trigger condition "${condition}" needs a trigger_value.`);
  if (result.rowCount !== 1 || !result.firstRow) {
    return error(`The query returned ${result.rowCount} rows; comparing with ${triggerValue} needs exactly one row with one value.`);
  }
  if (result.firstRow.length !== 1) {
    return error(`The query returned ${result.firstRow.length} columns; comparing with ${triggerValue} needs exactly one value.`);
  }
  const cell = result.firstRow[0];
  const value = typeof cell === 'number' ? cell : typeof cell === 'string' && cell.trim() !== '' ? Number(cell) : NaN;
  if (!Number.isFinite(value)) {
    return error(`The query returned ${JSON.stringify(cell)}, which is not a number to compare with ${triggerValue}.`);
  }
  const hit =
    condition === 'greater_than'
      ? value > triggerValue
      : condition === 'lower_than'
        ? value < triggerValue
        : condition === 'equal'
          ? value === triggerValue
          : value !== triggerValue;
  return { status: hit ? 'alert_triggered' : 'ok', message: hit ? `The value ${value} is ${WORDS[condition]} ${triggerValue}.` : null };
}

/** The alert result status of an execution that did not succeed. */
export function resultStatusOf(status: Exclude<FinalStatus, 'success'>): AlertResultStatus {
  switch (status) {
    case 'query_error':
      return 'query_error';
    // A statement timeout is the run taking too long, like the overall guard.
    case 'timed_out':
    case 'internal_timeout':
      return 'internal_timeout';
    case 'cancelled':
      return 'cancelled';
    default:
      return 'internal_error';
  }
}

const isErrorStatus = (s: AlertResultStatus) => s === 'alert_error' || s === 'query_error' || s === 'internal_error' || s === 'internal_timeout';

/**
 * Who hears about a run: `recipients` (emails, cc, bcc) per email_condition — triggered: only runs
 * that trigger; changed: when ok/alert_triggered differs from the previous evaluated run's (no
 * previous run counts as ok, so the first trigger is news); all: every evaluated run — and
 * `error_emails` for runs that could not be evaluated. Cancelled runs send nothing.
 */
export function mailDue(
  status: AlertResultStatus,
  condition: EmailCondition,
  previousEvaluated: 'ok' | 'alert_triggered' | null,
): 'recipients' | 'errors' | null {
  if (status === 'cancelled') return null;
  if (isErrorStatus(status)) return 'errors';
  if (condition === 'all') return 'recipients';
  if (condition === 'triggered') return status === 'alert_triggered' ? 'recipients' : null;
  return status !== (previousEvaluated ?? 'ok') ? 'recipients' : null;
}
