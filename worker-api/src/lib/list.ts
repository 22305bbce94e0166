import { asc, desc, or, sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import type { ListQuery } from './jsonapi.ts';

/**
 * How one list applies `filter[name]` and `sort` (parsed by parseListQuery) in SQL. The list's own
 * conditions (its organization, what the caller may see) stay in its service; these only narrow and
 * order within them.
 */
export interface ListSpec {
  /** What `filter[name]` searches (any of them holding the text matches). */
  name: readonly SQLWrapper[];
  /** Sort field → the expression it orders by. */
  sorts: Record<string, SQLWrapper>;
  /** The order without `sort`, without the id. */
  order: readonly SQL[];
  /** The last key of every order, so pages never overlap. */
  id: AnyPgColumn;
}

export const sortFields = (spec: ListSpec): readonly string[] => Object.keys(spec.sorts);

/** The `filter[name]` condition (LIKE wildcards in the text match themselves), or undefined without it. */
export function nameFilter(spec: ListSpec, q: ListQuery): SQL | undefined {
  if (q.name === undefined) return undefined;
  const pattern = `%${q.name.replace(/[\\%_]/g, '\\$&')}%`;
  return or(...spec.name.map((column) => sql`${column} ilike ${pattern}`));
}

/** ORDER BY for the query's `sort` (or the list's own order), ending with the id. */
export function listOrder(spec: ListSpec, q: ListQuery): SQL[] {
  const keys = q.sort.length ? q.sort.map((s) => (s.desc ? desc(spec.sorts[s.field]!) : asc(spec.sorts[s.field]!))) : spec.order;
  return [...keys, asc(spec.id)];
}
