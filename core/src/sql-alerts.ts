/**
 * The vocabulary of SQL alerts (spec 02): when an alert runs, what triggers it, when it mails and what
 * it attaches. The API's schema validates with these lists and the app's alert form offers them.
 */

/** disabled: manual runs only; at: at the times of run_at; every: every run_every minutes. */
export const ALERT_RUN_SCHEDULES = ['disabled', 'at', 'every'] as const;
export type AlertRunSchedule = (typeof ALERT_RUN_SCHEDULES)[number];

export const ALERT_TRIGGER_CONDITIONS = ['has_results', 'no_results', 'greater_than', 'lower_than', 'equal', 'not_equal'] as const;
export type AlertTriggerCondition = (typeof ALERT_TRIGGER_CONDITIONS)[number];

/** The conditions that compare the query's single value with trigger_value. */
export const ALERT_COMPARISONS: ReadonlySet<string> = new Set<AlertTriggerCondition>(['greater_than', 'lower_than', 'equal', 'not_equal']);

/** triggered: mail when the alert triggers; changed: when its result status changes; all: after every run. */
export const ALERT_EMAIL_CONDITIONS = ['triggered', 'changed', 'all'] as const;
export type AlertEmailCondition = (typeof ALERT_EMAIL_CONDITIONS)[number];

export const ALERT_ATTACH_AS = ['csv', 'excel'] as const;
