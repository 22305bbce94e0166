import { z } from '@hono/zod-openapi';
import type { ResourceBodySpec } from '../../lib/resource-body.ts';
import { resourceObjectSchema } from '../../lib/openapi.ts';
import { text, timestamp } from '../../lib/field-checks.ts';

/** Snippet chains may be at most this many levels deep (a snippet using one that uses one … ). */
export const MAX_SNIPPET_DEPTH = 10;
const MAX_SNIPPET_PARAMS = 20;

const identifier = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, { message: 'must be an identifier: letters, digits and underscore, not starting with a digit' });

const snippetAttributes = z.object({
  name: identifier
    .refine((n) => !/^cairn_/i.test(n), { message: 'names starting with CAIRN_ are reserved for the built-in snippets' })
    .openapi({ description: 'Used in SQL as [name]; unique in the organization (ignoring case).' }),
  description: text(5000).nullable(),
  text: text(100_000).refine((s) => s.trim() !== '', { message: 'must not be empty' }),
  params: z
    .array(identifier)
    .max(MAX_SNIPPET_PARAMS)
    .refine((ps) => new Set(ps.map((p) => p.toLowerCase())).size === ps.length, { message: 'lists a parameter twice' })
    .openapi({ description: 'Positional parameters: call as [name(arg1, …)], write {{param}} in the text.' }),
});

export const snippetBody = {
  type: 'sql_snippets',
  attributes: snippetAttributes,
  required: ['name', 'text'],
  readOnly: ['created_at', 'updated_at'],
  relationships: {
    datasource: { type: 'datasources', many: false },
    sql_snippets: { type: 'sql_snippets', many: true },
  },
} satisfies ResourceBodySpec<typeof snippetAttributes.shape>;

export const SqlSnippet = resourceObjectSchema(
  'SqlSnippet',
  'sql_snippets',
  z.object({
    name: z.string(),
    description: z.string().nullable(),
    text: z.string(),
    params: z.array(z.string()),
    created_at: timestamp,
    updated_at: timestamp,
  }),
  ['datasource', 'sql_snippets'],
);

export const SNIPPET_INCLUDES = ['datasource', 'sql_snippets'] as const;
