/**
 * Delivering a schedule: the e-mail with subject_text/body_text to emails/cc/bcc and the attachments
 * attach_as asks for — excel (one workbook, a sheet per report), csv (a CSV, or for a dashboard a zip
 * with a CSV per report), png/dark_png/pdf/dark_pdf (drawn by the renderer, export-jobs/renderer.ts)
 * and inline_png/dark_inline_png (a PNG shown in the HTML body through its Content-ID). A report
 * relationship wins over the dashboard. The data is read as the dashboard's viewer without a user
 * (built-in user snippets NULL) with the schedule's parameters; images use its page_width.
 * Used by send_now and by the job queue (src/jobs, a due send the cron enqueued); records last_sent_at,
 * or last_error_message when nothing was sent. A queued send passes its idempotency key: the send is
 * recorded under it first (jobs/sends.ts), so a message delivered twice never sends a second e-mail.
 */
import { and, asc, eq } from 'drizzle-orm';
import { ApiError, resolveRelativeParameters } from '@cairn/core';
import { collect, fileNamer, sheetNamer, xlsxStream, zipStream, type XlsxSheet, type ZipEntry } from '@cairn/core/export/index';
import { dashboardSchedules, dashboards, organizations, reports } from '@cairn/db';
import type { Env } from '../../env.ts';
import { createMailer, type Attachment } from '../../mail/index.ts';
import { backgroundContext, viewerPrincipal } from '../export-jobs/background.ts';
import { CSV_EXPORT_ROW_LIMIT, chunksOf, csvOf, runReport, safeFileName, type RanReport } from '../export-jobs/produce.ts';
import { renderFile } from '../export-jobs/renderer.ts';
import { REPORT_PAGE_WIDTH } from '../export-jobs/create.ts';
import { mergeParameters, statusObject, statusRequest } from '../../engine/dashboard-run.ts';
import type { ServiceContext } from '../../lib/context.ts';
import { checkParameterNamesProblems } from '../../engine/parameter-names.ts';
import { dashboardFilterDefinitions } from '../filters/definitions.ts';
import { zoneOf } from './serialize.ts';
import { claimSend, confirmSend, releaseSend } from '../../jobs/sends.ts';

type ScheduleRow = typeof dashboardSchedules.$inferSelect;
type ReportRow = typeof reports.$inferSelect;

export interface Delivery {
  sent: boolean;
  sent_at: string | null;
  recipients: number;
  attachments: { filename: string; content_type: string; size: number; inline: boolean }[];
  /** Reports whose data could not be attached (their query failed); the mail says so too. */
  problems: string[];
  error_message: string | null;
  /** Nothing was sent for a reason that may pass (renderer, mail server, database): the queue tries again. */
  retryable: boolean;
  /** A queued send found its key already sent: this delivery sent nothing and that is right. */
  duplicate?: boolean;
}

export interface DeliverOptions {
  /** The idempotency key of a queued send (jobs/messages.ts scheduleSendKey). */
  sendKey?: string;
}

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const list = (s: string | null) =>
  (s ?? '')
    .split(',')
    .map((a) => a.trim())
    .filter(Boolean);

