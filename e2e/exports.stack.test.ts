/**
 * Exports and scheduled e-mails for real, through the running stack: the API worker asks the stack's
 * renderer (headless Chromium, scripts/lib/renderer.ts) to draw the web app's print view, stores the
 * file, and the data server hands it out at the job's file_url. send_now builds the e-mail with every
 * kind of attachment and it lands in the SMTP catcher.
 */
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiFetch, getStack } from './harness.ts';

const ACTION = { 'content-type': 'application/json' };
/** The renderer drives Debian's Chromium; without it (CAIRN_SKIP_BROWSER machines) these tests cannot run. */
const noChromium = !existsSync('/usr/bin/chromium');
let dashboardId: string;
let reportId: string;
const schedules: string[] = [];

/** Polls the job until it ends; answers its attributes. */
async function finished(jobId: string, ms = 100_000) {
  const until = Date.now() + ms;
  for (;;) {
    const res = await apiFetch(`/export_jobs/${jobId}`);
    expect(res.status).toBe(200);
    const a = res.body.data.attributes;
    if (a.job_status === 'success' || a.job_status === 'error') return a as { job_status: string; file_url?: string; error_message?: string };
    if (Date.now() > until) throw new Error(`export job ${jobId} still ${a.job_status} after ${ms} ms`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function download(url: string) {
  const res = await fetch(url);
  return {
    status: res.status,
    type: res.headers.get('content-type'),
    disposition: res.headers.get('content-disposition'),
    bytes: new Uint8Array(await res.arrayBuffer()),
  };
}

beforeAll(async () => {
  if (!getStack().renderer)
    throw new Error('the stack file names no renderer: start the stack with the app (scripts/lib/stack.ts starts the renderer with it)');
  const list = await apiFetch('/dashboards?page[size]=100');
  const board = list.body.data.find((d: any) => d.attributes.name === 'Online shop overview');
  expect(board, "the dev seed's sample dashboard").toBeDefined();
  dashboardId = board.id;
  const reports = await apiFetch(`/dashboards/${dashboardId}?include=reports`);
  reportId = reports.body.included.find((r: any) => r.type === 'reports' && r.attributes.name === 'Revenue by country').id;
});

afterAll(async () => {
  for (const id of schedules) await apiFetch(`/dashboard_schedules/${id}`, { method: 'DELETE' });
});

describe.skipIf(noChromium)('export jobs with the renderer', () => {
  it('draws a dashboard as PNG and a report as dark PDF; the file_url serves the bytes', async () => {
    const png = await apiFetch(`/dashboards/${dashboardId}/export_png`, { body: { page_width: 1200 }, headers: ACTION });
    expect(png.status, png.text).toBe(202);
    const pdf = await apiFetch(`/reports/${reportId}/export_pdf`, { body: { color_mode: 'dark' }, headers: ACTION });
    expect(pdf.status, pdf.text).toBe(202);

    const pngJob = await finished(png.body.job_id);
    expect(pngJob, JSON.stringify(pngJob)).toMatchObject({ job_status: 'success' });
    const pngFile = await download(pngJob.file_url!);
    expect(pngFile.status).toBe(200);
    expect(pngFile.type).toBe('image/png');
    expect([...pngFile.bytes.slice(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    // IHDR: the page width asked for.
    expect(new DataView(pngFile.bytes.buffer).getUint32(16)).toBe(1200);
    expect(pngFile.bytes.length).toBeGreaterThan(10_000);

    const pdfJob = await finished(pdf.body.job_id);
    expect(pdfJob, JSON.stringify(pdfJob)).toMatchObject({ job_status: 'success' });
    const pdfFile = await download(pdfJob.file_url!);
    expect(pdfFile.type).toBe('application/pdf');
    expect(new TextDecoder().decode(pdfFile.bytes.slice(0, 5))).toBe('%PDF-');
    expect(pdfFile.disposition).toContain('Revenue by country (dark).pdf');

    // The URL is the token: a changed token is refused, and so is the file of another job.
    const tampered = new URL(pngJob.file_url!);
    tampered.searchParams.set('token', `${tampered.searchParams.get('token')!.slice(0, -3)}abc`);
    expect((await download(tampered.href)).status).toBe(401);
    const other = new URL(pngJob.file_url!);
    other.pathname = `/exports/${pdf.body.job_id}`;
    expect((await download(other.href)).status).toBe(401);
  }, 150_000);

  it('writes a report as CSV', async () => {
    const csv = await apiFetch(`/reports/${reportId}/export_csv`, { body: {}, headers: ACTION });
    expect(csv.status, csv.text).toBe(202);
    const job = await finished(csv.body.job_id);
    expect(job.job_status).toBe('success');
    const file = await download(job.file_url!);
    expect(file.type).toMatch(/^text\/csv/);
    const text = new TextDecoder('utf-8', { ignoreBOM: true }).decode(file.bytes);
    expect(text.startsWith('\uFEFF')).toBe(true);
    expect(text.split('\n').length).toBeGreaterThan(2);
  }, 60_000);
});

describe.skipIf(noChromium)('scheduled e-mails', () => {
  it('send_now delivers the mail with CSV, Excel, PDF and an inline PNG', async () => {
    const to = `exports-${Math.random().toString(36).slice(2, 10)}@example.com`;
    const created = await apiFetch('/dashboard_schedules', {
      body: {
        data: {
          type: 'dashboard_schedules',
          attributes: {
            name: 'Country revenue',
            emails: to,
            cc_emails: 'cc-exports@example.com',
            attach_as: 'csv,excel,pdf,inline_png',
            schedule: 'weekly;0;07:00',
            subject_text: 'Revenue this week',
            body_text: 'Good morning,\n\nhere are the numbers.',
          },
          relationships: { report: { data: { type: 'reports', id: reportId } } },
        },
      },
    });
    expect(created.status, created.text).toBe(201);
    const id = created.body.data.id;
    schedules.push(id);
    const before = created.body.data.attributes.next_send_at;

    const sent = await apiFetch(`/dashboard_schedules/${id}/send_now`, { method: 'POST', headers: ACTION });
    expect(sent.status, sent.text).toBe(200);
    expect(sent.body).toMatchObject({ status: 'sent', dashboard_schedule_id: id, recipients: 2 });
    expect(sent.body.attachments.map((a: any) => a.filename)).toEqual([
      'Revenue by country.xlsx',
      'Revenue by country.csv',
      'Revenue by country.pdf',
      'Revenue by country.png',
    ]);

    const inbox = getStack().mail.inbox;
    const list = (await (await fetch(`${inbox}/messages?to=${encodeURIComponent(to)}`)).json()) as { id: string }[];
    expect(list).toHaveLength(1);
    const m = (await (await fetch(`${inbox}/messages/${list[0]!.id}`)).json()) as {
      subject: string;
      text: string;
      html: string;
      attachments: { filename: string | null; content_type: string; disposition: string | null; content_id: string | null; size: number }[];
    };
    expect(m.subject).toBe('Revenue this week');
    expect(m.text).toContain('here are the numbers.');
    const byName = Object.fromEntries(m.attachments.map((a) => [a.filename, a]));
    expect(byName['Revenue by country.csv']?.content_type).toMatch(/^text\/csv/);
    expect(byName['Revenue by country.xlsx']?.content_type).toBe('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
    expect(byName['Revenue by country.pdf']).toMatchObject({ content_type: 'application/pdf', disposition: 'attachment' });
    const png = byName['Revenue by country.png']!;
    expect(png).toMatchObject({ content_type: 'image/png', disposition: 'inline' });
    expect(m.html).toContain(`cid:${png.content_id}`);
    // The raw message carries the real file bytes (base64 of "%PDF-" and of the PNG signature).
    const raw = await (await fetch(`${inbox}/messages/${list[0]!.id}/raw`)).text();
    expect(raw).toContain(Buffer.from('%PDF-').toString('base64').slice(0, 6));
    expect(raw).toContain('iVBORw0KGgo');

    const after = await apiFetch(`/dashboard_schedules/${id}`);
    expect(Date.parse(after.body.data.attributes.last_sent_at)).toBeGreaterThan(Date.now() - 120_000);
    // send_now leaves the regular cadence alone.
    expect(after.body.data.attributes.next_send_at).toBe(before);
  }, 150_000);
});
