/**
 * Idempotent sends (D54): a queue delivers a message at least once, so a job that e-mails records the
 * send under its key first. `claimSend` answers whether this delivery may send: false when the key is
 * already sent, or in flight (a delivery that died while sending: whether its mail left is unknown, and
 * a second copy is worse than a missing one — the schedule says so in last_error_message).
 */
import { and, eq } from 'drizzle-orm';
import { jobSends } from '@cairn/db';
import type { PooledDb } from '../lib/db.ts';

export type Claim = { ok: true } | { ok: false; state: 'sending' | 'sent' };

export async function claimSend(db: PooledDb, organizationId: string, key: string): Promise<Claim> {
  const made = await db.insert(jobSends).values({ key, organization_id: organizationId }).onConflictDoNothing().returning({ key: jobSends.key });
  if (made.length) return { ok: true };
  const [row] = await db.select({ state: jobSends.send_state }).from(jobSends).where(eq(jobSends.key, key)).limit(1);
  // Deleted in between (released by a failed send): claim again once.
  if (!row)
    return (await db.insert(jobSends).values({ key, organization_id: organizationId }).onConflictDoNothing().returning({ key: jobSends.key })).length
      ? { ok: true }
      : { ok: false, state: 'sending' };
  return { ok: false, state: row.state };
}

/** The mail server accepted the message. */
export async function confirmSend(db: PooledDb, key: string): Promise<void> {
  await db.update(jobSends).set({ send_state: 'sent', sent_at: new Date() }).where(eq(jobSends.key, key));
}

/** The mail server refused it (nothing left): a retry may send. */
export async function releaseSend(db: PooledDb, key: string): Promise<void> {
  await db.delete(jobSends).where(and(eq(jobSends.key, key), eq(jobSends.send_state, 'sending')));
}
