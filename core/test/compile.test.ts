import { describe, expect, it } from 'vitest';
import { compileSql, type FilterDefinition } from '../src/index.ts';
import { DIALECTS, compile, filter, ph, pick, rejects } from './sql-helpers.ts';

const filters: FilterDefinition[] = [
  filter('country', 'dropdown_multi_manual'),
  filter('qty', 'input', 'NUMBER'),
  filter('order_date', 'date_range', 'DATE'),
  filter('at', 'date_time_range', 'DATE_TIME'),
  filter('parent', 'dropdown_dynamic'),
];

describe.each(DIALECTS)('conditions (%s)', (dialect) => {
  const c = (sql: string, parameters = {}) => compile(dialect, sql, { filters, parameters });

  it('an unset filter becomes TRUE and binds nothing', () => {
    expect(c('SELECT 1 WHERE {[c.country]=country}')).toMatchObject({ text: 'SELECT 1 WHERE TRUE', values: [], variables: ['country'] });
    expect(c('WHERE {country=country}', pick({ country: [] })).text).toBe('WHERE TRUE');
  });

  it('one value is an equality, several an IN list, all bound in order', () => {
    expect(c('WHERE {[c.country]=country}', pick({ country: ['DE'] }))).toMatchObject({ text: `WHERE (c.country = ${ph(dialect, 1)})`, values: ['DE'] });
    const r = c('WHERE {country=country} AND {[o.qty]=qty}', pick({ country: ['DE', 'FR'], qty: ['3'] }));
    const p = dialect === 'postgres' ? ['$1', '$2', '$3'] : ['?', '?', '?'];
    expect(r.text).toBe(`WHERE (country IN (${p[0]}, ${p[1]})) AND (o.qty = ${p[2]})`);
    expect(r.values).toEqual(['DE', 'FR', 3]);
  });

  it('a selected null is IS NULL, alone or beside values', () => {
    expect(c('WHERE {c=country}', pick({ country: [null] }))).toMatchObject({ text: 'WHERE (c IS NULL)', values: [] });
    expect(c('WHERE {c=country}', pick({ country: ['DE', null] }))).toMatchObject({ text: `WHERE (c = ${ph(dialect, 1)} OR c IS NULL)`, values: ['DE'] });
    expect(c('WHERE {c=country}', pick({ country: [null, 'DE', 'FR'] })).values).toEqual(['DE', 'FR']);
  });

  it('parenthesises an expression that is not a plain column', () => {
    expect(c('WHERE {[a OR b]=country}', pick({ country: ['x'] })).text).toBe(`WHERE ((a OR b) = ${ph(dialect, 1)})`);
    expect(c("WHERE {[lower(name) || 'x']=country}", pick({ country: ['x'] })).text).toBe(`WHERE ((lower(name) || 'x') = ${ph(dialect, 1)})`);
    expect(c('WHERE {[ t.col ]=country}', pick({ country: ['x'] })).text).toBe(`WHERE (t.col = ${ph(dialect, 1)})`);
  });

  it('tolerates whitespace inside the braces', () => {
    expect(c('WHERE { [a] = country }', pick({ country: ['x'] })).text).toBe(`WHERE (a = ${ph(dialect, 1)})`);
    expect(c('WHERE {a = country}', pick({ country: ['x'] })).text).toBe(`WHERE (a = ${ph(dialect, 1)})`);
  });

  it('binds again at each use (no placeholder is shared)', () => {
    const r = c('{[a]=country} OR {[b]=country}', pick({ country: ['DE'] }));
    expect(r.text).toBe(dialect === 'postgres' ? '(a = $1) OR (b = $2)' : '(a = ?) OR (b = ?)');
    expect(r.values).toEqual(['DE', 'DE']);
  });

  it('leaves braces that are not Cairn syntax alone', () => {
    const sql = 'SELECT ARRAY[1], x->{a}, {a>=b}, {1}, {[unclosed=country}';
    expect(c(sql).text).toBe(sql);
  });
});

describe('result shape', () => {
  it('reports variables in order of first use, unknown ones separately, and the zones', () => {
    const r = compileSql({
      sql: 'SELECT {t:aggregation} WHERE {t=timerange} AND {c=country} AND {x=adhoc} AND {y=adhoc} AND {z=other}',
      dialect: 'postgres',
      filters,
      parameters: {},
    });
    expect(r.variables).toEqual(['aggregation', 'timerange', 'country', 'adhoc', 'other']);
    expect(r.unknownVariables).toEqual(['adhoc', 'other']);
    expect(r.timeZone).toBe('UTC');
    expect(r.sessionTimeZone).toBe('UTC');
    expect(r.snippets).toEqual([]);
  });

  it('an unknown variable compiles as a multi-select text filter: TRUE when unset, its selected values bound as text', () => {
    expect(compile('postgres', 'WHERE {c=adhoc} AND {adhoc.value} IS NULL')).toMatchObject({
      text: 'WHERE TRUE AND NULL IS NULL',
      values: [],
      unknownVariables: ['adhoc'],
    });
    const one = compile('postgres', 'WHERE {c=adhoc}', { parameters: pick({ adhoc: ['x'] }) });
    expect(one).toMatchObject({ text: 'WHERE (c = $1)', values: ['x'], unknownVariables: ['adhoc'] });
    const several = compile('mysql', 'WHERE {c=adhoc}', { parameters: pick({ adhoc: ['a', 7, "b'); DROP TABLE t; --"] }) });
    expect(several).toMatchObject({ text: 'WHERE (c IN (?, ?, ?))', values: ['a', '7', "b'); DROP TABLE t; --"] });
    expect(compile('postgres', 'WHERE {c=adhoc}', { parameters: pick({ adhoc: [null] }) }).text).toBe('WHERE (c IS NULL)');
    rejects(
      () => compile('postgres', 'WHERE {c=adhoc}', { parameters: pick({ adhoc: [{ a: 1 }] }) }),
      /not a text value/,
      '/parameters/filters/0/selected_values/0',
    );
    rejects(
      () => compile('postgres', 'WHERE {c=adhoc}', { parameters: { filters: [{ variable_name: 'adhoc', selected_values: 'a' as unknown as unknown[] }] } }),
      /must be a list/,
      '/parameters/filters/0/selected_values',
    );
    rejects(() => compile('postgres', 'SELECT {adhoc.start}'), /holds values, not a range/);
  });

  it('keeps the original call shape of the engine working (sql, dialect, filters, parameters)', () => {
    const r = compileSql({ sql: 'SELECT * FROM orders o WHERE {[o.country]=country}', dialect: 'postgres', filters, parameters: pick({ country: ['DE'] }) });
    expect(r.text).toBe('SELECT * FROM orders o WHERE (o.country = $1)');
    expect(r.values).toEqual(['DE']);
  });
});

