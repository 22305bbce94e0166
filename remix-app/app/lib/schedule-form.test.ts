import { describe, expect, it } from 'vitest';
import { describeSendNow, formFromSchedule, SCHEDULE_DEFAULTS, scheduleBody } from './schedule-form';

describe('scheduleBody', () => {
  it('sends the defaults with blank optional fields as null and the dashboard as target', () => {
    const res = scheduleBody({ ...SCHEDULE_DEFAULTS, name: ' Weekly ', emails: 'a@example.com' }, 'd1');
    expect(res).toEqual({
      ok: true,
      body: {
        data: {
          type: 'dashboard_schedules',
          attributes: {
            name: 'Weekly',
            emails: 'a@example.com',
            cc_emails: null,
            bcc_emails: null,
            attach_as: 'pdf',
            schedule: 'weekly;0;08:00',
            time_zone: null,
            subject_text: null,
            body_text: null,
            send_via: 'email',
            page_width: null,
            parameters: null,
          },
          relationships: { dashboard: { data: { type: 'dashboards', id: 'd1' } } },
        },
      },
    });
  });

  it('sends a report target, page width and parameters', () => {
    const res = scheduleBody(
      { ...SCHEDULE_DEFAULTS, report: 'r9', page_width: '1200', otherParameters: { aggregation: 'week' }, attach_as: ['csv', 'excel'] },
      'd1',
      's1',
    );
    if (!res.ok) throw new Error('refused');
    expect(res.body.data.id).toBe('s1');
    expect(res.body.data.relationships).toEqual({ report: { data: { type: 'reports', id: 'r9' } } });
    expect(res.body.data.attributes).toMatchObject({ page_width: 1200, parameters: { aggregation: 'week' }, attach_as: 'csv,excel' });
  });

  it('points at unreadable widths', () => {
    expect(scheduleBody({ ...SCHEDULE_DEFAULTS, page_width: '12.5' }, 'd1')).toEqual({
      ok: false,
      errors: {
        page_width: ['Enter a whole number of pixels, or leave it empty for the dashboard’s width.'],
      },
    });
  });
});

describe('formFromSchedule', () => {
  it('reads the attributes back into the form', () => {
    const form = formFromSchedule(
      {
        name: 'N',
        emails: 'a@example.com',
        cc_emails: null,
        bcc_emails: 'b@example.com',
        attach_as: 'pdf, csv',
        schedule: 'daily;08:00',
        time_zone: null,
        subject_text: null,
        body_text: 'Hi',
        send_via: 'email',
        page_width: 900,
        parameters: { tz: 'UTC' },
      },
      'r1',
    );
    expect(form).toMatchObject({ cc_emails: '', bcc_emails: 'b@example.com', attach_as: ['pdf', 'csv'], page_width: '900', report: 'r1', time_zone: '' });
    expect(form.otherParameters).toEqual({ tz: 'UTC' });
    expect(form.filters).toEqual({});
  });
});

describe('describeSendNow', () => {
  it('names recipients, files and problems', () => {
    expect(describeSendNow({ recipients: 2, attachments: [{ filename: 'Sales.csv', content_type: 'text/csv', size: 10, inline: false }], problems: [] })).toBe(
      'Sent to 2 recipients with Sales.csv.',
    );
    expect(
      describeSendNow({
        recipients: 1,
        attachments: [{ filename: 'x.png', content_type: 'image/png', size: 10, inline: true }],
        problems: ['Orders: query failed'],
      }),
    ).toBe('Sent to 1 recipient with an image in the message. Left out: Orders: query failed.');
  });
});
