import { z } from '@hono/zod-openapi';
import { AGGREGATIONS, canonicalTimeZone } from '@cairn/core';
import type { ResourceBodySpec } from '../../lib/resource-body.ts';
import { resourceObjectSchema } from '../../lib/openapi.ts';
import { hhmm, name, refreshRate, text, timestamp } from '../../lib/field-checks.ts';

/**
 * A filter's values. The schema says what core/src/sql/selection.ts and ranges.ts accept; the zod check
 * stays loose so that a wrong value is refused by the filter's own rules, with a pointer to it.
 */
const selectedValues = z
  .array(z.unknown().openapi({ type: ['string', 'number', 'boolean', 'null'] }))
  .max(10_000)
  .openapi({
    description:
      'The values of the filter. A dropdown or text filter takes its values as they are (`["DE", "FR"]`). A date, date-time or time range filter takes one value `"start~end"` (`["2025-01-01~2025-01-31"]`): both ends are included, and either side may be left empty for an open range (`["2025-01-01~"]`). Two values `[start, end]` are accepted too (`["2025-01-01", "2025-01-31"]`; `null` or `""` for an open side). Dates are `YYYY-MM-DD` or unix seconds; date-times are unix seconds or ISO 8601 (without an offset in the dashboard\'s time zone); times of day are `HH:MM` or `HH:MM:SS`. A date or date-time range may instead take one relative range (`["last_7_days"]`, `today`, `previous_month` …), worked out when the data runs, in the zone in force.',
    examples: [['DE', 'FR'], ['2025-01-01~2025-01-31'], ['2025-01-01', '2025-01-31']],
  });

export const inputParametersSchema = z
  .object({
    timerange: z.string().max(64).optional().openapi({
      description:
        "The built-in time range, written `start~end` like a range filter's value: both ends included, either side may be empty; each side unix seconds, an ISO 8601 date-time or a date `YYYY-MM-DD` (read in the dashboard's time zone). Or a relative range such as `last_7_days`, worked out when the data runs, in the zone in force.",
      example: '1717200000~1719791999',
    }),
    aggregation: z.enum(AGGREGATIONS).optional(),
    // A zone that is none is refused wherever parameters are taken, even where the dashboard ignores tz.
    tz: z
      .string()
      .max(64)
      .refine((tz) => canonicalTimeZone(tz) !== null, {
        error: (iss) => `The time zone "${String(iss.input).slice(0, 64)}" is not a known IANA time zone (such as "Europe/Berlin" or "UTC").`,
      })
      .optional()
      .openapi({ example: 'Europe/Berlin' }),
    filters: z
      .array(z.object({ variable_name: z.string().min(1).max(128), selected_values: selectedValues }).strict())
      .max(200)
      .optional(),
  })
  .strict()
  .openapi('InputParameters');

export const reportDataBody = z
  .object({
    parameters: inputParametersSchema.optional(),
    data_format: z.enum(['json', 'csv', 'xlsx']).default('json'),
  })
  .strict()
  .openapi('ReportDataRequest');

export const dataHandle = z
  .object({
    data_key: z.string().openapi({ example: 'eu/org_x/exe_y/0a1b2c3d4e5f6a7b' }),
    data_access_token: z.string(),
    data_url: z.string().openapi({ description: 'Where to fetch it: the data server of the same region.' }),
    execution_id: z.string(),
    time_zone: z.string().openapi({
      example: 'Asia/Tokyo',
      description:
        "The zone the result was computed in (ranges, buckets, displayed times): the viewer's `tz` when the dashboard's time_zone_config is input, else its fixed zone, the organization's zone or (disabled) the datasource's data time zone. Results for different zones are never shared.",
    }),
  })
  .openapi('DataHandle');

// ---- The report resource ----

/**
 * A new report's tile when the create call gives no size: the report's default page of 800 × 600 px
 * on a dashboard page of 1600 px with 12 columns is 6 columns wide; with the app's 88 px rows and
 * 16 px gaps, 600 px is 6 rows high.
 */
export const DEFAULT_TILE = { width: 6, height: 6 } as const;
const MAX_TILE_HEIGHT = 100;

const switches = {
  download_actions_enabled: z.boolean().openapi({ default: true }),
  data_download_enabled: z.boolean().openapi({ default: true }),
  maximize_action_enabled: z.boolean().openapi({ default: true }),
  refresh_enabled: z.boolean().openapi({ default: true }),
  unused_filters_warning_enabled: z.boolean().openapi({ default: false }),
  unlimited_csv_export_enabled: z.boolean().openapi({ default: false }),
  display_name_as_title: z.boolean().openapi({ default: true }),
};

