import { and, eq, sql } from 'drizzle-orm';
import { ApiError, notFound } from '@cairn/core';
import { dashboards, type Db } from '@cairn/db';

type Tx = Pick<Db, 'execute' | 'select'>;

/**
 * Locks the dashboard row for the rest of the transaction (report writes on one dashboard are
 * serialized, and lock/unlock waits for them) and refuses changes while it is locked.
 */
export async function lockUnlockedDashboard(tx: Tx, organizationId: string, dashboardId: string, pointer?: string) {
  const [row] = await tx
    .select({ is_locked: dashboards.is_locked })
    .from(dashboards)
    .where(and(eq(dashboards.id, dashboardId), eq(dashboards.organization_id, organizationId)))
    .for('update');
  if (!row) throw notFound('dashboard', dashboardId);
  if (row.is_locked) {
    throw new ApiError(
      'invalid_state',
      `Dashboard "${dashboardId}" is locked; unlock it (DELETE /dashboards/${dashboardId}/lock) before changing its reports.`,
      {
        ...(pointer ? { source: { pointer } } : {}),
      },
    );
  }
}

/**
 * Adds a report's tile to the dashboard's layout in one statement: column 1 of the first free row,
 * i.e. directly below the lowest tile (row 1 on an empty dashboard).
 */
export async function appendTile(tx: Tx, organizationId: string, dashboardId: string, reportId: string, size: { width: number; height: number }) {
  await tx.execute(sql`update dashboards set
      layout = layout || jsonb_build_array(jsonb_build_object(
        'type', 'report', 'id', ${reportId}::text,
        'row', (select coalesce(max((t->>'row')::int + (t->>'height')::int), 1) from jsonb_array_elements(layout) t),
        'column', 1, 'width', ${size.width}::int, 'height', ${size.height}::int)),
      updated_at = now()
    where id = ${dashboardId} and organization_id = ${organizationId}`);
}

/** Removes a report's tile from the layout (the other tiles keep their places). */
export async function removeTile(tx: Tx, organizationId: string, dashboardId: string, reportId: string) {
  await tx.execute(sql`update dashboards set
      layout = coalesce((select jsonb_agg(t order by n) from jsonb_array_elements(layout) with ordinality as x(t, n)
                         where t->>'id' is distinct from ${reportId}::text), '[]'::jsonb),
      updated_at = now()
    where id = ${dashboardId} and organization_id = ${organizationId}`);
}
