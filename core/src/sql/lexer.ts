/**
 * Finds the spans of SQL the compiler must never rewrite: string literals, quoted identifiers and
 * comments, per dialect.
 *
 * Postgres: '…' ('' escapes; backslash escapes only in E'…'), "…" identifiers, $tag$…$tag$ bodies,
 * -- line comments, nested /* … *\/ comments.
 * MySQL / MariaDB: '…' and "…" (backslash and doubled-quote escapes), `…` identifiers, # and "-- "
 * line comments, /* … *\/ comments (not nested; /*! … *\/ counts as a comment too).
 */
export type Dialect = 'postgres' | 'mysql';

export type SpanKind = 'string' | 'identifier' | 'comment';

export interface Span {
  kind: SpanKind;
  end: number;
}

const IDENT = /[A-Za-z0-9_$\u0080-\uffff]/;
const TAG = /\$([A-Za-z_\u0080-\uffff][A-Za-z0-9_\u0080-\uffff]*)?\$/y;

export function isIdentChar(ch: string | undefined): boolean {
  return ch !== undefined && IDENT.test(ch);
}

/** The span starting at i, or null when no literal, identifier or comment starts there. */
export function spanAt(sql: string, i: number, dialect: Dialect): Span | null {
  const ch = sql[i];
  const next = sql[i + 1];
  if (ch === "'") {
    const prev = sql[i - 1];
    const backslashes = dialect === 'mysql' || ((prev === 'E' || prev === 'e') && !isIdentChar(sql[i - 2]));
    return { kind: 'string', end: closeQuote(sql, i, "'", backslashes) };
  }
  if (ch === '"') {
    return dialect === 'mysql' ? { kind: 'string', end: closeQuote(sql, i, '"', true) } : { kind: 'identifier', end: closeQuote(sql, i, '"', false) };
  }
  if (ch === '`' && dialect === 'mysql') return { kind: 'identifier', end: closeQuote(sql, i, '`', false) };
  if (ch === '-' && next === '-') {
    if (dialect === 'mysql' && !(sql[i + 2] === undefined || /\s/.test(sql[i + 2]!))) return null;
    return { kind: 'comment', end: lineEnd(sql, i) };
  }
  if (ch === '#' && dialect === 'mysql') return { kind: 'comment', end: lineEnd(sql, i) };
  if (ch === '/' && next === '*') return { kind: 'comment', end: blockEnd(sql, i, dialect === 'postgres') };
  if (ch === '$' && dialect === 'postgres' && !isIdentChar(sql[i - 1])) {
    TAG.lastIndex = i;
    const m = TAG.exec(sql);
    if (m) {
      const close = sql.indexOf(m[0], i + m[0].length);
      return { kind: 'string', end: close === -1 ? sql.length : close + m[0].length };
    }
  }
  return null;
}

function closeQuote(sql: string, i: number, q: string, backslashes: boolean): number {
  let j = i + 1;
  while (j < sql.length) {
    const c = sql[j];
    if (backslashes && c === '\\') j += 2;
    else if (c === q) {
      if (sql[j + 1] === q) j += 2;
      else return j + 1;
    } else j++;
  }
  return sql.length;
}

function lineEnd(sql: string, i: number): number {
  const nl = sql.indexOf('\n', i);
  return nl === -1 ? sql.length : nl;
}

function blockEnd(sql: string, i: number, nested: boolean): number {
  let depth = 1;
  let j = i + 2;
  while (j < sql.length) {
    if (sql[j] === '*' && sql[j + 1] === '/') {
      depth--;
      j += 2;
      if (depth === 0 || !nested) return j;
    } else if (nested && sql[j] === '/' && sql[j + 1] === '*') {
      depth++;
      j += 2;
    } else j++;
  }
  return sql.length;
}

/** The SQL dialect of a datasource type, or null when the compiler has none for it yet. */
export function dialectOf(databaseType: string): Dialect | null {
  if (databaseType === 'postgres' || databaseType === 'redshift' || databaseType === 'cratedb') return 'postgres';
  if (databaseType === 'mysql' || databaseType === 'mariadb') return 'mysql';
  return null;
}