const reportAttributes = z.object({
  name,
  description: text(5000).nullable(),
  sql_query: text(100_000).refine((s) => s.trim() !== '', { message: 'must not be empty' }),
  r_query: text(100_000).nullable(),
  r_query_enabled: z.boolean().openapi({ default: false }),
  data_refresh_rate: refreshRate.nullable().openapi({ description: "Minutes; null uses the dashboard's rate." }),
  data_refresh_anchor_time: hhmm.nullable(),
  ...switches,
  default_page_width: z.number().int().min(100).max(10_000).openapi({ default: 800 }),
  default_page_height: z.number().int().min(100).max(10_000).openapi({ default: 600 }),
  attribution: text(2000).nullable(),
  no_data_message: text(2000).nullable(),
  width: z.number().int().min(1).max(12).openapi({ description: 'Create only: tile width in grid columns (default 6).' }),
  height: z.number().int().min(1).max(MAX_TILE_HEIGHT).openapi({ description: 'Create only: tile height in grid rows (default 6).' }),
});

const relationships = {
  dashboard: { type: 'dashboards', many: false, requiredOnCreate: true, createOnly: true },
  datasource: { type: 'datasources', many: false, requiredOnCreate: true },
} as const;

/** What clients may write (documented in the OpenAPI request schema). */
export const reportBody = {
  type: 'reports',
  attributes: reportAttributes,
  required: ['name', 'sql_query'],
  readOnly: ['chart_configuration', 'query_error', 'row', 'column', 'created_at', 'updated_at'],
  createOnly: ['width', 'height'],
  relationships,
} satisfies ResourceBodySpec<typeof reportAttributes.shape>;

/**
 * The reader also knows the derived relationships (filters and sql_snippets come from the SQL), so
 * that sending them is a read-only error rather than an unknown relationship.
 */
export const reportBodyReader = {
  ...reportBody,
  relationships: { ...relationships, filters: { type: 'filters', many: true }, sql_snippets: { type: 'sql_snippets', many: true } },
} satisfies ResourceBodySpec<typeof reportAttributes.shape>;
export const DERIVED_REPORT_RELATIONSHIPS = ['filters', 'sql_snippets'] as const;

/**
 * Signed-in users (the app's report editor) may also write `chart_configuration`; for API keys it stays
 * read-only (422 read_only_attribute), as the public API documents. It is opaque to the API: any JSON
 * object up to 100,000 characters, without the NUL character (Postgres jsonb cannot hold it).
 */
const chartConfiguration = z
  .record(z.string(), z.unknown())
  .refine((v) => JSON.stringify(v).length <= 100_000, { message: 'must be at most 100,000 characters as JSON' })
  .refine((v) => !JSON.stringify(v).includes('\\u0000'), { message: 'must not contain the NUL character' });
export const reportBodyUserReader = {
  ...reportBodyReader,
  attributes: reportAttributes.extend({ chart_configuration: chartConfiguration }),
  readOnly: reportBody.readOnly.filter((a) => a !== 'chart_configuration'),
} satisfies ResourceBodySpec<typeof reportAttributes.shape & { chart_configuration: typeof chartConfiguration }>;

export const Report = resourceObjectSchema(
  'Report',
  'reports',
  z.object({
    name: z.string(),
    description: z.string().nullable(),
    sql_query: z.string(),
    r_query: z.string().nullable(),
    r_query_enabled: z.boolean(),
    data_refresh_rate: z.number().int().nullable(),
    data_refresh_anchor_time: z.string().nullable(),
    chart_configuration: z.record(z.string(), z.unknown()).openapi({ description: 'Opaque, read-only.' }),
    ...Object.fromEntries(Object.keys(switches).map((k) => [k, z.boolean()])),
    default_page_width: z.number().int(),
    default_page_height: z.number().int(),
    attribution: z.string().nullable(),
    no_data_message: z.string().nullable(),
    query_error: z.string().nullable(),
    row: z.number().int().nullable(),
    column: z.number().int().nullable(),
    width: z.number().int().nullable(),
    height: z.number().int().nullable(),
    created_at: timestamp,
    updated_at: timestamp,
  }),
  ['dashboard', 'datasource', 'filters', 'sql_snippets'],
);

export const REPORT_INCLUDES = ['dashboard', 'datasource', 'filters', 'sql_snippets'] as const;

export const duplicateBody = z
  .object({ name: name.optional().openapi({ description: 'Name of the copy; default "<name> (copy)".' }) })
  .strict()
  .openapi('ReportDuplicate');
