/** Literals, quoted identifiers and comments are never rewritten — per dialect. */
import { describe, expect, it } from 'vitest';
import { dialectOf } from '../src/index.ts';
import { DIALECTS, compile, filter, pick, rejects } from './sql-helpers.ts';

const filters = [filter('v', 'dropdown')];
const c = (dialect: 'postgres' | 'mysql', sql: string) =>
  compile(dialect, sql, { filters, parameters: pick({ v: ['X'] }), snippets: [{ name: 'snip', text: 'S' }] });

describe.each(DIALECTS)('both dialects (%s)', (dialect) => {
  it('single-quoted strings, -- and /* */ comments stay as written', () => {
    const sql = "SELECT '{[a]=v} [snip]', 'it''s {b=v}' -- {[c]=v} [snip]\n/* {[d]=v} [snip] */ WHERE {[e]=v} AND [snip]";
    const ph = dialect === 'postgres' ? '$1' : '?';
    expect(c(dialect, sql).text).toBe(`SELECT '{[a]=v} [snip]', 'it''s {b=v}' -- {[c]=v} [snip]\n/* {[d]=v} [snip] */ WHERE (e = ${ph}) AND S`);
  });

  it('an unterminated literal or comment protects the rest of the text', () => {
    expect(c(dialect, "SELECT 'open {[a]=v}").text).toBe("SELECT 'open {[a]=v}");
    expect(c(dialect, 'SELECT 1 /* {[a]=v}').text).toBe('SELECT 1 /* {[a]=v}');
  });

  it('a comment at the end of the SQL', () => {
    expect(c(dialect, 'SELECT 1 -- {[a]=v}').text).toBe('SELECT 1 -- {[a]=v}');
  });
});

describe('postgres', () => {
  it('double quotes are identifiers with "" escapes', () => {
    expect(c('postgres', 'SELECT "{[a]=v}", "we""ird {b=v}" WHERE {c=v}').text).toBe('SELECT "{[a]=v}", "we""ird {b=v}" WHERE (c = $1)');
  });

  it("backslashes escape only in E'…' strings", () => {
    // Standard string: 'a\' ends at the second quote, so the condition between the literals is compiled.
    expect(c('postgres', "SELECT 'a\\' || {[x]=v} || 'b'").text).toBe("SELECT 'a\\' || (x = $1) || 'b'");
    // E string: \' is an escaped quote, so everything up to the final quote is one literal.
    expect(c('postgres', "SELECT E'a\\' || {[x]=v} || ' AS y").text).toBe("SELECT E'a\\' || {[x]=v} || ' AS y");
    expect(c('postgres', "SELECT e'\\\\' || {[x]=v}").text).toBe("SELECT e'\\\\' || (x = $1)");
  });

  it('dollar-quoted bodies, with and without a tag', () => {
    const sql = "SELECT $$ {[a]=v} [snip] $$, $fn$ it's {b=v} $$ still $fn$, {c=v}";
    expect(c('postgres', sql).text).toBe("SELECT $$ {[a]=v} [snip] $$, $fn$ it's {b=v} $$ still $fn$, (c = $1)");
  });

  it('$ inside an identifier does not start a dollar quote', () => {
    expect(c('postgres', 'SELECT a$b$ FROM t WHERE {c=v}').text).toBe('SELECT a$b$ FROM t WHERE (c = $1)');
  });

  it('block comments nest', () => {
    expect(c('postgres', 'SELECT /* outer /* inner */ {[a]=v} */ {b=v}').text).toBe('SELECT /* outer /* inner */ {[a]=v} */ (b = $1)');
  });

  it('backticks and # are ordinary characters; ? is an operator and stays', () => {
    expect(c('postgres', "SELECT `{a=v}` WHERE j ? 'k' # 1").text).toBe("SELECT `(a = $1)` WHERE j ? 'k' # 1");
  });

  it('refuses positional parameters written by the user (they would take our values)', () => {
    rejects(() => c('postgres', 'SELECT $1, {a=v}'), /positional parameter "\$1"/, '/sql_query');
    expect(c('postgres', "SELECT '$1', $$ $2 $$ -- $3").text).toBe("SELECT '$1', $$ $2 $$ -- $3");
  });
});

describe('mysql', () => {
  it('double quotes are strings with backslash escapes; backticks are identifiers', () => {
    expect(c('mysql', 'SELECT "{[a]=v} \\" {b=v}", `{c=v}`, `we``ird {d=v}` WHERE {e=v}').text).toBe(
      'SELECT "{[a]=v} \\" {b=v}", `{c=v}`, `we``ird {d=v}` WHERE (e = ?)',
    );
  });

  it("backslashes escape in '…' strings", () => {
    expect(c('mysql', "SELECT 'a\\' || {[x]=v} || ' AS y").text).toBe("SELECT 'a\\' || {[x]=v} || ' AS y");
  });

  it('# comments; -- needs a space to be a comment', () => {
    expect(c('mysql', 'SELECT 1 # {[a]=v}\n, 5 --{b=v}\n, 6 -- {c=v}').text).toBe('SELECT 1 # {[a]=v}\n, 5 --(b = ?)\n, 6 -- {c=v}');
  });

  it('block comments do not nest', () => {
    expect(c('mysql', 'SELECT /* outer /* inner */ {[a]=v} */').text).toBe('SELECT /* outer /* inner */ (a = ?) */');
    expect(c('mysql', 'SELECT /*! STRAIGHT_JOIN {a=v} */ 1').text).toBe('SELECT /*! STRAIGHT_JOIN {a=v} */ 1');
  });

  it('dollar signs are ordinary; a ? outside quotes is refused', () => {
    expect(c('mysql', 'SELECT $$ {a=v} $$').text).toBe('SELECT $$ (a = ?) $$');
    rejects(() => c('mysql', 'SELECT ? , {a=v}'), /contains a "\?" outside quotes/, '/sql_query');
    expect(c('mysql', 'SELECT \'?\', "?", `?` # ?').text).toBe('SELECT \'?\', "?", `?` # ?');
  });
});

describe('dialectOf', () => {
  it('maps datasource types to dialects', () => {
    expect(['postgres', 'redshift', 'cratedb', 'mysql', 'mariadb', 'mssql'].map(dialectOf)).toEqual([
      'postgres',
      'postgres',
      'postgres',
      'mysql',
      'mysql',
      null,
    ]);
  });
});
