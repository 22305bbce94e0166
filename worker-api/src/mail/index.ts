/**
 * Outgoing mail. `createMailer(env).sendMail({to, cc, bcc, subject, text, html, attachments})` answers
 * `{sent: true, …}` or `{sent: false, reason}` (no SMTP_HOST, a refused recipient, a timeout…); it never
 * throws for a mail problem. Invitations: `sendInvitationMail`. Schedules and alerts reuse `sendMail`.
 */
export { createMailer, mailMeta, type MailResult } from './mailer.ts';
export type { Attachment, MailMessage } from './message.ts';
export { sendInvitationMail } from './invitation.ts';
