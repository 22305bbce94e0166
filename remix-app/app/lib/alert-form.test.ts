import { describe, expect, it } from 'vitest';
import { alertBody, formFromAlert, newAlertForm, summarizeRun, valuesFromFormData } from './alert-form';

const stored: Parameters<typeof formFromAlert>[0] = {
  name: 'Big day',
  description: null,
  sql_query: 'SELECT count(*) FROM orders',
  run_schedule: 'every',
  run_at: null,
  run_every: 90,
  trigger_condition: 'greater_than',
  trigger_value: 100,
  email_condition: 'triggered',
  emails: 'ops@example.com',
  cc_emails: null,
  bcc_emails: null,
  error_emails: 'dev@example.com',
  attach_as: 'csv',
};

describe('alert form ↔ attributes', () => {
  it('starts a new alert with manual runs and mail on trigger', () => {
    const f = newAlertForm('dsr_1');
    expect(f).toMatchObject({ datasource: 'dsr_1', run_schedule: 'disabled', trigger_condition: 'has_results', email_condition: 'triggered', attach_as: '' });
  });

  it('round-trips a stored alert', () => {
    const f = formFromAlert(stored, 'dsr_1');
    expect(f).toMatchObject({ run_every: '90', trigger_value: '100', cc_emails: '', attach_as: 'csv', datasource: 'dsr_1' });
    expect(alertBody(f, 'sal_1')).toEqual({
      data: {
        type: 'sql_alerts',
        id: 'sal_1',
        attributes: {
          name: 'Big day',
          description: null,
          sql_query: 'SELECT count(*) FROM orders',
          run_schedule: 'every',
          run_every: 90,
          trigger_condition: 'greater_than',
          trigger_value: 100,
          email_condition: 'triggered',
          attach_as: 'csv',
          emails: 'ops@example.com',
          cc_emails: null,
          bcc_emails: null,
          error_emails: 'dev@example.com',
        },
        relationships: { datasource: { data: { type: 'datasources', id: 'dsr_1' } } },
      },
    });
  });

  it('leaves out the values the schedule and condition do not use', () => {
    const a = alertBody({ ...newAlertForm('d'), name: ' x ', run_at: '08:00', run_every: '5', trigger_value: '3' }).data.attributes;
    expect(a).not.toHaveProperty('run_at');
    expect(a).not.toHaveProperty('run_every');
    expect(a).not.toHaveProperty('trigger_value');
    expect(a.name).toBe('x');
    const at = alertBody({ ...newAlertForm('d'), run_schedule: 'at', run_at: ' 08:00, 2pm ', trigger_condition: 'equal', trigger_value: '' }).data.attributes;
    expect(at).toMatchObject({ run_at: '08:00, 2pm', trigger_value: null });
  });

  it('sends text that is no number as it is, for the API to refuse at its field', () => {
    const a = alertBody({ ...newAlertForm('d'), run_schedule: 'every', run_every: 'soon' }).data.attributes;
    expect(a.run_every).toBe('soon');
  });

  it('has no relationship without a datasource', () => {
    expect(alertBody(newAlertForm()).data).not.toHaveProperty('relationships');
  });

  it('reads posted form data', () => {
    const fd = new FormData();
    fd.set('name', 'N');
    fd.set('trigger_condition', 'no_results');
    expect(valuesFromFormData(fd)).toMatchObject({ name: 'N', trigger_condition: 'no_results', emails: '', run_schedule: '' });
  });
});

describe('summarizeRun', () => {
  const base = { error: null, emailCondition: 'triggered' as const, previous: null, emails: 'a@example.com', errorEmails: null };

  it('says a triggered alert mailed its recipients', () => {
    expect(summarizeRun({ ...base, status: 'alert_triggered' })).toEqual({
      tone: 'warn',
      headline: expect.stringMatching(/triggered/),
      mail: 'E-mail sent to a@example.com.',
      error: null,
    });
  });

  it('says when no e-mail was due', () => {
    expect(summarizeRun({ ...base, status: 'ok' }).mail).toMatch(/^No e-mail/);
    expect(summarizeRun({ ...base, status: 'ok', emailCondition: 'all' }).mail).toBe('E-mail sent to a@example.com.');
    expect(summarizeRun({ ...base, status: 'ok', emailCondition: 'changed', previous: 'alert_triggered' }).mail).toMatch(/^E-mail sent/);
    expect(summarizeRun({ ...base, status: 'ok', emailCondition: 'changed', previous: null }).mail).toMatch(/^No e-mail/);
    expect(summarizeRun({ ...base, status: 'alert_triggered', emails: null }).mail).toMatch(/no recipients/);
  });

  it('shows a failed send', () => {
    const s = summarizeRun({ ...base, status: 'alert_triggered', error: 'The e-mail was not sent: SMTP down' });
    expect(s.mail).toBe('The e-mail was not sent: SMTP down');
  });

  it('shows the query error and the error e-mail', () => {
    const s = summarizeRun({ ...base, status: 'query_error', error: 'relation "nope" does not exist', errorEmails: 'dev@example.com' });
    expect(s).toEqual({ tone: 'bad', headline: 'The query failed.', mail: 'Error e-mail sent to dev@example.com.', error: 'relation "nope" does not exist' });
    const both = summarizeRun({ ...base, status: 'query_error', error: 'boom — The e-mail was not sent: x', errorEmails: 'dev@example.com' });
    expect(both).toMatchObject({ error: 'boom', mail: 'The e-mail was not sent: x' });
  });
});
