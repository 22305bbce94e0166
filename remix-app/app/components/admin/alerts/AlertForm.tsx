/**
 * The SQL alert form (create and edit): name, description, datasource, SQL, the trigger condition and
 * its value, the schedule (times or interval), when to e-mail and to whom, the attachment. Fields the
 * chosen schedule or condition does not use are hidden (and not sent). The API's 422s are shown at
 * their fields; messages for no field shown go under the form.
 */
import { useState } from 'react';
import { useFetcher } from 'react-router';
import {
  ALERT_ATTACH_AS as ATTACH_AS,
  ALERT_COMPARISONS as COMPARISONS,
  ALERT_EMAIL_CONDITIONS as EMAIL_CONDITIONS,
  ALERT_RUN_SCHEDULES as RUN_SCHEDULES,
  ALERT_TRIGGER_CONDITIONS as TRIGGER_CONDITIONS,
} from '@cairn/core';
import { CONDITION_LABELS, EMAIL_CONDITION_LABELS, SCHEDULE_LABELS, type AlertFormValues } from '../../../lib/alert-form';
import { FORM, unplacedErrors } from '../../../lib/editor-forms';
import { RowError } from '../ui';
import { AlertField } from './AlertField';

export type AlertSaveAnswer = { intent: 'save'; ok: true } | { intent: 'save'; ok: false; errors: Record<string, string[]> };

const SHOWN = [
  'name',
  'description',
  'datasource',
  'sql_query',
  'trigger_condition',
  'trigger_value',
  'run_schedule',
  'run_at',
  'run_every',
  'email_condition',
  'emails',
  'cc_emails',
  'bcc_emails',
  'error_emails',
  'attach_as',
];

