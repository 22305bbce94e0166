import { z } from '@hono/zod-openapi';
import type { ResourceBodySpec } from '../../lib/resource-body.ts';
import { resourceObjectSchema } from '../../lib/openapi.ts';

const role = z.enum(['viewer', 'analyst', 'admin']);

/**
 * PATCH /users/{id}: the role and the user's groups (through the `user_groups` relationship). The spec
 * accepts analyst or viewer; an admin signed in to the app may also make someone an admin (API keys
 * never can). Everything else about a user is theirs to change in their personal settings.
 */
export const userBody = {
  type: 'users',
  attributes: z.object({ role }),
  readOnly: [
    'firstname',
    'lastname',
    'email',
    'otp_app_enabled',
    'otp_phone_enabled',
    'created_at',
    'deactivated_at',
    'invitation_created_at',
    'invitation_accepted_at',
  ],
  relationships: { user_groups: { type: 'user_groups', many: true } },
} satisfies ResourceBodySpec<{ role: typeof role }>;

export const User = resourceObjectSchema(
  'User',
  'users',
  z.object({
    firstname: z.string(),
    lastname: z.string(),
    email: z.string(),
    role,
    status: z.enum(['invited', 'active', 'deactivated']).openapi({ description: 'Derived: invited until the invitation is accepted.' }),
    otp_app_enabled: z.boolean().optional().openapi({ description: 'Only with Manage Users.' }),
    otp_phone_enabled: z.boolean().optional().openapi({ description: 'Only with Manage Users.' }),
    created_at: z.string(),
    deactivated_at: z.string().nullable(),
    invitation_created_at: z.string().nullable(),
    invitation_accepted_at: z.string().nullable(),
  }),
  ['user_groups', 'invited_by_user'],
);

export const inviteBody = z
  .object({
    email: z.string().trim().toLowerCase().email().max(254),
    firstname: z.string().trim().max(100).optional(),
    lastname: z.string().trim().max(100).optional(),
    role: role.default('viewer'),
    user_group_ids: z
      .array(z.string().min(1).max(64))
      .max(100)
      .default([])
      .openapi({ description: 'Group ids, or the built-in aliases all_users / all_analysts (members by rule, so they add nothing).' }),
  })
  .strict()
  .openapi('UserInvitation');

export const activateBody = z
  .object({ role: z.enum(['viewer', 'analyst']).optional().openapi({ description: 'Default: the previous role, or viewer for a former admin.' }) })
  .strict()
  .openapi('UserActivation');

export const USER_INCLUDES = ['user_groups', 'invited_by_user'] as const;
