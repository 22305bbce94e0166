/**
 * Recognises Cairn's three pieces of syntax at a position of the SQL text:
 *
 *   {[expr]=var[.previous|.next]}  {col=var}   condition
 *   {[expr]:var}                    {col:var}   transformation
 *   {var.start|.end|.value}         {var}       value
 *   [name]  [name(arg, …)]                      snippet reference
 *   {{param}}                                   snippet parameter (inside a snippet's text)
 *
 * Each parser returns null when the text is not that syntax, so the caller leaves it untouched.
 */
import { spanAt, type Dialect } from './lexer.ts';

export interface ExprToken {
  kind: 'condition' | 'transformation';
  /** The left-hand expression as written (inside the brackets, or the bare column). */
  expr: string;
  bracketed: boolean;
  variable: string;
  selector: string | null;
  end: number;
}
export interface ValueToken {
  kind: 'value';
  variable: string;
  /** null for the bare form `{var}`. */
  selector: string | null;
  end: number;
}
export type FilterToken = ExprToken | ValueToken;

const WS = /\s*/y;
const COLUMN = /[A-Za-z_][\w$]*(?:\.[A-Za-z_][\w$]*)*/y;
const VARIABLE = /[A-Za-z0-9_][\w-]*/y;
const SELECTOR = /\.([A-Za-z_]\w*)/y;

function sticky(re: RegExp, s: string, i: number): RegExpExecArray | null {
  re.lastIndex = i;
  return re.exec(s);
}
function skipWs(s: string, i: number): number {
  WS.lastIndex = i;
  WS.exec(s);
  return WS.lastIndex;
}

/** Index of the `]` that closes the `[` at i (literals inside skipped), or -1. */
export function closingBracket(sql: string, i: number, dialect: Dialect): number {
  let depth = 0;
  let j = i;
  while (j < sql.length) {
    const span = spanAt(sql, j, dialect);
    if (span) {
      j = span.end;
      continue;
    }
    const c = sql[j];
    if (c === '[') depth++;
    else if (c === ']' && --depth === 0) return j;
    j++;
  }
  return -1;
}

/** A filter token starting at the `{` at i. */
export function parseFilterToken(sql: string, i: number, dialect: Dialect): FilterToken | null {
  let j = skipWs(sql, i + 1);
  let expr: string | null = null;
  let bracketed = false;
  if (sql[j] === '[') {
    const close = closingBracket(sql, j, dialect);
    if (close === -1) return null;
    expr = sql.slice(j + 1, close).trim();
    if (!expr) return null;
    bracketed = true;
    j = close + 1;
  } else {
    const col = sticky(COLUMN, sql, j);
    if (col) {
      const after = skipWs(sql, j + col[0].length);
      if (sql[after] === '=' || sql[after] === ':') {
        expr = col[0];
        j = j + col[0].length;
      }
    }
  }
  if (expr !== null) {
    j = skipWs(sql, j);
    const op = sql[j];
    if (op !== '=' && op !== ':') return null;
    j = skipWs(sql, j + 1);
    const v = sticky(VARIABLE, sql, j);
    if (!v) return null;
    j += v[0].length;
    const sel = sticky(SELECTOR, sql, j);
    if (sel) j += sel[0].length;
    j = skipWs(sql, j);
    if (sql[j] !== '}') return null;
    return {
      kind: op === '=' ? 'condition' : 'transformation',
      expr,
      bracketed,
      variable: v[0],
      selector: sel ? sel[1]! : null,
      end: j + 1,
    };
  }
  const v = sticky(VARIABLE, sql, j);
  if (!v) return null;
  j += v[0].length;
  const sel = sticky(SELECTOR, sql, j);
  if (sel) j += sel[0].length;
  j = skipWs(sql, j);
  if (sql[j] !== '}') return null;
  return { kind: 'value', variable: v[0], selector: sel ? sel[1]! : null, end: j + 1 };
}

export type SnippetArg = { kind: 'literal'; value: string | number | boolean | null } | { kind: 'param'; name: string };

