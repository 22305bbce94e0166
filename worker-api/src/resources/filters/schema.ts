import { z } from '@hono/zod-openapi';
import { AGGREGATIONS, CONTROL_TYPES, VALUE_TYPES, type ControlType } from '@cairn/core';
import type { ResourceBodySpec } from '../../lib/resource-body.ts';
import { resourceObjectSchema } from '../../lib/openapi.ts';
import { noNul, refreshRate, text, timestamp } from '../../lib/field-checks.ts';

/** Controls that select at most one value. */
export const SINGLE_VALUE_CONTROL_TYPES: readonly ControlType[] = [
  'input',
  'checkbox',
  'checkbox_two_way',
  'date_time',
  'date',
  'time',
  'date_time_aggregation',
  'dropdown',
  'dropdown_dynamic',
  'dropdown_manual',
];
export const RANGE_OPTIONS = ['relative_range_enabled', 'before_range_enabled', 'after_range_enabled', 'from_to_range_enabled'] as const;

const MAX_OPTIONS = 10_000;

const filterAttributes = z.object({
  display_name: text(200).nullable(),
  variable_name: z
    .string()
    .min(1)
    .max(100)
    // As SQL references it (core/src/sql/syntax.ts): a hyphen may not come first.
    .regex(/^[A-Za-z0-9_][A-Za-z0-9_-]*$/, { message: 'may contain only letters, digits, underscore and hyphen, and may not start with a hyphen' }),
  control_type: z.enum(CONTROL_TYPES),
  value_type: z.enum(VALUE_TYPES),
  values: z
    .array(z.unknown())
    .max(MAX_OPTIONS)
    .nullable()
    .openapi({ description: 'Manual dropdowns only; write-only. Each value must fit value_type; no NUL character.' }),
  value_names: z
    .array(noNul(z.string().max(1000)))
    .max(MAX_OPTIONS)
    .nullable()
    .openapi({ description: 'Labels of `values`, same length; manual dropdowns only; write-only.' }),
  sql_query: text(100_000).nullable().openapi({
    description: 'Options query of dropdown and dropdown_multi (optional) and of the dynamic dropdowns (required); needs the datasource relationship.',
  }),
  data_refresh_rate: refreshRate.nullable(),
  default_values: z.array(z.unknown()).max(1000).nullable(),
  required: z.boolean().openapi({ default: false }),
  dropdown_validate: z.boolean().openapi({ default: false }),
  dropdown_default_to_first: z.boolean().openapi({ default: false }),
  relative_range_enabled: z.boolean().openapi({ default: true, description: 'Range controls only.' }),
  before_range_enabled: z.boolean().openapi({ default: true, description: 'Range controls only.' }),
  after_range_enabled: z.boolean().openapi({ default: true, description: 'Range controls only.' }),
  from_to_range_enabled: z.boolean().openapi({ default: true, description: 'Range controls only.' }),
  allowed_aggregations: z
    .array(z.enum(AGGREGATIONS))
    .min(1)
    .max(AGGREGATIONS.length)
    .nullable()
    .openapi({ description: 'date_time_aggregation, date_range and date_time_range only; all_time is offered only when listed.' }),
});
export type FilterAttributes = z.infer<typeof filterAttributes>;

const relationships = {
  datasource: { type: 'datasources', many: false },
  parent_filter: { type: 'filters', many: false },
  dashboards: { type: 'dashboards', many: true },
} as const;

export const filterBody = {
  type: 'filters',
  attributes: filterAttributes,
  required: ['variable_name', 'control_type', 'value_type'],
  readOnly: ['last_query_success', 'last_query_error_message', 'created_at', 'updated_at'],
  relationships,
} satisfies ResourceBodySpec<typeof filterAttributes.shape>;

/** The reader also knows sql_snippets (derived from sql_query), so sending it is a read-only error. */
export const filterBodyReader = {
  ...filterBody,
  relationships: { ...relationships, sql_snippets: { type: 'sql_snippets', many: true } },
} satisfies ResourceBodySpec<typeof filterAttributes.shape>;

export const Filter = resourceObjectSchema(
  'Filter',
  'filters',
  z.object({
    display_name: z.string().nullable(),
    variable_name: z.string(),
    control_type: z.enum(CONTROL_TYPES),
    value_type: z.enum(VALUE_TYPES),
    sql_query: z.string().nullable(),
    data_refresh_rate: z.number().int().nullable(),
    default_values: z.array(z.unknown()).nullable(),
    required: z.boolean(),
    dropdown_validate: z.boolean(),
    dropdown_default_to_first: z.boolean(),
    relative_range_enabled: z.boolean().optional().openapi({ description: 'Shown for range controls only.' }),
    before_range_enabled: z.boolean().optional(),
    after_range_enabled: z.boolean().optional(),
    from_to_range_enabled: z.boolean().optional(),
    allowed_aggregations: z.array(z.string()).nullable(),
    last_query_success: timestamp.nullable(),
    last_query_error_message: z.string().nullable(),
    created_at: timestamp,
    updated_at: timestamp,
  }),
  ['datasource', 'sql_snippets', 'parent_filter', 'dashboards'],
);

export const FILTER_INCLUDES = ['datasource', 'sql_snippets', 'parent_filter', 'dashboards'] as const;
