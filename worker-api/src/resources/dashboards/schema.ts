import { z } from '@hono/zod-openapi';
import { AGGREGATIONS, isTimeZone } from '@cairn/core';
import type { ResourceBodySpec } from '../../lib/resource-body.ts';
import { resourceObjectSchema } from '../../lib/openapi.ts';
import { inputParametersSchema } from '../reports/schema.ts';
import { DASHBOARD_INCLUDES } from './relations.ts';

export { DASHBOARD_INCLUDES };

const timeZoneName = z
  .string()
  .max(64)
  .refine(isTimeZone, { error: (iss) => `"${String(iss.input)}" is not an IANA time zone name (such as Europe/Berlin or UTC).` })
  .openapi({ example: 'Europe/Berlin' });

const TIME_ZONE_TYPES = ['disabled', 'organization', 'fixed', 'input'] as const;

export const timeZoneConfig = z
  .object({
    type: z.enum(TIME_ZONE_TYPES),
    fixed_time_zone: timeZoneName.nullable().optional(),
    allowed_time_zones: z.array(timeZoneName).max(600).nullable().optional(),
  })
  .strict()
  .superRefine((v, ctx) => {
    if (v.type === 'fixed' && !v.fixed_time_zone) {
      ctx.addIssue({ code: 'custom', path: ['fixed_time_zone'], message: 'is required when type is fixed.' });
    }
  })
  .openapi('TimeZoneConfig', {
    description:
      'disabled: no time zone handling; organization: the organization time zone; fixed: fixed_time_zone; input: viewers pick one of allowed_time_zones.',
  });

export const COLOR_SCHEMES = ['scheme_1', 'scheme_2', 'scheme_3', 'scheme_4', 'scheme_5', 'scheme_6', 'scheme_7', 'scheme_8'] as const;
const SHARE_MODES = ['none', 'all_users', 'all_analysts', 'custom'] as const;
const variableName = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[A-Za-z0-9_-]+$/, 'must hold only letters, digits, underscore and hyphen.');

export const filtersConfiguration = z
  .object({
    apply_immediately: z.boolean().optional(),
    aggregation_options: z.array(z.enum(AGGREGATIONS)).max(AGGREGATIONS.length).optional(),
    filter_sorting: z.array(variableName).max(500).optional(),
    hidden_parameters: z.array(variableName).max(500).optional(),
  })
  .strict()
  .openapi('FiltersConfiguration');

export const ANCHOR_TIME = /^([01]\d|2[0-3]):[0-5]\d$/;
const PAGE_WIDTH = { min: 320, max: 7680 } as const;

/** Every writable attribute of a dashboard (also the dashboard part of a backup). */
export const dashboardAttributes = {
  name: z.string().trim().min(1).max(200),
  description: z.string().max(10_000).nullable(),
  time_zone_config: timeZoneConfig,
  automatic_update_enabled: z.boolean(),
  thumbnail_enabled: z.boolean(),
  prewarm: z.boolean(),
  data_refresh_rate: z.number().int().min(1).max(525_600).openapi({ description: 'Minutes a result stays fresh (default 1440).' }),
  data_refresh_anchor_time: z.string().regex(ANCHOR_TIME, 'must be a time written HH:MM (00:00 to 23:59).').nullable(),
  is_locked: z.boolean(),
  default_parameters: inputParametersSchema,
  default_page_width: z.number().int().min(PAGE_WIDTH.min).max(PAGE_WIDTH.max),
  color_scheme: z.enum(COLOR_SCHEMES),
  filters_configuration: filtersConfiguration,
};

const DASHBOARD_READ_ONLY = [
  'published',
  'layout',
  'floating_enabled',
  'thumbnail_image_url',
  'thumbnail_created_at',
  'share_mode',
  'series_colors',
  'created_at',
  'updated_at',
] as const;

/**
 * What clients may write. `filters` (ordered) sets the filters the dashboard shows, `sql_snippets` the
 * snippets it uses. Reports join a dashboard through their own `dashboard` relationship; layout, sharing
 * and locking have their own calls.
 */