export function AlertForm({
  initial,
  datasources,
  isNew,
  canSave,
}: {
  initial: AlertFormValues;
  datasources: { id: string; name: string }[];
  isNew: boolean;
  canSave: boolean;
}) {
  const fetcher = useFetcher<AlertSaveAnswer>();
  const [schedule, setSchedule] = useState(initial.run_schedule);
  const [condition, setCondition] = useState(initial.trigger_condition);
  const result = fetcher.data;
  const errors = result && !result.ok ? result.errors : {};
  const rest = unplacedErrors(
    errors,
    SHOWN.filter((f) => f !== FORM),
  );
  const options =
    datasources.some((d) => d.id === initial.datasource) || !initial.datasource
      ? datasources
      : [{ id: initial.datasource, name: initial.datasource }, ...datasources];
  const invalid = (name: string) => (errors[name] ? true : undefined);
  return (
    <fetcher.Form method="post" className="card alert-form" aria-label={isNew ? 'Create a SQL alert' : 'Edit the SQL alert'}>
      <fieldset className="fieldset" disabled={!canSave}>
        <legend>Query</legend>
        <div className="form-grid">
          <AlertField label="Name" name="name" errors={errors}>
            <input name="name" defaultValue={initial.name} maxLength={200} data-testid="alert-name" aria-invalid={invalid('name')} />
          </AlertField>
          <AlertField label="Datasource" name="datasource" errors={errors}>
            <select name="datasource" defaultValue={initial.datasource} data-testid="alert-datasource" aria-invalid={invalid('datasource')}>
              {isNew ? <option value="">Choose a datasource…</option> : null}
              {options.map((d) => (
                <option key={d.id} value={d.id}>
                  {d.name}
                </option>
              ))}
            </select>
          </AlertField>
          <AlertField label="Description" name="description" errors={errors} wide>
            <textarea name="description" defaultValue={initial.description} maxLength={2000} rows={2} data-testid="alert-description" />
          </AlertField>
          <AlertField
            label="SQL"
            name="sql_query"
            errors={errors}
            wide
            hint="The query runs on the datasource; comparisons use the single value of its first row and column."
          >
            <textarea
              name="sql_query"
              className="sql-input"
              defaultValue={initial.sql_query}
              spellCheck={false}
              data-testid="alert-sql"
              aria-invalid={invalid('sql_query')}
            />
          </AlertField>
        </div>
      </fieldset>
      <fieldset className="fieldset" disabled={!canSave}>
        <legend>Condition and schedule</legend>
        <div className="form-grid">
          <AlertField label="Trigger when" name="trigger_condition" errors={errors}>
            <select name="trigger_condition" value={condition} onChange={(e) => setCondition(e.target.value)} data-testid="alert-condition">
              {TRIGGER_CONDITIONS.map((c) => (
                <option key={c} value={c}>
                  {CONDITION_LABELS[c]}
                </option>
              ))}
            </select>
          </AlertField>
          {COMPARISONS.has(condition) ? (
            <AlertField label="Value" name="trigger_value" errors={errors}>
              <input
                name="trigger_value"
                type="number"
                step="any"
                defaultValue={initial.trigger_value}
                data-testid="alert-value"
                aria-invalid={invalid('trigger_value')}
              />
            </AlertField>
          ) : null}
          <AlertField label="Schedule" name="run_schedule" errors={errors}>
            <select name="run_schedule" value={schedule} onChange={(e) => setSchedule(e.target.value)} data-testid="alert-schedule">
              {RUN_SCHEDULES.map((s) => (
                <option key={s} value={s}>
                  {SCHEDULE_LABELS[s]}
                </option>
              ))}
            </select>
          </AlertField>
          {schedule === 'at' ? (
            <AlertField label="Times of day" name="run_at" errors={errors} hint="In the organization’s time zone: 08:00, 2:30pm…">
              <input name="run_at" defaultValue={initial.run_at} placeholder="08:00, 17:30" data-testid="alert-run-at" aria-invalid={invalid('run_at')} />
            </AlertField>
          ) : null}
          {schedule === 'every' ? (
            <AlertField label="Minutes between runs" name="run_every" errors={errors} hint="1 to 10080 (a week).">
              <input
                name="run_every"
                type="number"
                min={1}
                max={10080}
                defaultValue={initial.run_every}
                data-testid="alert-run-every"
                aria-invalid={invalid('run_every')}
              />
            </AlertField>
          ) : null}
        </div>
      </fieldset>
      <fieldset className="fieldset" disabled={!canSave}>
        <legend>E-mail</legend>
        <div className="form-grid">
          <AlertField label="Send" name="email_condition" errors={errors}>
            <select name="email_condition" defaultValue={initial.email_condition} data-testid="alert-email-condition">
              {EMAIL_CONDITIONS.map((c) => (
                <option key={c} value={c}>
                  {EMAIL_CONDITION_LABELS[c]}
                </option>
              ))}
            </select>
          </AlertField>
          <AlertField label="Attach the result" name="attach_as" errors={errors}>
            <select name="attach_as" defaultValue={initial.attach_as} data-testid="alert-attach">
              <option value="">No attachment</option>
              {ATTACH_AS.map((a) => (
                <option key={a} value={a}>
                  {a === 'csv' ? 'CSV file' : 'Excel file'}
                </option>
              ))}
            </select>
          </AlertField>
          <AlertField label="To" name="emails" errors={errors} wide hint="Addresses separated by commas.">
            <input
              name="emails"
              defaultValue={initial.emails}
              placeholder="ops@example.com, cto@example.com"
              data-testid="alert-emails"
              aria-invalid={invalid('emails')}
            />
          </AlertField>
          <AlertField label="Cc" name="cc_emails" errors={errors}>
            <input name="cc_emails" defaultValue={initial.cc_emails} data-testid="alert-cc" aria-invalid={invalid('cc_emails')} />
          </AlertField>
          <AlertField label="Bcc" name="bcc_emails" errors={errors}>
            <input name="bcc_emails" defaultValue={initial.bcc_emails} data-testid="alert-bcc" aria-invalid={invalid('bcc_emails')} />
          </AlertField>
          <AlertField label="Tell about failed runs" name="error_emails" errors={errors} hint="Mailed when the query fails or cannot be evaluated.">
            <input name="error_emails" defaultValue={initial.error_emails} data-testid="alert-error-emails" aria-invalid={invalid('error_emails')} />
          </AlertField>
        </div>
      </fieldset>
      {canSave ? (
        <div className="form-actions">
          <button type="submit" name="intent" value="save" className="button button--primary" disabled={fetcher.state !== 'idle'} data-testid="alert-save">
            {isNew ? 'Create alert' : 'Save changes'}
          </button>
          {result?.ok && fetcher.state === 'idle' ? (
            <span className="row-ok" role="status" data-testid="alert-saved">
              Saved.
            </span>
          ) : null}
        </div>
      ) : (
        <p className="muted small">Your permissions let you see this alert, not change it.</p>
      )}
      {rest.length ? <RowError message={rest.join(' ')} /> : null}
    </fetcher.Form>
  );
}
