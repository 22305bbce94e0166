import type { userGroups } from '@cairn/db';
import { resource } from '../../lib/jsonapi.ts';

export function serializeUserGroup(baseUrl: string, g: typeof userGroups.$inferSelect) {
  return resource(baseUrl, 'user_groups', g.id, {
    name: g.name,
    description: g.description,
    built_in_behavior: g.built_in_behavior,
    created_at: g.created_at.toISOString(),
    updated_at: g.updated_at.toISOString(),
  });
}
