/**
 * What the SQL editor completes, as pure data (the CodeMirror glue in components/editor/ only converts
 * it): tables and columns of the datasource's schema, `{…}` filter variables and `[…]` snippet names.
 * Which completion applies depends on the text before the cursor on its line.
 */
import { BUILT_IN_SNIPPETS } from '@cairn/core/sql/snippets';

/** The data server's schema answer (GET /schema/{data_key}). */
interface SchemaColumn {
  name: string;
  db_type?: string | null;
  data_type?: string | null;
}
interface SchemaTable {
  name: string;
  row_count?: number | null;
  columns: SchemaColumn[];
}
export interface SchemaData {
  schemas: { name: string; tables: SchemaTable[] }[];
}

/** What the app's schema route answers. */
export type SchemaAnswer = { status: 'ok'; schema: SchemaData } | { status: 'unavailable'; message: string } | { status: 'error'; message: string };

/** A variable the SQL may use: a dashboard filter or a built-in. */
export interface VariableInfo {
  name: string;
  /** Shown next to the name: the filter's label and control, or "built-in". */
  detail: string;
  /** date_time_aggregation filters and the built-in aggregation transform timestamps. */
  aggregation: boolean;
  /** Ranges offer .start/.end and the previous/next selectors. */
  range: boolean;
}
export interface SnippetInfo {
  name: string;
  params: string[];
  description?: string | null;
}

interface CompletionOption {
  label: string;
  /** The text inserted instead of the typed prefix (default: label). */
  apply?: string;
  type: 'variable' | 'function' | 'keyword' | 'constant' | 'property' | 'type';
  detail?: string;
  info?: string;
}
export interface CompletionAnswer {
  /** Offset in the line where the replaced text starts. */
  from: number;
  options: CompletionOption[];
  /** Characters that keep the answer valid while typing. */
  validFor: RegExp;
}

const WORD = /^[A-Za-z0-9_-]*$/;

/** Dialect names of @codemirror/lang-sql for each database type. */
export type SqlDialectName = 'PostgreSQL' | 'MySQL' | 'MariaSQL' | 'MSSQL' | 'PLSQL' | 'StandardSQL';

export function dialectFor(databaseType: string | null | undefined): SqlDialectName {
  switch (databaseType) {
    case 'postgres':
    case 'redshift':
    case 'vertica':
      return 'PostgreSQL';
    case 'mysql':
    case 'clickhouse':
      return 'MySQL';
    case 'mariadb':
      return 'MariaSQL';
    case 'mssql':
      return 'MSSQL';
    case 'oracle':
      return 'PLSQL';
    default:
      return 'StandardSQL';
  }
}

/**
 * The schema as lang-sql's completion namespace: `{schema: {table: [columns]}}`, plus the tables of the
 * default schema at the top level so `orders.` completes without the schema name.
 */
export type SqlNamespace = { [name: string]: SqlNamespace | SqlColumnCompletion[] };
interface SqlColumnCompletion {
  label: string;
  type: 'property';
  detail: string;
}

export function schemaNamespace(schema: SchemaData | null, defaultSchema: string | null): SqlNamespace {
  const ns: SqlNamespace = {};
  if (!schema) return ns;
  for (const s of schema.schemas) {
    const tables: SqlNamespace = {};
    for (const t of s.tables) tables[t.name] = t.columns.map(columnCompletion);
    ns[s.name] = tables;
  }
  const fallback = defaultSchema && ns[defaultSchema] ? defaultSchema : schema.schemas.length === 1 ? schema.schemas[0]!.name : null;
  if (fallback) {
    for (const [table, columns] of Object.entries(ns[fallback] as SqlNamespace)) {
      if (!(table in ns)) ns[table] = columns;
    }
  }
  return ns;
}

function columnCompletion(c: SchemaColumn): SqlColumnCompletion {
  return { label: c.name, type: 'property', detail: [c.data_type, c.db_type].filter(Boolean).join(' · ') };
}

/** The variables the editor offers: the dashboard's filters, then the built-ins it does not redefine. */
export function editorVariables(filters: { variable_name: string; display_name?: string | null; control_type: string }[]): VariableInfo[] {
  const out: VariableInfo[] = filters.map((f) => ({
    name: f.variable_name,
    detail: `${f.display_name?.trim() || f.variable_name} · ${f.control_type}`,
    aggregation: f.control_type === 'date_time_aggregation',
    range: /_range$/.test(f.control_type),
  }));
  const names = new Set(out.map((v) => v.name));
  if (!names.has('timerange')) out.push({ name: 'timerange', detail: 'built-in date range', aggregation: false, range: true });
  if (!names.has('aggregation')) out.push({ name: 'aggregation', detail: 'built-in aggregation', aggregation: true, range: false });
  return out;
}

