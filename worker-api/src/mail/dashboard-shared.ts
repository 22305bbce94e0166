/**
 * The "a dashboard was shared with you" e-mail of `POST /dashboards/{id}/share` with
 * notify_new_users: who shared which dashboard, and the link `${APP_URL}/app/dashboards/${id}`.
 */
import type { ServiceContext } from '../lib/context.ts';
import { createMailer, mailUnavailable, type MailResult } from './mailer.ts';
import type { MailMessage } from './message.ts';

export interface SharedContent {
  to: string;
  firstname?: string;
  /** "Ada Lovelace" or an address; null when an API key shared (no person to name). */
  sharer: string | null;
  dashboard: string;
  organization: string;
  /** Null without APP_URL: the message then names the dashboard without a link. */
  link: string | null;
  /** The dashboard's thumbnail (PNG) to show in the message (share's include_thumbnail), if any. */
  thumbnail?: Uint8Array | null;
}

const THUMBNAIL_CID = 'dashboard-thumbnail@cairn';

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

/** The message (plain text and HTML saying the same). */
export function dashboardSharedMessage(c: SharedContent): MailMessage {
  const who = c.sharer ?? 'An administrator';
  const greeting = c.firstname ? `Hello ${c.firstname},` : 'Hello,';
  const lead = `${who} shared the dashboard "${c.dashboard}" with you in ${c.organization} on Cairn.`;
  const act = c.link ? 'Open it here:' : 'You find it among your dashboards when you sign in.';
  const text = `${greeting}\n\n${lead}\n\n${act}${c.link ? `\n${c.link}` : ''}\n`;
  const h = escapeHtml;
  const html = `<!doctype html>
<html><body style="font-family: system-ui, sans-serif; line-height: 1.5; color: #1f2933;">
<p>${h(greeting)}</p>
<p>${h(lead)}</p>
${
  c.link
    ? `<p><a href="${h(c.link)}" style="display: inline-block; padding: .6em 1.2em; background: #2f6f9f; color: #fff; text-decoration: none; border-radius: 4px;">Open the dashboard</a></p>
<p style="font-size: .9em;">${h(act)}<br><a href="${h(c.link)}">${h(c.link)}</a></p>`
    : `<p>${h(act)}</p>`
}
${c.thumbnail ? `<p><img src="cid:${THUMBNAIL_CID}" alt="${h(c.dashboard)}" width="480" style="max-width: 100%; border: 1px solid #d8dee4; border-radius: 4px;"></p>\n` : ''}</body></html>
`;
  const subject = `${c.sharer ?? 'Someone'} shared "${c.dashboard}" with you`;
  const attachments = c.thumbnail ? [{ filename: 'thumbnail.png', content: c.thumbnail, contentType: 'image/png', contentId: THUMBNAIL_CID }] : undefined;
  return { to: c.to, subject, text, html, ...(attachments ? { attachments } : {}) };
}

export function dashboardLink(appUrl: string | undefined, id: string): string | null {
  const base = appUrl?.trim().replace(/\/+$/, '');
  return base ? `${base}/app/dashboards/${encodeURIComponent(id)}` : null;
}

/** Sends one notice per recipient (a few at a time); never throws for a mail problem. */
export async function sendDashboardSharedMails(
  ctx: ServiceContext,
  recipients: { id: string; email: string; firstname: string | null }[],
  content: Omit<SharedContent, 'to' | 'firstname'>,
): Promise<{ user_id: string; result: MailResult }[]> {
  const unavailable = mailUnavailable(ctx.env);
  if (unavailable) return recipients.map((r) => ({ user_id: r.id, result: unavailable }));
  const mailer = createMailer(ctx.env);
  const out: { user_id: string; result: MailResult }[] = [];
  let next = 0;
  const worker = async () => {
    while (next < recipients.length) {
      const r = recipients[next++]!;
      out.push({ user_id: r.id, result: await mailer.sendMail(dashboardSharedMessage({ ...content, to: r.email, firstname: r.firstname || undefined })) });
    }
  };
  await Promise.all(Array.from({ length: Math.min(4, recipients.length) }, worker));
  return out;
}
