import type { userGroups } from '@cairn/db';
import { resource, toMany } from '../../lib/jsonapi.ts';

export function serializeUserGroup(baseUrl: string, g: typeof userGroups.$inferSelect, links?: { users: string[]; dashboards: string[] }) {
  return resource(
    baseUrl,
    'user_groups',
    g.id,
    {
      name: g.name,
      description: g.description,
      built_in_behavior: g.built_in_behavior,
      created_at: g.created_at.toISOString(),
      updated_at: g.updated_at.toISOString(),
    },
    links ? { users: toMany('users', links.users), dashboards: toMany('dashboards', links.dashboards) } : undefined,
  );
}
