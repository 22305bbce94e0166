import { audit as auditWith, type AuditResourceType } from './audit.ts';
import type { ServiceContext, Tx } from './context.ts';

/** Records the write's audit row on the transaction (lib/audit.ts): it commits with the change or not at all. */
type TxAudit = (action: string, resourceType: AuditResourceType, resourceId: string | null, details?: Record<string, unknown>) => Promise<void>;

/**
 * Runs one write in one transaction, with its audit row: `work` gets the transaction and an `audit`
 * that writes on it, so a write that fails leaves no audit row and one that commits leaves its row.
 *
 * Transactions need one connection for several statements, so they run on the request's direct
 * postgres.js client (lib/db.ts `direct()`, opened on first use) on both access paths: through
 * Hyperdrive, and with DB_ACCESS=pool too (the DbPool objects answer single statements and batches,
 * never a transaction). Statements of the same write sent through `ctx.db` would run outside it.
 */
export function withTransaction<T>(
  ctx: Pick<ServiceContext, 'direct' | 'principal' | 'requestId'>,
  work: (w: { tx: Tx; audit: TxAudit }) => Promise<T>,
): Promise<T> {
  const { principal, requestId } = ctx;
  return ctx.direct().db.transaction((tx) => {
    const audit: TxAudit = (action, type, id, details) => auditWith({ db: tx, principal, requestId }, action, type, id, details);
    return work({ tx, audit });
  });
}
