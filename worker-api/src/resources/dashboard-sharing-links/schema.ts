import { z } from '@hono/zod-openapi';
import type { ResourceBodySpec } from '../../lib/resource-body.ts';
import { resourceObjectSchema } from '../../lib/openapi.ts';
import { parseIpWhitelist } from './ip.ts';

const ipWhitelist = z
  .string()
  .max(10_000)
  .superRefine((raw, ctx) => {
    const res = parseIpWhitelist(raw);
    if (!res.ok) ctx.addIssue({ code: 'custom', message: `entry ${res.index + 1}, "${res.entry}", ${res.reason}.` });
  })
  .nullable()
  .openapi({
    description: 'Comma-separated IPv4/IPv6 addresses and CIDR ranges allowed to open the link; null or empty for any.',
    example: '203.0.113.7, 198.51.100.0/24, 2001:db8::/32',
  });

const attributes = {
  name: z.string().trim().min(1).max(200),
  description: z.string().max(10_000).nullable(),
  toolbar_enabled: z.boolean(),
  parameters_enabled: z.boolean(),
  filter_bar_enabled: z.boolean().openapi({ description: 'Needs toolbar_enabled and parameters_enabled.' }),
  refresh_enabled: z.boolean(),
  data_download_enabled: z.boolean(),
  unlimited_csv_export_enabled: z.boolean(),
  sharing_secret_required: z.boolean(),
  sharing_password: z
    .string()
    .min(1)
    .max(200)
    .nullable()
    .openapi({ description: 'Write-only: stored hashed and never returned (see sharing_password_set). null removes the password.' }),
  color_mode: z.enum(['light', 'dark']),
  ip_whitelist: ipWhitelist,
};

/** What clients may write; the dashboard is chosen once, on create. */
export const sharingLinkBody = {
  type: 'dashboard_sharing_links',
  attributes: z.object(attributes),
  required: ['name'],
  readOnly: ['token', 'sharing_password_set', 'created_at', 'updated_at'],
  relationships: { dashboard: { type: 'dashboards', many: false, requiredOnCreate: true, createOnly: true } },
} satisfies ResourceBodySpec<typeof attributes>;

export type SharingLinkWrite = {
  attributes: Partial<{ [K in keyof typeof attributes]: z.infer<(typeof attributes)[K]> }>;
  relationships: Record<string, string | string[] | null>;
};

/** A link's switches as its answers read them (the link's own and the public page's, public-links/schema.ts). */
export const linkSwitches = {
  toolbar_enabled: z.boolean(),
  parameters_enabled: z.boolean(),
  filter_bar_enabled: z.boolean(),
  refresh_enabled: z.boolean(),
  data_download_enabled: z.boolean(),
  unlimited_csv_export_enabled: z.boolean(),
  sharing_secret_required: z.boolean(),
};

export const DashboardSharingLink = resourceObjectSchema(
  'DashboardSharingLink',
  'dashboard_sharing_links',
  z.object({
    name: z.string(),
    description: z.string().nullable(),
    token: z.string().openapi({ description: 'The public token of the link (/s/{token}); generated, read-only.' }),
    ...linkSwitches,
    sharing_password_set: z.boolean().openapi({ description: 'Whether a sharing password is set (the password itself is never returned).' }),
    color_mode: z.enum(['light', 'dark']),
    ip_whitelist: z.string().nullable(),
    created_at: z.string().openapi({ format: 'date-time' }),
    updated_at: z.string().openapi({ format: 'date-time' }),
  }),
  ['dashboard'],
);

export const SHARING_LINK_INCLUDES = ['dashboard'] as const;
