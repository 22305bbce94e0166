import { describe, expect, it } from 'vitest';
import { compileSql, type FilterDefinition } from '../src/index.ts';

const filters: FilterDefinition[] = [
  { variable_name: 'country', control_type: 'dropdown_multi_manual', value_type: 'TEXT' },
  { variable_name: 'qty', control_type: 'input', value_type: 'NUMBER' },
  { variable_name: 'order_date', control_type: 'date_range', value_type: 'DATE' },
  { variable_name: 'at', control_type: 'date_time_range', value_type: 'DATE_TIME' },
];
const pg = (sql: string, parameters = {}) => compileSql({ sql, dialect: 'postgres', filters, parameters });
const sel = (variable_name: string, ...selected_values: unknown[]) => ({ filters: [{ variable_name, selected_values }] });

describe('conditions', () => {
  it('an unset filter becomes TRUE', () => {
    expect(pg('SELECT 1 WHERE {[c.country]=country}')).toEqual({ text: 'SELECT 1 WHERE TRUE', values: [], variables: ['country'] });
  });
  it('one value is an equality, several an IN list, all bound', () => {
    expect(pg('WHERE {[c.country]=country}', sel('country', 'DE'))).toMatchObject({ text: 'WHERE (c.country = $1)', values: ['DE'] });
    expect(pg('WHERE {country=country}', sel('country', 'DE', 'FR'))).toMatchObject({ text: 'WHERE (country IN ($1, $2))', values: ['DE', 'FR'] });
  });
  it('mysql uses ? placeholders', () => {
    const r = compileSql({ sql: 'WHERE {[a]=country} AND {[b]=qty}', dialect: 'mysql', filters, parameters: { filters: [{ variable_name: 'country', selected_values: ['x'] }, { variable_name: 'qty', selected_values: ['3'] }] } });
    expect(r).toMatchObject({ text: 'WHERE (a = ?) AND (b = ?)', values: ['x', 3] });
  });
  it('a date range ends exclusively at the next day', () => {
    const r = pg('WHERE {[o.ordered_at]=order_date}', sel('order_date', '2026-01-01', '2026-01-31'));
    expect(r.text).toBe('WHERE (o.ordered_at >= $1 AND o.ordered_at < $2)');
    expect(r.values).toEqual(['2026-01-01T00:00:00.000Z', '2026-02-01T00:00:00.000Z']);
  });
  it('an open-ended range binds one side only; start~end strings and unix times work', () => {
    expect(pg('WHERE {[t]=at}', sel('at', '1700000000~'))).toMatchObject({ text: 'WHERE (t >= $1)', values: ['2023-11-14T22:13:20.000Z'] });
    expect(pg('WHERE {[t]=timerange}', { timerange: '~1700000000' })).toMatchObject({ text: 'WHERE (t < $1)' });
  });
  it('range bounds as values', () => {
    expect(pg('SELECT {order_date.start}, {order_date.end}', sel('order_date', '2026-01-01', '2026-01-01')).values).toEqual([
      '2026-01-01T00:00:00.000Z', '2026-01-02T00:00:00.000Z',
    ]);
  });
  it('reuses nothing across placeholders: each use binds again', () => {
    expect(pg('{[a]=country} OR {[b]=country}', sel('country', 'DE')).text).toBe('(a = $1) OR (b = $2)');
  });
});

describe('values are never spliced into SQL', () => {
  const payloads = ["' OR '1'='1", "'); DROP TABLE users; --", '$1', '\\', '*/ SELECT 1 /*', '{[x]=country}', 'a\u0301'];
  for (const p of payloads) {
    it(`payload ${JSON.stringify(p)}`, () => {
      const r = pg('SELECT * FROM t WHERE {[name]=country}', sel('country', p));
      expect(r.text).toBe('SELECT * FROM t WHERE (name = $1)');
      expect(r.values).toEqual([p]);
    });
  }
  it('refuses a NUL character in text', () => {
    expect(() => pg('WHERE {[a]=country}', sel('country', 'a\u0000b'))).toThrow(/NUL/);
  });
  it('checks numbers, dates and ranges, pointing at the bad value', () => {
    try {
      pg('WHERE {[q]=qty}', sel('qty', '3; DROP'));
      throw new Error('no error');
    } catch (e: any) {
      expect(e.code).toBe('invalid_attribute');
      expect(e.source.pointer).toBe('/parameters/filters/0/selected_values/0');
    }
    expect(() => pg('WHERE {[d]=order_date}', sel('order_date', '2026-02-01', '2026-01-01'))).toThrow(/ends before/);
    expect(() => pg('WHERE {[d]=order_date}', sel('order_date', 'soon', 'later'))).toThrow(/not a unix time/);
  });
});

describe('literals and comments are left alone', () => {
  it('does not touch braces inside strings, identifiers or comments', () => {
    const sql = `SELECT '{[a]=country}', "{b=country}" -- {[c]=country}\n/* {[d]=country} */ WHERE {[e]=country}`;
    const r = pg(sql, sel('country', 'X'));
    expect(r.text).toBe(`SELECT '{[a]=country}', "{b=country}" -- {[c]=country}\n/* {[d]=country} */ WHERE (e = $1)`);
  });
  it('leaves JSON-ish braces that are not filter syntax', () => {
    expect(pg("SELECT '{}'::jsonb, ARRAY[1] WHERE x = '{a}'").text).toBe("SELECT '{}'::jsonb, ARRAY[1] WHERE x = '{a}'");
  });
});

describe('aggregation', () => {
  it('binds the unit for date_trunc and checks it', () => {
    expect(pg('SELECT {[o.at]:aggregation}', { aggregation: 'month' })).toMatchObject({ text: 'SELECT date_trunc($1, o.at)', values: ['month'] });
    expect(pg('SELECT {[o.at]:aggregation}').values).toEqual(['day']);
    expect(() => pg('SELECT {[o.at]:aggregation}', { aggregation: 'fortnight; drop' })).toThrow(/Unknown aggregation/);
  });
  it('week_sunday shifts the week start', () => {
    expect(pg('SELECT {[t]:aggregation}', { aggregation: 'week_sunday' }).text).toContain("interval '1 day'");
  });
});
