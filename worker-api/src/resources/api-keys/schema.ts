import { z } from '@hono/zod-openapi';
import { PERMISSIONS, RESTRICTABLE_RESOURCE_TYPES } from '@cairn/core';
import type { ResourceBodySpec } from '../../lib/resource-body.ts';
import { resourceObjectSchema } from '../../lib/openapi.ts';

const name = z.string().trim().min(1).max(200);
const grant = z
  .object({
    permission: z.enum(PERMISSIONS),
    resources: z
      .array(z.object({ type: z.enum(RESTRICTABLE_RESOURCE_TYPES), id: z.string().min(1).max(64) }).strict())
      .max(500)
      .nullable()
      .default(null)
      .openapi({ description: 'null: every resource; otherwise only these dashboards, datasources or SQL alerts.' }),
  })
  .strict()
  .openapi('ApiKeyGrant');
const permissions = z
  .array(grant)
  .min(1)
  .max(PERMISSIONS.length)
  .refine((gs) => new Set(gs.map((g) => g.permission)).size === gs.length, 'Each permission may appear once.');
const enabled = z.boolean();

export const apiKeyBody = {
  type: 'api_keys',
  attributes: z.object({ name, permissions, enabled }),
  required: ['name', 'permissions'],
  readOnly: ['key_id', 'prefix', 'secret', 'last_used_at', 'created_at', 'updated_at'],
} satisfies ResourceBodySpec<{ name: typeof name; permissions: typeof permissions; enabled: typeof enabled }>;

export const ApiKey = resourceObjectSchema(
  'ApiKey',
  'api_keys',
  z.object({
    name: z.string(),
    key_id: z.string().openapi({ description: 'The public part of the key (not secret).' }),
    prefix: z.string().openapi({ description: 'How the whole key starts, `cairn_<region>_<key id>` (not secret): tells a key apart in a list.' }),
    secret: z.string().optional().openapi({ description: 'The whole key, `cairn_<region>_<key id>_<secret>`: only in the create answer, never again.' }),
    permissions: z.array(grant),
    enabled: z.boolean(),
    last_used_at: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  }),
  ['created_by_user'],
);
