/**
 * The form of one scheduled e-mail: every attribute of a dashboard schedule with its default, and the
 * API's messages shown under the field they are about (422 pointers), the rest above the buttons.
 */
import { useState, type ReactNode } from 'react';
import { FieldErrors, FormErrors, SelectField, TextField } from '../editor/Field';
import { unplacedErrors } from '../../lib/editor-forms';
import { SchedulePicker } from './SchedulePicker';
import { TimeZonePick } from './TimeZonePick';
import { ScheduleFilters, type ScheduleFilterSetup } from './ScheduleFilters';
import { ATTACH_AS, ATTACH_LABELS, type ScheduleForm } from '../../lib/schedule-form';

const SHOWN = [
  'name',
  'emails',
  'cc_emails',
  'bcc_emails',
  'attach_as',
  'schedule',
  'time_zone',
  'subject_text',
  'body_text',
  'send_via',
  'page_width',
  'parameters',
  'report',
  'dashboard',
];

interface Props {
  mode: 'create' | 'update';
  initial: ScheduleForm;
  reports: { id: string; name: string }[];
  /** The dashboard's filters, their defaults and the organization's time zone. */
  filters: ScheduleFilterSetup & { organizationZone: string };
  errors: Record<string, string[]>;
  busy: boolean;
  onSubmit(form: ScheduleForm): void;
  onCancel(): void;
  /** "Send me a test": the form as it is, to the signed-in user only. */
  onSendTest?(form: ScheduleForm): void;
  testing?: boolean;
  testResult?: ReactNode;
}

export function ScheduleFormView({ mode, initial, reports, filters, errors, busy, onSubmit, onCancel, onSendTest, testing = false, testResult }: Props) {
  const [form, setForm] = useState<ScheduleForm>(initial);
  const set = <K extends keyof ScheduleForm>(k: K, v: ScheduleForm[K]) => setForm((f) => ({ ...f, [k]: v }));
  const toggle = (value: string, on: boolean) =>
    set('attach_as', on ? ATTACH_AS.filter((a) => a === value || form.attach_as.includes(a)) : form.attach_as.filter((a) => a !== value));
  return (
    <form
      className="editor-form"
      data-testid="schedule-form"
      onSubmit={(e) => {
        e.preventDefault();
        onSubmit(form);
      }}
    >
      <h3>{mode === 'create' ? 'New scheduled e-mail' : `Scheduled e-mail “${initial.name}”`}</h3>
      <div className="field-row">
        <TextField
          name="name"
          label="Name"
          hint="How the schedule is listed; also the subject unless you write one."
          value={form.name}
          onChange={(v) => set('name', v)}
          errors={errors}
          required
        />
        <SelectField
          name="report"
          label="Sends"
          value={form.report}
          onChange={(v) => set('report', v)}
          errors={errors}
          options={[{ value: '', label: 'The whole dashboard' }, ...reports.map((r) => ({ value: r.id, label: `Only the report “${r.name}”` }))]}
        />
      </div>
      <TextField
        name="emails"
        label="To"
        hint="Comma-separated addresses, at most 50."
        value={form.emails}
        onChange={(v) => set('emails', v)}
        errors={errors}
        required
        placeholder="ana@example.com, bo@example.com"
      />
      <div className="field-row">
        <TextField name="cc_emails" label="Cc" value={form.cc_emails} onChange={(v) => set('cc_emails', v)} errors={errors} />
        <TextField name="bcc_emails" label="Bcc" value={form.bcc_emails} onChange={(v) => set('bcc_emails', v)} errors={errors} />
      </div>
      <SchedulePicker value={form.schedule} onChange={(v) => set('schedule', v)} errors={errors} />
      <TimeZonePick
        name="time_zone"
        label="Time zone"
        emptyLabel="The organization’s"
        value={form.time_zone}
        onChange={(v) => set('time_zone', v)}
        errors={errors}
        hint="The times above are read in this zone (daylight saving included)."
      />
      <fieldset data-testid="field-attach_as">
        <legend>Attachments</legend>
        <div className="check-grid">
          {ATTACH_AS.map((a) => (
            <label key={a} className="check" htmlFor={`f-attach-${a}`}>
              <input
                id={`f-attach-${a}`}
                type="checkbox"
                checked={form.attach_as.includes(a)}
                onChange={(e) => toggle(a, e.target.checked)}
                data-testid={`attach-${a}`}
              />
              <span>{ATTACH_LABELS[a]}</span>
            </label>
          ))}
        </div>
        <FieldErrors name="attach_as" errors={errors} />
      </fieldset>
      <TextField
        name="subject_text"
        label="Subject"
        placeholder="The schedule’s name"
        value={form.subject_text}
        onChange={(v) => set('subject_text', v)}
        errors={errors}
      />
      <TextField
        name="body_text"
        label="Message"
        multiline
        rows={3}
        placeholder="A short line naming the dashboard or report"
        value={form.body_text}
        onChange={(v) => set('body_text', v)}
        errors={errors}
      />
      <div className="field-row">
        <TextField
          name="page_width"
          label="Page width (px)"
          type="number"
          placeholder="The dashboard’s width"
          hint="400–4000; the width images and PDFs are drawn at."
          value={form.page_width}
          onChange={(v) => set('page_width', v)}
          errors={errors}
        />
        <SelectField
          name="send_via"
          label="Send via"
          value={form.send_via}
          onChange={(v) => set('send_via', v)}
          errors={errors}
          options={[{ value: 'email', label: 'E-mail' }]}
        />
      </div>
      <ScheduleFilters
        setup={filters}
        values={form.filters}
        zone={form.time_zone || filters.organizationZone}
        errors={errors}
        onChange={(v) => set('filters', v)}
      />
      <FormErrors messages={unplacedErrors(errors, SHOWN)} />
      <FieldErrors name="dashboard" errors={errors} />
      <div className="editor-form__actions">
        <button type="submit" className="button button--primary" disabled={busy} data-testid="schedule-save">
          {busy ? 'Saving…' : mode === 'create' ? 'Create schedule' : 'Save schedule'}
        </button>
        {onSendTest ? (
          <button
            type="button"
            className="button"
            disabled={busy || testing}
            onClick={() => onSendTest(form)}
            data-testid="schedule-send-test"
            title="Sends this e-mail once, as it is in the form, to you only"
          >
            {testing ? 'Sending the test…' : 'Send me a test'}
          </button>
        ) : null}
        <button type="button" className="button button--ghost" onClick={onCancel}>
          Cancel
        </button>
      </div>
      {testing ? null : (testResult ?? null)}
    </form>
  );
}
