import { z } from '@hono/zod-openapi';
import { isTimeZone } from '@cairn/core';
import type { ResourceBodySpec } from '../../lib/resource-body.ts';
import { resourceObjectSchema } from '../../lib/openapi.ts';

const name = z.string().trim().min(1).max(200);
const timeZone = z
  .string()
  .min(1)
  .max(64)
  .refine((tz) => isTimeZone(tz), 'is not an IANA time zone name (for example Europe/Berlin or UTC).')
  .openapi({ description: 'IANA name, e.g. Europe/Berlin.', example: 'Europe/Berlin' });

/** What an admin may change; region, plan and the limits are the operator's. */
export const organizationBody = {
  type: 'organizations',
  attributes: z.object({ name, time_zone: timeZone }),
  readOnly: [
    'region',
    'plan',
    'plan_analyst_seats',
    'plan_datasources',
    'analyst_seats_used',
    'datasources_used',
    'ssh_public_key',
    'created_at',
    'updated_at',
  ],
} satisfies ResourceBodySpec<{ name: typeof name; time_zone: typeof timeZone }>;

export const Organization = resourceObjectSchema(
  'Organization',
  'organizations',
  z.object({
    name: z.string(),
    time_zone: z.string(),
    region: z.enum(['eu', 'us']).openapi({ description: 'Where the organization’s data is stored and processed; read-only.' }),
    plan: z.string(),
    plan_analyst_seats: z.number().int().nullable().openapi({
      description:
        'Analysts and admins who are not deactivated (pending invitations included) may number this many; null: no limit (the operator sets it with `npm run cairn -- org limits`).',
    }),
    analyst_seats_used: z.number().int(),
    plan_datasources: z.number().int().nullable().openapi({ description: 'Datasources allowed (the sample datasource does not count); null: no limit.' }),
    datasources_used: z.number().int(),
    ssh_public_key: z.string().openapi({
      description:
        'The organization’s SSH public key (ed25519), made by Cairn; read-only. Datasources with connection_mode `ssh_tunnel` log in to their SSH server with it: add `restrict,port-forwarding ` followed by this key as one line to `~/.ssh/authorized_keys` of the `ssh_tunnel_user`.',
      example: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFzVaBnt4ychCt3VL24zXBFtneqX6z+8Zw92A70yq9vG cairn-org_0123456789ab',
    }),
    created_at: z.string(),
    updated_at: z.string(),
  }),
);
