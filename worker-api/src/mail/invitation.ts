/**
 * The invitation e-mail: who invites, to which organization, in which role, and the one-time link
 * `${APP_URL}/app/invitation/${token}` where the invitee accepts and chooses a password (that page is
 * the web app's). The token exists only in this message: the database keeps its hash.
 */
import { and, eq } from 'drizzle-orm';
import { organizations, users } from '@cairn/db';
import type { ServiceContext } from '../lib/context.ts';
import { createMailer, mailUnavailable, type MailResult } from './mailer.ts';
import type { MailMessage } from './message.ts';

export interface InvitationContent {
  to: string;
  firstname?: string;
  /** "Ada Lovelace" or an address; null when an API key invited (no person to name). */
  inviter: string | null;
  organization: string;
  role: 'viewer' | 'analyst' | 'admin';
  link: string;
}

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

const ROLE_WORDS: Record<InvitationContent['role'], string> = {
  viewer: 'a viewer (you can see the dashboards shared with you)',
  analyst: 'an analyst (you can build reports and dashboards)',
  admin: 'an admin (you can administer the organization)',
};

/** The invitation as a message (plain text and HTML saying the same). */
export function invitationMessage(c: InvitationContent): MailMessage {
  const who = c.inviter ?? 'An administrator';
  const greeting = c.firstname ? `Hello ${c.firstname},` : 'Hello,';
  const lead = `${who} invited you to join ${c.organization} on Cairn as ${ROLE_WORDS[c.role]}.`;
  const act = 'Accept the invitation and choose your password:';
  const ignore =
    'If you did not expect this invitation, ignore this message: nothing happens until the link is used. The link works once; a new invitation replaces it.';
  const text = `${greeting}\n\n${lead}\n\n${act}\n${c.link}\n\n${ignore}\n`;
  const h = escapeHtml;
  const html = `<!doctype html>
<html><body style="font-family: system-ui, sans-serif; line-height: 1.5; color: #1f2933;">
<p>${h(greeting)}</p>
<p>${h(lead)}</p>
<p><a href="${h(c.link)}" style="display: inline-block; padding: .6em 1.2em; background: #2f6f9f; color: #fff; text-decoration: none; border-radius: 4px;">Accept the invitation</a></p>
<p style="font-size: .9em;">${h(act)}<br><a href="${h(c.link)}">${h(c.link)}</a></p>
<p style="font-size: .9em; color: #52606d;">${h(ignore)}</p>
</body></html>
`;
  const subject = c.inviter ? `${c.inviter} invited you to ${c.organization} on Cairn` : `You are invited to ${c.organization} on Cairn`;
  return { to: c.to, subject, text, html };
}

/** `${APP_URL}/app/invitation/${token}`, or null without APP_URL. */
export function invitationLink(appUrl: string | undefined, token: string): string | null {
  const base = appUrl?.trim().replace(/\/+$/, '');
  return base ? `${base}/app/invitation/${encodeURIComponent(token)}` : null;
}

/** The signed-in caller as a name ("Ada Lovelace", else the address); null for API keys. */
export async function inviterName(ctx: ServiceContext): Promise<string | null> {
  if (ctx.principal.kind !== 'user') return null;
  const [u] = await ctx.db
    .select({ firstname: users.firstname, lastname: users.lastname, email: users.email })
    .from(users)
    .where(and(eq(users.id, ctx.principal.userId), eq(users.organization_id, ctx.principal.organizationId)))
    .limit(1);
  if (!u) return null;
  return `${u.firstname} ${u.lastname}`.trim() || u.email;
}

/** Sends the invitation for `token`; the answer says whether it left (never throws for a mail problem). */
export async function sendInvitationMail(
  ctx: ServiceContext,
  invitee: { email: string; firstname?: string | null; role: InvitationContent['role'] },
  token: string,
): Promise<MailResult> {
  const unavailable = mailUnavailable(ctx.env);
  if (unavailable) return unavailable;
  const link = invitationLink(ctx.env.APP_URL, token);
  if (!link) return { sent: false, reason: 'APP_URL is not set, so there is no link to send' };
  const [org] = await ctx.db.select({ name: organizations.name }).from(organizations).where(eq(organizations.id, ctx.principal.organizationId)).limit(1);
  const message = invitationMessage({
    to: invitee.email,
    firstname: invitee.firstname || undefined,
    inviter: await inviterName(ctx),
    organization: org?.name ?? 'your organization',
    role: invitee.role,
    link,
  });
  return createMailer(ctx.env).sendMail(message);
}
