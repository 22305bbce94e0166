/**
 * What a SQL text refers to, without compiling values: its variables (through its snippets too) and
 * the snippets it uses — for saving a report (which filters it uses, which ad hoc filters to create,
 * which snippets to link). Snippet cycles and bad snippet calls are reported as when compiling.
 */
import type { Dialect } from './lexer.ts';
import { BUILT_IN_VARIABLES, type FilterDefinition } from './params.ts';
import type { SnippetDefinition } from './snippets.ts';
import { Walker } from './walker.ts';

export interface SqlReferences {
  /** Variable names in order of first use, built-ins included. */
  variables: string[];
  /** Variables that are neither built-in nor among the given filters. */
  unknownVariables: string[];
  /** Custom snippets used, nested ones included. */
  snippets: string[];
  /** Built-in snippets used ([CAIRN_USER_EMAIL] …). */
  builtInSnippets: string[];
}

export function sqlReferences(
  sql: string,
  opts: {
    dialect?: Dialect;
    snippets?: readonly SnippetDefinition[];
    filters?: readonly FilterDefinition[];
    /** Read `sql` as the text of a snippet with these parameters (its `{{name}}` are then parameters, values unknown). */
    params?: readonly string[];
  } = {},
): SqlReferences {
  const filters = opts.filters ?? [];
  const defined = new Set(filters.map((f) => f.variable_name));
  const builtIn = (n: string) => (BUILT_IN_VARIABLES as readonly string[]).includes(n);
  const isAggregation = (n: string) =>
    filters.some((f) => f.variable_name === n && f.control_type === 'date_time_aggregation') || (n === 'aggregation' && !defined.has(n));
  const variables: string[] = [];
  const walker = new Walker({
    dialect: opts.dialect ?? 'postgres',
    snippets: opts.snippets ?? [],
    context: null,
    handler: {
      token(token) {
        if (token.kind === 'value') {
          const known = defined.has(token.variable) || builtIn(token.variable);
          if (token.selector === null && !isAggregation(token.variable)) return null;
          if (token.selector !== null && !['start', 'end', 'value'].includes(token.selector) && !known) return null;
        }
        if (!variables.includes(token.variable)) variables.push(token.variable);
        return [];
      },
    },
  });
  walker.walk(sql, { stack: [], args: opts.params ? new Map(opts.params.map((p) => [p, [{ value: null }]])) : null });
  return {
    variables,
    unknownVariables: variables.filter((v) => !defined.has(v) && !builtIn(v)),
    snippets: walker.snippetsUsed,
    builtInSnippets: walker.builtInsUsed,
  };
}
