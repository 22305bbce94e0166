/**
 * The password reset e-mail: the one-time link `${APP_URL}/app/reset-password/${token}` where the user
 * chooses a new password (that page is the web app's). The token exists only in this message: the
 * database keeps the hash of its secret part.
 */
import type { MailMessage } from './message.ts';

export interface PasswordResetContent {
  to: string;
  firstname?: string;
  organization: string;
  link: string;
  /** How long the link works, in minutes. */
  minutes: number;
}

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

/** The reset message (plain text and HTML saying the same). */
export function passwordResetMessage(c: PasswordResetContent): MailMessage {
  const greeting = c.firstname ? `Hello ${c.firstname},` : 'Hello,';
  const lead = `Someone asked to reset the password of your Cairn account at ${c.organization}.`;
  const act = `Choose a new password here (the link works once, for ${c.minutes} minutes):`;
  const ignore = 'If you did not ask for this, ignore this message: your password stays as it is.';
  const text = `${greeting}\n\n${lead}\n\n${act}\n${c.link}\n\n${ignore}\n`;
  const h = escapeHtml;
  const html = `<!doctype html>
<html><body style="font-family: system-ui, sans-serif; line-height: 1.5; color: #1f2933;">
<p>${h(greeting)}</p>
<p>${h(lead)}</p>
<p><a href="${h(c.link)}" style="display: inline-block; padding: .6em 1.2em; background: #2f6f9f; color: #fff; text-decoration: none; border-radius: 4px;">Choose a new password</a></p>
<p style="font-size: .9em;">${h(act)}<br><a href="${h(c.link)}">${h(c.link)}</a></p>
<p style="font-size: .9em; color: #52606d;">${h(ignore)}</p>
</body></html>
`;
  return { to: c.to, subject: 'Reset your Cairn password', text, html };
}

/** `${APP_URL}/app/reset-password/${token}`, or null without APP_URL. */
export function passwordResetLink(appUrl: string | undefined, token: string): string | null {
  const base = appUrl?.trim().replace(/\/+$/, '');
  return base ? `${base}/app/reset-password/${encodeURIComponent(token)}` : null;
}