/** What to insert for a variable button: a condition for filters, a transformation for aggregations. */
export function variableSnippet(v: VariableInfo, column = 'column'): string {
  if (v.aggregation) return `{[${column}]:${v.name}}`;
  return `{[${column}]=${v.name}}`;
}

/** What to insert for a snippet: `[name]`, or `[name(param, …)]` with the parameter names as placeholders. */
export function snippetCall(s: SnippetInfo): string {
  return s.params.length ? `[${s.name}(${s.params.map((p) => `'${p}'`).join(', ')})]` : `[${s.name}]`;
}

export function builtInSnippets(): SnippetInfo[] {
  return Object.keys(BUILT_IN_SNIPPETS).map((name) => ({ name, params: [], description: 'built-in' }));
}

/**
 * The completion for the text of a line up to the cursor, or null when neither a `{…}` nor a `[…]`
 * is open there (then the SQL completion of lang-sql applies).
 */
export function completeAt(before: string, variables: VariableInfo[], snippets: SnippetInfo[]): CompletionAnswer | null {
  return completeVariable(before, variables) ?? completeSnippet(before, snippets);
}

/** Inside an open `{`: after `=` a condition's variable, after `:` an aggregation, right after `{` any variable. */
function completeVariable(before: string, variables: VariableInfo[]): CompletionAnswer | null {
  const open = before.lastIndexOf('{');
  if (open < 0 || before.indexOf('}', open) >= 0) return null;
  const inside = before.slice(open + 1);
  // `{[expr]=var`, `{column=var` or `{column:var`: the last `=` or `:` outside the brackets.
  const exprEnd = inside.startsWith('[') ? inside.indexOf(']') : -1;
  if (inside.startsWith('[') && exprEnd < 0) return null; // still writing the expression
  const tail = exprEnd >= 0 ? inside.slice(exprEnd + 1) : inside;
  const op = tail.search(/[=:]/);
  if (op >= 0) {
    const typed = tail.slice(op + 1);
    const from = before.length - typed.length;
    if (tail[op] === ':') {
      if (!WORD.test(typed)) return null;
      const options = variables.filter((v) => v.aggregation).map((v) => option(v));
      return { from, options, validFor: WORD };
    }
    const dot = typed.indexOf('.');
    if (dot >= 0) {
      const v = variables.find((x) => x.name === typed.slice(0, dot));
      if (!v || !v.range) return null;
      const selectors = ['previous', 'next'].map((s) => ({ label: `${v.name}.${s}`, type: 'property' as const, detail: `the ${s} range of the same length` }));
      return { from, options: selectors, validFor: /^[A-Za-z0-9_.-]*$/ };
    }
    if (!WORD.test(typed)) return null;
    return { from, options: variables.filter((v) => !v.aggregation).map((v) => option(v)), validFor: WORD };
  }
  if (exprEnd >= 0) return null;
  // `{var` alone: a value (`{var.start}`), or the aggregation name.
  if (!/^[A-Za-z0-9_.-]*$/.test(inside)) return null;
  const from = before.length - inside.length;
  const options: CompletionOption[] = [];
  for (const v of variables) {
    if (v.range) {
      options.push({ label: `${v.name}.start`, type: 'property', detail: 'start of the range, as a value' });
      options.push({ label: `${v.name}.end`, type: 'property', detail: 'end of the range, as a value' });
    } else if (v.aggregation) {
      options.push({ label: v.name, type: 'variable', detail: 'the aggregation name, as a value' });
    } else {
      options.push({ label: `${v.name}.value`, type: 'property', detail: `${v.detail}, as a value` });
    }
  }
  return { from, options, validFor: /^[A-Za-z0-9_.-]*$/ };
}

function option(v: VariableInfo): CompletionOption {
  return { label: v.name, type: 'variable', detail: v.detail };
}

/** Inside an open `[` that looks like the start of a snippet name. */
function completeSnippet(before: string, snippets: SnippetInfo[]): CompletionAnswer | null {
  const open = before.lastIndexOf('[');
  if (open < 0 || before.indexOf(']', open) >= 0) return null;
  const typed = before.slice(open + 1);
  if (!/^[A-Za-z_][A-Za-z0-9_]*$|^$/.test(typed)) return null;
  // `{[expr` is a filter expression, not a snippet.
  if (before.slice(0, open).endsWith('{')) return null;
  const from = open + 1;
  const options = [...snippets, ...builtInSnippets()].map(
    (s): CompletionOption => ({
      label: s.name,
      apply: snippetCall(s).slice(1, -1),
      type: s.description === 'built-in' ? 'constant' : 'function',
      detail: s.params.length ? `(${s.params.join(', ')})` : s.description === 'built-in' ? 'built-in' : 'snippet',
      info: s.description ?? undefined,
    }),
  );
  return { from, options, validFor: /^[A-Za-z0-9_]*$/ };
}
