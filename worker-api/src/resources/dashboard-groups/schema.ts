import { z } from '@hono/zod-openapi';
import type { ResourceBodySpec } from '../../lib/resource-body.ts';
import { resourceObjectSchema } from '../../lib/openapi.ts';

const name = z.string().trim().min(1).max(200);

const personal = z.boolean();

/**
 * What clients may write; `dashboards` (ordered) is the group's membership. `personal` (set on create
 * only) makes the group the signed-in user's own: API keys cannot create or see such groups.
 */
export const dashboardGroupBody = {
  type: 'dashboard_groups',
  attributes: z.object({
    name,
    description: z.string().max(2000).nullable(),
    personal,
  }),
  required: ['name'],
  readOnly: ['created_at', 'updated_at'],
  createOnly: ['personal'],
  relationships: { dashboards: { type: 'dashboards', many: true } },
} satisfies ResourceBodySpec<{ name: typeof name; description: z.ZodNullable<z.ZodString>; personal: typeof personal }>;

export const DashboardGroup = resourceObjectSchema(
  'DashboardGroup',
  'dashboard_groups',
  z.object({
    name: z.string(),
    description: z.string().nullable(),
    personal: z.boolean().openapi({ description: "True for the signed-in user's own group, which only they see (never API keys)." }),
    created_at: z.string().openapi({ format: 'date-time' }),
    updated_at: z.string().openapi({ format: 'date-time' }),
  }),
  ['dashboards'],
);

export const sortBody = z
  .object({
    dashboard_group_ids: z
      .array(z.string().min(1).max(64))
      .min(1)
      .max(1000)
      .openapi({ description: 'Group ids in the wanted order; groups left out keep their order after these.' }),
  })
  .strict()
  .openapi('DashboardGroupSort');

export const DASHBOARD_GROUP_INCLUDES = ['dashboards'] as const;