export interface SnippetRef {
  name: string;
  /** null when written without parentheses. */
  args: SnippetArg[] | null;
  /** Set when the parentheses hold something other than literals. */
  argError: string | null;
  end: number;
}

const NAME_STOP = /[[\](){}'"`\n\r]/;
const PARAM = /\{\{\s*([A-Za-z_][\w-]*)\s*\}\}/y;
const NUMBER = /[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?/y;
const KEYWORD = /(TRUE|FALSE|NULL)\b/iy;

/** A snippet reference starting at the `[` at i. */
export function parseSnippetRef(sql: string, i: number): SnippetRef | null {
  let j = i + 1;
  while (j < sql.length && j - i <= 129 && !NAME_STOP.test(sql[j]!)) j++;
  const name = sql.slice(i + 1, j);
  if (!name || name.trim() !== name) return null;
  if (sql[j] === ']') return { name, args: null, argError: null, end: j + 1 };
  if (sql[j] !== '(') return null;
  const parsed = parseArgs(sql, j + 1);
  if ('error' in parsed) {
    // Find the end of the reference so the caller can report it; give up when there is none.
    const close = sql.indexOf(')]', j);
    if (close === -1) return null;
    return { name, args: null, argError: parsed.error, end: close + 2 };
  }
  const k = skipWs(sql, parsed.end);
  if (sql[k] !== ']') return null;
  return { name, args: parsed.args, argError: null, end: k + 1 };
}

function parseArgs(sql: string, i: number): { args: SnippetArg[]; end: number } | { error: string } {
  const args: SnippetArg[] = [];
  let j = skipWs(sql, i);
  if (sql[j] === ')') return { args, end: j + 1 };
  for (;;) {
    j = skipWs(sql, j);
    const arg = parseArg(sql, j);
    if ('error' in arg) return arg;
    args.push(arg.arg);
    j = skipWs(sql, arg.end);
    if (sql[j] === ',') {
      j++;
      continue;
    }
    if (sql[j] === ')') return { args, end: j + 1 };
    return { error: `expected "," or ")" after argument ${args.length}` };
  }
}

function parseArg(sql: string, j: number): { arg: SnippetArg; end: number } | { error: string } {
  const c = sql[j];
  if (c === "'") {
    let k = j + 1;
    let value = '';
    while (k < sql.length) {
      if (sql[k] === "'") {
        if (sql[k + 1] === "'") {
          value += "'";
          k += 2;
          continue;
        }
        return { arg: { kind: 'literal', value }, end: k + 1 };
      }
      value += sql[k];
      k++;
    }
    return { error: 'a quoted argument is not closed' };
  }
  const param = sticky(PARAM, sql, j);
  if (param) return { arg: { kind: 'param', name: param[1]! }, end: j + param[0].length };
  const num = sticky(NUMBER, sql, j);
  if (num && !/[\w.]/.test(sql[j + num[0].length] ?? '')) {
    const text = num[0];
    const n = Number(text);
    const exactInteger = /^[+-]?\d+$/.test(text) && !Number.isSafeInteger(n);
    return { arg: { kind: 'literal', value: exactInteger ? text.replace(/^\+/, '') : n }, end: j + text.length };
  }
  const kw = sticky(KEYWORD, sql, j);
  if (kw) {
    const word = kw[1]!.toUpperCase();
    return { arg: { kind: 'literal', value: word === 'NULL' ? null : word === 'TRUE' }, end: j + kw[0].length };
  }
  return {
    error: `argument ${
      sql
        .slice(j, j + 20)
        .split(/[,)]/)[0]!
        .trim() || '(empty)'
    } is not a literal`,
  };
}

/** A snippet parameter `{{name}}` starting at i. */
export function parseParamRef(sql: string, i: number): { name: string; end: number } | null {
  const m = sticky(PARAM, sql, i);
  return m ? { name: m[1]!, end: i + m[0].length } : null;
}

/** Names of `{{param}}` references inside a piece of text (used to refuse them inside literals). */
export function paramRefsIn(text: string): string[] {
  return [...text.matchAll(/\{\{\s*([A-Za-z_][\w-]*)\s*\}\}/g)].map((m) => m[1]!);
}
