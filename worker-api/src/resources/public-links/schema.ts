/**
 * What a sharing link's page draws (POST /public/links/{token}) and the print view of exports
 * (POST /public/render/{token}, the same shape with its render settings): the link's options, the
 * dashboard, its reports without their SQL, its filters and the parameters in force.
 */
import { z } from '@hono/zod-openapi';
import { CONTROL_TYPES, VALUE_TYPES } from '@cairn/core';
import { linkSwitches } from '../dashboard-sharing-links/schema.ts';
import { COLOR_SCHEMES, filtersConfiguration, layoutTile, timeZoneConfig } from '../dashboards/schema.ts';
import { inputParametersSchema } from '../reports/schema.ts';

const timestamp = z.string().openapi({ format: 'date-time' });
const COLOR_MODES = ['light', 'dark'] as const;

const linkOptions = z.object({
  name: z.string(),
  description: z.string().nullable(),
  ...linkSwitches,
  password_protected: z.boolean(),
  color_mode: z.enum(COLOR_MODES),
});

const publicDashboard = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  layout: z.array(layoutTile),
  default_page_width: z.number().int(),
  color_scheme: z.enum(COLOR_SCHEMES),
  series_colors: z.record(z.string(), z.number().int()).openapi({ description: "The dashboard's colour map: series value → colour ordinal." }),
  data_refresh_rate: z.number().int(),
  filters_configuration: filtersConfiguration,
  time_zone_config: timeZoneConfig,
  default_parameters: inputParametersSchema,
  organization_time_zone: z.string(),
  updated_at: timestamp,
});

const publicReport = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  chart_configuration: z.record(z.string(), z.unknown()),
  no_data_message: z.string().nullable(),
  display_name_as_title: z.boolean(),
  attribution: z.string().nullable(),
  download_enabled: z.boolean().openapi({ description: "The stricter of the link's data_download_enabled and the report's download switches." }),
  maximize_enabled: z.boolean().optional().openapi({ description: "The report's maximize_action_enabled (sharing links only)." }),
});

const publicFilter = z.object({
  id: z.string(),
  variable_name: z.string(),
  display_name: z.string().nullable(),
  control_type: z.enum(CONTROL_TYPES),
  value_type: z.enum(VALUE_TYPES),
  default_values: z.array(z.unknown()).nullable(),
  required: z.boolean(),
  parent_filter_id: z.string().nullable(),
  allowed_aggregations: z.array(z.string()).nullable(),
  dropdown_validate: z.boolean(),
  dropdown_default_to_first: z.boolean(),
  query_options: z.boolean().openapi({ description: 'The options come from a query (through the status poll).' }),
  relative_range_enabled: z.boolean(),
  before_range_enabled: z.boolean(),
  after_range_enabled: z.boolean(),
  from_to_range_enabled: z.boolean(),
  fixed: z.boolean().openapi({ description: 'A signed value the viewer cannot change.' }),
  options: z
    .object({ values: z.array(z.unknown()), value_names: z.array(z.string()) })
    .optional()
    .openapi({ description: 'Manual options, only with the filter bar.' }),
});

export const PublicLink = z
  .object({
    link: linkOptions,
    dashboard: publicDashboard,
    reports: z.array(publicReport),
    filters: z.array(publicFilter),
    built_ins: z.object({ timerange: z.boolean(), aggregation: z.boolean() }).openapi({ description: 'The built-in variables the reports use.' }),
    parameters: inputParametersSchema.openapi({ description: 'The parameters in force.' }),
    fixed_variables: z.array(z.string()),
    problems: z.array(z.string()),
  })
  .openapi('PublicLink');

export const PrintView = PublicLink.extend({
  render: z.object({ report_id: z.string().nullable(), color_mode: z.enum(COLOR_MODES), page_width: z.number().int() }),
}).openapi('PrintView');