describe.each(DIALECTS)('values (%s)', (dialect) => {
  const c = (sql: string, parameters = {}) => compile(dialect, sql, { filters, parameters });

  it('{var.value} binds a single value, NULL when unset', () => {
    expect(c('SELECT {qty.value}', pick({ qty: ['7'] }))).toMatchObject({ text: `SELECT ${ph(dialect, 1)}`, values: [7] });
    expect(c('SELECT {qty.value}')).toMatchObject({ text: 'SELECT NULL', values: [] });
    expect(c('SELECT {country.value}', pick({ country: ['DE'] })).values).toEqual(['DE']);
  });

  it('{var.value} of a list with several values is a 422 naming the filter', () => {
    rejects(() => c('SELECT {country.value}', pick({ country: ['DE', 'FR'] })), /Filter "country".*needs one value/, '/parameters/filters/0/selected_values');
  });

  it('{aggregation} alone is the aggregation name as a value', () => {
    expect(c('SELECT {aggregation}, {aggregation.value}', { aggregation: 'month' })).toMatchObject({
      text: `SELECT ${ph(dialect, 1)}, ${ph(dialect, 2)}`,
      values: ['month', 'month'],
    });
    expect(c('SELECT {aggregation}').values).toEqual(['day']);
  });

  it('refuses value syntax that does not fit the filter, pointing at the SQL', () => {
    rejects(() => c('SELECT {country}'), /write \{country\.value\}/, '/sql_query');
    rejects(() => c('SELECT {order_date.value}'), /is a range; use \{order_date\.start\}/);
    rejects(() => c('SELECT {qty.start}'), /holds values, not a range/);
    rejects(() => c('SELECT {qty.middle}'), /unknown selector "\.middle"/);
    rejects(() => c('SELECT {aggregation.start}'), /only the selector \.value/);
  });

  it('leaves {name} and {name.other} of unknown names alone', () => {
    expect(c('SELECT {nobody}, {nobody.thing}').text).toBe('SELECT {nobody}, {nobody.thing}');
  });

  it('refuses conditions and transformations that do not fit the variable', () => {
    rejects(() => c('WHERE {[t]=aggregation}'), /is an aggregation; use it as a transformation/);
    rejects(() => c('SELECT {[t]:country}'), /needs an aggregation/);
    rejects(() => c('WHERE {[t]=country.previous}'), /needs a range filter/);
    rejects(() => c('WHERE {[t]=timerange.later}'), /unknown condition selector "\.later"/);
    rejects(() => c('SELECT {[t]:aggregation.next}'), /takes no selector/);
  });
});

describe('dynamic dropdown SQL', () => {
  it('compiles the same way; the parent filter is an ordinary variable', () => {
    const sql = 'SELECT city, city_name FROM cities WHERE {country=parent} AND {[updated_at]=timerange} ORDER BY 2';
    const r = compile('postgres', sql, { filters, parameters: pick({ parent: ['DE'] }) });
    expect(r.text).toBe('SELECT city, city_name FROM cities WHERE (country = $1) AND TRUE ORDER BY 2');
    expect(r.values).toEqual(['DE']);
    expect(compile('mysql', sql, { filters }).text).toBe('SELECT city, city_name FROM cities WHERE TRUE AND TRUE ORDER BY 2');
  });
});

describe('time zone options', () => {
  it('validates IANA names: an unknown zone or an offset is a 422', () => {
    rejects(() => compile('postgres', 'SELECT 1', { timeZone: 'Mars/Olympus' }), /not a known IANA time zone/, '/parameters/tz');
    rejects(() => compile('postgres', 'SELECT 1', { timeZone: '+01:00' }), /not a known IANA time zone/);
    rejects(() => compile('postgres', 'SELECT 1', { dataTimeZone: "UTC'; DROP TABLE x; --" }), /not a known IANA/, '/data_time_zone');
  });

  it('canonicalises names and reports the zones used', () => {
    const r = compile('postgres', 'SELECT 1', { timeZone: 'europe/berlin', dataTimeZone: 'utc' });
    expect(r.timeZone).toBe('Europe/Berlin');
    expect(r.sessionTimeZone).toBe('UTC');
    expect(compile('postgres', 'SELECT 1', { dataTimeZone: 'America/New_York' }).timeZone).toBe('America/New_York');
  });
});
