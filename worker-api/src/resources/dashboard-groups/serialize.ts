import type { dashboardGroups } from '@cairn/db';
import { resource, toMany } from '../../lib/jsonapi.ts';

export function serializeDashboardGroup(baseUrl: string, g: typeof dashboardGroups.$inferSelect, dashboardIds: string[]) {
  return resource(
    baseUrl,
    'dashboard_groups',
    g.id,
    {
      name: g.name,
      description: g.description,
      personal: g.personal_user_id !== null,
      created_at: g.created_at.toISOString(),
      updated_at: g.updated_at.toISOString(),
    },
    { dashboards: toMany('dashboards', dashboardIds) },
  );
}
