import type { sqlSnippets } from '@cairn/db';
import { resource, toMany, toOne } from '../../lib/jsonapi.ts';

type SnippetRow = typeof sqlSnippets.$inferSelect;

export function serializeSnippet(baseUrl: string, s: SnippetRow, usesSnippetIds: string[]) {
  return resource(
    baseUrl,
    'sql_snippets',
    s.id,
    {
      name: s.name,
      description: s.description,
      text: s.text,
      params: s.params,
      created_at: s.created_at.toISOString(),
      updated_at: s.updated_at.toISOString(),
    },
    { datasource: toOne('datasources', s.datasource_id), sql_snippets: toMany('sql_snippets', usesSnippetIds) },
  );
}