export const dashboardBody = {
  type: 'dashboards',
  attributes: z.object(dashboardAttributes),
  required: ['name'],
  readOnly: DASHBOARD_READ_ONLY,
  relationships: {
    filters: { type: 'filters', many: true },
    sql_snippets: { type: 'sql_snippets', many: true },
  },
} satisfies ResourceBodySpec<typeof dashboardAttributes>;

export type DashboardWrite = {
  attributes: Partial<{ [K in keyof typeof dashboardAttributes]: z.infer<(typeof dashboardAttributes)[K]> }>;
  relationships: Record<string, string | string[] | null>;
};

export const layoutTile = z
  .object({
    type: z.literal('report'),
    id: z.string().min(1).max(64),
    row: z.number().int().min(1).max(10_000),
    column: z.number().int().min(1).max(12),
    width: z.number().int().min(1).max(12),
    height: z.number().int().min(1).max(1_000),
  })
  .strict()
  .openapi('LayoutTile');

export const Dashboard = resourceObjectSchema(
  'Dashboard',
  'dashboards',
  z.object({
    name: z.string(),
    description: z.string().nullable(),
    time_zone_config: timeZoneConfig,
    automatic_update_enabled: z.boolean(),
    thumbnail_enabled: z.boolean(),
    thumbnail_image_url: z.string().nullable(),
    thumbnail_created_at: z.string().nullable().openapi({ format: 'date-time' }),
    prewarm: z.boolean(),
    published: z.boolean(),
    data_refresh_rate: z.number().int(),
    data_refresh_anchor_time: z.string().nullable(),
    is_locked: z.boolean(),
    default_parameters: inputParametersSchema,
    default_page_width: z.number().int(),
    layout: z.array(layoutTile),
    floating_enabled: z.boolean(),
    color_scheme: z.enum(COLOR_SCHEMES),
    series_colors: z.record(z.string(), z.number().int()).openapi({
      description:
        "Read-only. The colour of each series value seen on the dashboard's charts: the ordinal of its colour in order of first sight (the colour is that position in the color_scheme, counted round). Grows through POST /dashboards/{id}/series_colors.",
      example: { France: 0, Germany: 1 },
    }),
    filters_configuration: filtersConfiguration,
    share_mode: z.enum(SHARE_MODES),
    created_at: z.string().openapi({ format: 'date-time' }),
    updated_at: z.string().openapi({ format: 'date-time' }),
  }),
  DASHBOARD_INCLUDES,
);

export const layoutBody = z
  .object({
    layout: z.array(layoutTile).max(1_000),
    floating_enabled: z.boolean().optional().openapi({ description: 'Tiles may overlap when true. Kept as it is when left out.' }),
  })
  .strict()
  .openapi('DashboardLayout');

export const shareBody = z
  .object({
    share_mode: z.enum(SHARE_MODES),
    user_group_ids: z
      .array(z.string().min(1).max(64))
      .max(500)
      .optional()
      .openapi({ description: 'Groups for share_mode custom: user group ids, or the built-in aliases all_users and all_analysts.' }),
    notify_new_users: z.boolean().optional().openapi({ description: 'E-mail the users who gain access (default false).' }),
    include_thumbnail: z.boolean().optional().openapi({ description: 'Show the dashboard thumbnail in that e-mail (default false).' }),
  })
  .strict()
  .openapi('DashboardShare');

/** Most series values a dashboard's colour map holds; later new values get no stored colour. */
export const SERIES_COLORS_MAX = 2_000;

export const seriesColorsBody = z
  .object({
    values: z
      .array(z.string().max(200))
      .min(1)
      .max(500)
      .openapi({
        description: 'Series values in the order a chart shows them; those without a colour yet get the next ones, in this order.',
        example: ['France', 'Germany'],
      }),
  })
  .strict()
  .openapi('DashboardSeriesColorsRequest');

export const SeriesColors = z.object({ series_colors: z.record(z.string(), z.number().int()) }).openapi('DashboardSeriesColors');