/** Builds and sends the e-mail of one schedule now; never throws for a delivery problem (see Delivery). */
export async function deliverSchedule(
  env: Env,
  schedule: ScheduleRow,
  waitUntil: (p: Promise<unknown>) => void,
  now = new Date(),
  opts: DeliverOptions = {},
): Promise<Delivery> {
  const bg = backgroundContext(env, viewerPrincipal(schedule.organization_id, schedule.dashboard_id ?? '', `schedule:${schedule.id}`), waitUntil);
  const { ctx } = bg;
  const out: Delivery = { sent: false, sent_at: null, recipients: 0, attachments: [], problems: [], error_message: null, retryable: false };
  let claimed = false;
  try {
    const org = schedule.organization_id;
    const [dashboard] = await ctx.db
      .select()
      .from(dashboards)
      .where(and(eq(dashboards.id, schedule.dashboard_id ?? ''), eq(dashboards.organization_id, org)))
      .limit(1);
    if (!dashboard) throw new ApiError('not_found', "The schedule's dashboard no longer exists.");
    let shown: ReportRow[] = await ctx.db
      .select()
      .from(reports)
      .where(and(eq(reports.dashboard_id, dashboard.id), eq(reports.organization_id, org)))
      .orderBy(asc(reports.created_at), asc(reports.id));
    const single = schedule.report_id ? (shown.find((r) => r.id === schedule.report_id) ?? null) : null;
    if (schedule.report_id && !single) throw new ApiError('not_found', "The schedule's report no longer exists.");
    if (single) shown = [single];
    const title = single?.name ?? dashboard.name;
    const given = schedule.parameters ?? {};
    // Stored parameters naming a filter the dashboard no longer has would send data that filter used to
    // narrow (a customer's schedule sending every customer's rows): nothing is sent until they are edited.
    const stale = await checkParameterNamesProblems(ctx, {
      dashboardId: dashboard.id,
      parameters: given,
      pointer: '/data/attributes/parameters',
      allReports: true,
    });
    if (stale.length) {
      throw new ApiError(
        'invalid_state',
        `The schedule's parameters do not fit its dashboard any more, so nothing was sent: ${stale.map((p) => p.message).join(' ')} Edit the schedule's parameters.`,
      );
    }
    const parameters = await sendParameters(ctx, schedule, dashboard, now);
    const formats = list(schedule.attach_as);
    const attachments: Attachment[] = [];
    const sql = ctx.direct().sql;

    // Data attachments: each report is run once, whatever number of formats needs it.
    const needsData = formats.includes('excel') || formats.includes('csv');
    const ran = new Map<string, RanReport>();
    if (needsData) {
      for (const r of shown) {
        try {
          ran.set(r.id, await runReport(ctx, r, dashboard, parameters));
        } catch (err) {
          out.problems.push(`${r.name}: ${err instanceof Error ? err.message : String(err)}`);
        }
      }
    }
    const withData = shown.filter((r) => ran.has(r.id));
    if (formats.includes('excel') && withData.length) {
      const name = sheetNamer();
      const sheets: XlsxSheet[] = withData.map((r) => ({
        name: name(r.name),
        fields: ran.get(r.id)!.fields,
        chunks: chunksOf(sql, ran.get(r.id)!.executionId, CSV_EXPORT_ROW_LIMIT, ran.get(r.id)!.bucket),
      }));
      attachments.push({ filename: `${safeFileName(title, 'export')}.xlsx`, content: await collect(xlsxStream(sheets)) });
    }
    if (formats.includes('csv') && withData.length) {
      if (single) {
        attachments.push({
          filename: `${safeFileName(single.name, 'report')}.csv`,
          content: await collect(csvOf(sql, ran.get(single.id)!, undefined, CSV_EXPORT_ROW_LIMIT)),
          contentType: 'text/csv; charset=utf-8',
        });
      } else {
        const name = fileNamer('.csv');
        const entries: ZipEntry[] = withData.map(
          (r) => ({ name: name(r.name), data: csvOf(sql, ran.get(r.id)!, undefined, CSV_EXPORT_ROW_LIMIT) }) as ZipEntry,
        );
        attachments.push({ filename: `${safeFileName(dashboard.name, 'dashboard')}.zip`, content: await collect(zipStream(entries)) });
      }
    }

    // Drawn attachments, in the order attach_as lists them — of data that is current: the reports whose
    // data is older than their refresh rate run first (the print view then shows their new results).
    if (formats.some((f) => /^(dark_)?(inline_png|png|pdf)$/.test(f))) await freshen(ctx, dashboard.id, dashboard.default_parameters, shown, parameters);
    const width = schedule.page_width ?? (single ? (single.default_page_width ?? REPORT_PAGE_WIDTH) : dashboard.default_page_width);
    const inline: { cid: string; alt: string }[] = [];
    for (const f of formats) {
      const m = /^(dark_)?(inline_png|png|pdf)$/.exec(f);
      if (!m) continue;
      const mode = m[1] ? 'dark' : 'light';
      const format = m[2] === 'pdf' ? 'pdf' : 'png';
      const file = await renderFile(env, {
        organizationId: org,
        dashboardId: dashboard.id,
        reportId: single?.id ?? null,
        parameters,
        mode,
        width,
        height: single?.default_page_height ?? null,
        format,
      });
      const base = `${safeFileName(title, 'export')}${mode === 'dark' ? ' (dark)' : ''}`;
      if (m[2] === 'inline_png') {
        const cid = `${f}.${schedule.id}@cairn`;
        inline.push({ cid, alt: `${title}${mode === 'dark' ? ' (dark)' : ''}` });
        attachments.push({ filename: `${base}.png`, content: file.bytes, contentType: 'image/png', contentId: cid });
      } else {
        attachments.push({ filename: `${base}.${format}`, content: file.bytes, contentType: file.contentType });
      }
    }

    const link = env.APP_URL ? `${env.APP_URL.replace(/\/+$/, '')}/app/dashboards/${encodeURIComponent(dashboard.id)}` : null;
    const intro =
      schedule.body_text?.trim() ||
      `Here is ${single ? 'the report' : 'the dashboard'} "${title}" as of ${now.toISOString().slice(0, 16).replace('T', ' ')} UTC.`;
    const notes = out.problems.length ? ['', 'Not attached because the query failed:', ...out.problems.map((p) => `- ${p}`)] : [];
    const text = [intro, ...notes, ...(link ? ['', `Open it in Cairn: ${link}`] : []), '', `— sent by the schedule "${schedule.name}"`].join('\n');
    const html = `<!doctype html><html><body style="font-family: system-ui, sans-serif; color: #1f2933;">${intro
      .split(/\n{2,}/)
      .map((p) => `<p>${escapeHtml(p).replace(/\n/g, '<br>')}</p>`)
      .join('')}${inline.map((i) => `<p><img src="cid:${escapeHtml(i.cid)}" alt="${escapeHtml(i.alt)}" style="max-width: 100%;"></p>`).join('')}${
      notes.length ? `<p>Not attached because the query failed:</p><ul>${out.problems.map((p) => `<li>${escapeHtml(p)}</li>`).join('')}</ul>` : ''
    }${link ? `<p><a href="${escapeHtml(link)}">Open it in Cairn</a></p>` : ''}<p style="color: #616e7c; font-size: 12px;">Sent by the schedule “${escapeHtml(schedule.name)}”.</p></body></html>`;

    const to = list(schedule.emails);
    const cc = list(schedule.cc_emails);
    const bcc = list(schedule.bcc_emails);
    if (opts.sendKey) {
      const claim = await claimSend(ctx.db, org, opts.sendKey);
      if (!claim.ok && claim.state === 'sent') return { ...out, sent: true, duplicate: true };
      if (!claim.ok)
        throw new ApiError(
          'invalid_state',
          'An earlier attempt at this send stopped while the e-mail was going out; it may have been delivered, so it was not sent again.',
        );
      claimed = true;
    }
    const result = await createMailer(env).sendMail({
      to,
      cc,
      bcc,
      subject: schedule.subject_text?.trim() || schedule.name,
      text: `${text}\n`,
      html,
      attachments,
    });
    if (opts.sendKey) {
      // If recording fails the key stays 'sending', and a retry sends nothing: never a second copy.
      claimed = false;
      if (result.sent) await confirmSend(ctx.db, opts.sendKey);
      else await releaseSend(ctx.db, opts.sendKey);
    }
    out.attachments = attachments.map((a) => ({
      filename: a.filename,
      content_type: a.contentType ?? '',
      size: typeof a.content === 'string' ? a.content.length : a.content.byteLength,
      inline: Boolean(a.contentId),
    }));
    if (!result.sent) throw new Error(result.reason);
    out.sent = true;
    out.sent_at = now.toISOString();
    out.recipients = result.accepted.length;
    await ctx.db
      .update(dashboardSchedules)
      .set({ last_sent_at: now, last_error_message: null })
      .where(and(eq(dashboardSchedules.id, schedule.id), eq(dashboardSchedules.organization_id, org)));
  } catch (err) {
    out.error_message = (err instanceof Error ? err.message : String(err)).slice(0, 2000);
    // A refusal of the schedule itself (its dashboard is gone, its parameters are stale) stays until it is edited.
    out.retryable = !(err instanceof ApiError);
    if (claimed && opts.sendKey) await releaseSend(ctx.db, opts.sendKey).catch(() => {});
    await ctx.db
      .update(dashboardSchedules)
      .set({ last_error_message: out.error_message })
      .where(and(eq(dashboardSchedules.id, schedule.id), eq(dashboardSchedules.organization_id, schedule.organization_id)))
      .catch((e) => console.error(`schedule ${schedule.id}: recording the error failed`, e));
  } finally {
    await bg.close();
  }
  return out;
}

