/**
 * The SQL variables of the report being edited that are not filters of its dashboard (nor built-ins),
 * read by the SQL compiler's own walker (core `sqlReferences`, snippets expanded). The API treats such
 * a variable as an unset ad hoc text filter — every row passes — and saving creates it on the
 * dashboard, so a typo (`{[status]=stauts}`) would silently return unfiltered data. The editor names
 * them before the analyst runs or saves, with the closest filter as a likely meant one.
 */
import { dialectOf } from '@cairn/core/sql/lexer';
import { sqlReferences } from '@cairn/core/sql/references';

export interface UnknownVariable {
  name: string;
  /** The dashboard filter whose variable is closest (a likely typo), or null. */
  closest: string | null;
}

/** Levenshtein distance (case-insensitive), capped: names further apart than `max` answer max + 1. */
function distance(a: string, b: string, max: number): number {
  a = a.toLowerCase();
  b = b.toLowerCase();
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = row;
  }
  return prev[b.length]!;
}

export function unknownVariables(
  sql: string,
  opts: {
    filters: readonly { variable_name: string; control_type: string; value_type?: string }[];
    snippets?: readonly { name: string; text?: string | null; params?: readonly string[] | null }[];
    databaseType?: string | null;
  },
): UnknownVariable[] {
  let names: string[];
  try {
    names = sqlReferences(sql, {
      dialect: (opts.databaseType ? dialectOf(opts.databaseType) : null) ?? 'postgres',
      filters: opts.filters.map((f) => ({ variable_name: f.variable_name, control_type: f.control_type, value_type: f.value_type ?? 'TEXT' })),
      snippets: (opts.snippets ?? []).filter((s) => typeof s.text === 'string').map((s) => ({ name: s.name, text: s.text!, params: s.params ?? [] })),
    }).unknownVariables;
  } catch {
    return []; // a SQL error (bad snippet call, cycle) is the run's to report
  }
  return names.map((name) => {
    const max = Math.max(1, Math.min(3, Math.floor(name.length / 3)));
    let closest: string | null = null;
    let best = max + 1;
    for (const f of opts.filters) {
      const d = distance(name, f.variable_name, max);
      if (d < best) {
        best = d;
        closest = f.variable_name;
      }
    }
    return { name, closest };
  });
}
