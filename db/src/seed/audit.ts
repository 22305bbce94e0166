import { auditLog } from '../schema/index.ts';
import type { Db } from '../client.ts';

/** A database handle or an open drizzle transaction on it. */
export type Executor = Db | Parameters<Parameters<Db['transaction']>[0]>[0];

/** Who performs an operator write: the `cairn` CLI or the system itself (dev seeding, migrations). */
export interface Actor {
  type: 'cli' | 'system' | 'user';
  id?: string | null;
}
export const SYSTEM_ACTOR: Actor = { type: 'system', id: null };

/** Records one write in the audit log, in the caller's transaction. */
export async function audit(
  ex: Executor,
  actor: Actor,
  entry: { organizationId: string; action: string; resourceType: string; resourceId: string | null; details?: Record<string, unknown> },
): Promise<void> {
  await ex.insert(auditLog).values({
    organization_id: entry.organizationId,
    actor_type: actor.type,
    actor_id: actor.id ?? null,
    action: entry.action,
    resource_type: entry.resourceType,
    resource_id: entry.resourceId,
    details: entry.details ?? null,
  });
}

/** The Postgres error code behind a (possibly drizzle-wrapped) error, e.g. 23505 for unique violations. */
export function pgErrorCode(err: unknown): string | undefined {
  for (let e: unknown = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return code;
  }
  return undefined;
}