/**
 * The parameters a send runs with: the schedule's over the dashboard's default_parameters, with relative
 * ranges ("last_7_days" in a date range filter or the built-in timerange) resolved now, in the
 * schedule's time zone — so a Monday 08:00 Berlin send of "yesterday" is Sunday in Berlin. Every
 * attachment (data and drawn) uses these fixed values.
 */
export async function sendParameters(
  ctx: ServiceContext,
  schedule: Pick<ScheduleRow, 'parameters' | 'time_zone'>,
  dashboard: Pick<typeof dashboards.$inferSelect, 'id' | 'default_parameters'>,
  now: Date,
) {
  const [org] = await ctx.db.select({ tz: organizations.time_zone }).from(organizations).where(eq(organizations.id, ctx.principal.organizationId)).limit(1);
  const defs = await dashboardFilterDefinitions(ctx, dashboard.id);
  const ranges = new Set(defs.filter((d) => d.control_type === 'date_range' || d.control_type === 'date_time_range').map((d) => d.variable_name));
  const merged = mergeParameters(dashboard.default_parameters, schedule.parameters ?? {});
  return resolveRelativeParameters(merged, ranges, now.getTime(), zoneOf(schedule, org?.tz ?? 'UTC'));
}

/** How long a send waits at most for the reports it re-runs before it draws what there is. */
const FRESHEN_LIMIT_MS = 120_000;

/**
 * Runs the shown reports whose data for these parameters is missing or older than their refresh rate
 * (data_refresh_rate and anchor, as the dashboard status judges it), through the same status object
 * the print view polls, and waits until none of them runs any more (at most FRESHEN_LIMIT_MS).
 */
async function freshen(
  ctx: ServiceContext,
  dashboardId: string,
  defaults: Parameters<typeof mergeParameters>[0],
  shown: ReportRow[],
  given: Parameters<typeof mergeParameters>[1],
): Promise<void> {
  const parameters = mergeParameters(defaults, given);
  const stub = await statusObject(ctx.env, dashboardId, parameters);
  const req = await statusRequest(ctx, dashboardId, parameters, false);
  const until = Date.now() + FRESHEN_LIMIT_MS;
  let pending = shown.map((r) => r.id);
  while (pending.length && Date.now() < until) {
    const states = await Promise.all(pending.map(async (id) => ({ id, state: await stub.source(req, id, { waitMs: Math.max(0, until - Date.now()) }) })));
    pending = states.filter((s) => s.state?.running).map((s) => s.id);
  }
}
