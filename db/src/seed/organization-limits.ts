/**
 * The operator's limits of an organization (`npm run cairn -- org limits`): analyst seats and
 * datasources. NULL means no limit, which is how every organization starts on a self-hosted server.
 */
import { eq } from 'drizzle-orm';
import { ApiError } from '@cairn/core';
import { organizations } from '../schema/index.ts';
import type { Db } from '../client.ts';
import { audit, SYSTEM_ACTOR, type Actor } from './audit.ts';

export interface OrganizationLimits {
  organization_id: string;
  name: string;
  /** null: no limit. */
  analyst_seats: number | null;
  /** null: no limit (the sample datasource never counts). */
  datasources: number | null;
}

/** A limit given: a whole number 0…1,000,000, or null to remove it. */
function checkLimit(value: number | null | undefined, what: string): void {
  if (value === undefined || value === null) return;
  if (!Number.isInteger(value) || value < 0 || value > 1_000_000) {
    throw new ApiError('invalid_attribute', `${what} must be a whole number from 0 to 1000000 (or none).`);
  }
}

/**
 * Reads, and with `analystSeats` / `datasources` given (a number, or null for no limit) sets, the
 * organization's limits; a change is audited. Existing users and datasources are kept when a limit is
 * lower than what is in use: only new analysts and new datasources are refused.
 */
export async function setOrganizationLimits(
  db: Db,
  input: { organizationId: string; analystSeats?: number | null; datasources?: number | null },
  opts: { actor?: Actor } = {},
): Promise<OrganizationLimits> {
  checkLimit(input.analystSeats, 'The number of analyst seats');
  checkLimit(input.datasources, 'The number of datasources');
  const actor = opts.actor ?? SYSTEM_ACTOR;
  return db.transaction(async (tx) => {
    const [before] = await tx.select().from(organizations).where(eq(organizations.id, input.organizationId)).for('update');
    if (!before) throw new ApiError('not_found', `No organization with id ${input.organizationId}.`);
    const change: Partial<typeof organizations.$inferInsert> = {};
    if (input.analystSeats !== undefined) change.plan_analyst_seats = input.analystSeats;
    if (input.datasources !== undefined) change.plan_datasources = input.datasources;
    let row = before;
    if (Object.keys(change).length) {
      [row] = (await tx.update(organizations).set(change).where(eq(organizations.id, before.id)).returning()) as [typeof before];
      await audit(tx, actor, {
        organizationId: before.id,
        action: 'set_limits',
        resourceType: 'organization',
        resourceId: before.id,
        details: { analyst_seats: row.plan_analyst_seats, datasources: row.plan_datasources },
      });
    }
    return { organization_id: row.id, name: row.name, analyst_seats: row.plan_analyst_seats, datasources: row.plan_datasources };
  });
}
