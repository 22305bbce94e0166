/**
 * Pure helpers of the dashboard list's group management (components/groups, routes/app.dashboard-groups):
 * who may change which group, the order after a move, membership after ticking a box, and request bodies.
 */

export interface GroupSummary {
  id: string;
  name: string;
  description: string | null;
  personal: boolean;
  dashboardIds: string[];
}

/** Mirrors the API: shared groups need Manage Dashboards (admins, analysts); personal ones are their owner's. */
export function canEditGroup(group: Pick<GroupSummary, 'personal'>, canManage: boolean): boolean {
  return group.personal || canManage;
}

/** Whether the user may create a shared group, a personal one, or both. */
export function creatableKinds(canManage: boolean): ('shared' | 'personal')[] {
  return canManage ? ['shared', 'personal'] : ['personal'];
}

/** The ids in their new order after moving `id` one place up (-1) or down (+1); null when it cannot move. */
export function moveGroup(ids: readonly string[], id: string, direction: -1 | 1): string[] | null {
  const i = ids.indexOf(id);
  const j = i + direction;
  if (i < 0 || j < 0 || j >= ids.length) return null;
  const out = [...ids];
  [out[i], out[j]] = [out[j]!, out[i]!];
  return out;
}

/** A group's members after adding or removing one dashboard (added ones go last; order otherwise kept). */
export function toggleMember(members: readonly string[], dashboardId: string, on: boolean): string[] {
  const rest = members.filter((id) => id !== dashboardId);
  return on ? [...rest, dashboardId] : rest;
}

/** For one dashboard: each group whose membership must change to match the ticked boxes, with its new members. */
export function membershipChanges(
  groups: readonly Pick<GroupSummary, 'id' | 'dashboardIds'>[],
  dashboardId: string,
  ticked: ReadonlySet<string>,
): { id: string; dashboardIds: string[] }[] {
  return groups
    .filter((g) => g.dashboardIds.includes(dashboardId) !== ticked.has(g.id))
    .map((g) => ({ id: g.id, dashboardIds: toggleMember(g.dashboardIds, dashboardId, ticked.has(g.id)) }));
}

/** The JSON:API body of a create or an update; empty description → null (cleared). */
export function groupBody(
  fields: { name?: string; description?: string; personal?: boolean; dashboardIds?: string[] },
  id?: string,
): { data: Record<string, unknown> } {
  const attributes: Record<string, unknown> = {};
  if (fields.name !== undefined) attributes.name = fields.name;
  if (fields.description !== undefined) attributes.description = fields.description.trim() ? fields.description : null;
  if (fields.personal !== undefined && !id) attributes.personal = fields.personal;
  const data: Record<string, unknown> = { type: 'dashboard_groups', ...(id ? { id } : {}), attributes };
  if (fields.dashboardIds) {
    data.relationships = { dashboards: { data: fields.dashboardIds.map((d) => ({ type: 'dashboards', id: d })) } };
  }
  return { data };
}
