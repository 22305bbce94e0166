import { ALERT_COMPARISONS as COMPARISONS, ApiError } from '@cairn/core';
import { parseEmailList } from '../datasources/validate.ts';
import { formatRunAt, parseRunAt } from './schedule.ts';

/** The alert fields the cross-attribute rules look at. */
export interface AlertState {
  run_schedule: 'disabled' | 'at' | 'every';
  run_at: string | null;
  run_every: number | null;
  trigger_condition: string;
  trigger_value: number | null;
}

const attr = (name: string) => ({ source: { pointer: `/data/attributes/${name}` } });

/**
 * Rules between attributes, on the state after the write: run_at goes with `at`, run_every with
 * `every`, trigger_value with the comparison conditions. A value sent for a schedule or condition
 * that does not use it is refused; one left from an earlier setting is cleared (see `clearedFor`).
 */
export function alertProblems(s: AlertState, sent: Record<string, unknown>): ApiError[] {
  const out: ApiError[] = [];
  const given = (k: string) => sent[k] !== undefined && sent[k] !== null;
  if (s.run_schedule === 'at' && !s.run_at) out.push(new ApiError('missing_attribute', 'run_at is required with run_schedule at.', attr('run_at')));
  if (s.run_schedule === 'every' && !s.run_every)
    out.push(new ApiError('missing_attribute', 'run_every is required with run_schedule every.', attr('run_every')));
  if (s.run_schedule !== 'at' && given('run_at')) out.push(new ApiError('invalid_attribute', 'run_at applies only to run_schedule at.', attr('run_at')));
  if (s.run_schedule !== 'every' && given('run_every'))
    out.push(new ApiError('invalid_attribute', 'run_every applies only to run_schedule every.', attr('run_every')));
  const compares = COMPARISONS.has(s.trigger_condition);
  if (compares && s.trigger_value === null) {
    out.push(new ApiError('missing_attribute', `trigger_value is required with trigger_condition ${s.trigger_condition}.`, attr('trigger_value')));
  }
  if (!compares && given('trigger_value')) {
    out.push(
      new ApiError(
        'invalid_attribute',
        `trigger_value applies only to greater_than, lower_than, equal and not_equal, not ${s.trigger_condition}.`,
        attr('trigger_value'),
      ),
    );
  }
  return out;
}

/** Values a setting no longer uses, set to null when the schedule or condition changes. */
export function clearedFor(s: AlertState): Partial<Record<'run_at' | 'run_every' | 'trigger_value', null>> {
  return {
    ...(s.run_schedule !== 'at' ? { run_at: null } : {}),
    ...(s.run_schedule !== 'every' ? { run_every: null } : {}),
    ...(!COMPARISONS.has(s.trigger_condition) ? { trigger_value: null } : {}),
  };
}

const EMAIL_FIELDS = ['emails', 'cc_emails', 'bcc_emails', 'error_emails'] as const;

/** Stored forms: run_at as sorted 24-hour times; address lists trimmed, without repeats (empty → null). */
export function normalized<A extends Record<string, unknown>>(a: A): A {
  const out: Record<string, unknown> = { ...a };
  if (typeof a.run_at === 'string') {
    const r = parseRunAt(a.run_at);
    out.run_at = 'times' in r && r.times.length ? formatRunAt(r.times) : null;
  }
  for (const k of EMAIL_FIELDS) {
    if (typeof a[k] === 'string') {
      const r = parseEmailList(a[k] as string);
      out[k] = 'emails' in r && r.emails.length ? r.emails.join(', ') : null;
    }
  }
  return out as A;
}
