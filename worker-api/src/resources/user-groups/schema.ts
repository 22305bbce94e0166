import { z } from '@hono/zod-openapi';
import type { ResourceBodySpec } from '../../lib/resource-body.ts';
import { resourceObjectSchema } from '../../lib/openapi.ts';

const name = z.string().trim().min(1).max(200);
const description = z.string().max(2000).nullable();

export const userGroupBody = {
  type: 'user_groups',
  attributes: z.object({ name, description }),
  required: ['name'],
  readOnly: ['built_in_behavior', 'created_at', 'updated_at'],
  relationships: {
    users: { type: 'users', many: true },
  },
} satisfies ResourceBodySpec<{ name: typeof name; description: typeof description }>;

export const UserGroup = resourceObjectSchema(
  'UserGroup',
  'user_groups',
  z.object({
    name: z.string(),
    description: z.string().nullable(),
    built_in_behavior: z
      .enum(['all_users', 'all_analysts'])
      .nullable()
      .openapi({ description: 'Set on the two built-in groups, whose members follow a rule; usable in place of the id.' }),
    created_at: z.string(),
    updated_at: z.string(),
  }),
  ['users', 'dashboards'],
);

export const USER_GROUP_INCLUDES = ['users', 'dashboards'] as const;
