/**
 * What the share page says after **Save sharing** (pure; unit-testable): with notify_new_users the API's
 * answer carries `meta.notify_new_users` — how many people newly got access, how many e-mails left and
 * which did not, with the reason (for example no mail server configured).
 */
export interface ShareNotice {
  new_users: number;
  sent: number;
  not_sent: { user_id: string; reason: string }[];
}

/** The notice from the API's answer body, or null when it has none (nobody was to be notified). */
export function shareNoticeOf(body: unknown): ShareNotice | null {
  const n = (body as { meta?: { notify_new_users?: Partial<ShareNotice> } } | null)?.meta?.notify_new_users;
  if (!n || typeof n.new_users !== 'number' || typeof n.sent !== 'number') return null;
  return { new_users: n.new_users, sent: n.sent, not_sent: Array.isArray(n.not_sent) ? n.not_sent : [] };
}

const people = (n: number) => (n === 1 ? '1 person' : `${n} people`);

/** "Sharing saved." plus, when people were to be notified, what became of the e-mails. */
export function shareSavedMessage(notice: ShareNotice | null): string {
  if (!notice) return 'Sharing saved.';
  if (notice.new_users === 0) return 'Sharing saved. Nobody newly got access, so no e-mail was sent.';
  const parts = [`Sharing saved. ${people(notice.new_users)} newly got access; ${notice.sent === 1 ? '1 e-mail was' : `${notice.sent} e-mails were`} sent.`];
  if (notice.not_sent.length) {
    const reasons = [...new Set(notice.not_sent.map((x) => x.reason).filter(Boolean))];
    parts.push(`${notice.not_sent.length} could not be sent${reasons.length ? `: ${reasons.join('; ')}` : ''}.`);
  }
  return parts.join(' ');
}
