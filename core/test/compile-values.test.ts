/**
 * Every control type × value type, both dialects: what a selection compiles to, which values are bound,
 * and which inputs are refused (422 naming the filter, pointing at the value).
 */
import { describe, expect, it } from 'vitest';
import { CONTROL_TYPES, SINGLE_VALUE_CONTROLS, VALUE_TYPES, type Dialect } from '../src/index.ts';
import { DIALECTS, compile, filter, ph, pick, rejects } from './sql-helpers.ts';

/** Per value type: inputs accepted with the value bound per dialect, and inputs refused. */
const SAMPLES: Record<string, { ok: [unknown, unknown, unknown][]; bad: unknown[] }> = {
  // [input, bound on postgres, bound on mysql]
  TEXT: {
    ok: [
      ['DE', 'DE', 'DE'],
      [42, '42', '42'],
      [true, 'true', 'true'],
      ['', '', ''],
      ['Zoë 🚀', 'Zoë 🚀', 'Zoë 🚀'],
    ],
    bad: [{ a: 1 }, ['x'], 'a\u0000b'],
  },
  NUMBER: {
    ok: [
      ['42', 42, 42],
      [-3.5, -3.5, -3.5],
      [' 7 ', 7, 7],
      ['1e3', 1000, 1000],
      ['12345678901234567890', '12345678901234567890', '12345678901234567890'],
    ],
    bad: ['4x', '', 'NaN', 'Infinity', '0x10', true, Number.POSITIVE_INFINITY, {}],
  },
  BOOLEAN: {
    ok: [
      ['true', true, true],
      [false, false, false],
      ['FALSE', false, false],
      [1, true, true],
      ['0', false, false],
    ],
    bad: ['yes', 'maybe', 2, ''],
  },
  DATE: {
    ok: [
      ['2024-02-29', '2024-02-29', '2024-02-29'],
      [1709164800, '2024-02-29', '2024-02-29'],
      ['1709164800', '2024-02-29', '2024-02-29'],
    ],
    bad: ['2023-02-29', '2024-13-01', '29.02.2024', 'today', '0999-12-31'],
  },
  TIME: {
    ok: [
      ['07:30', '07:30:00', '07:30:00'],
      ['23:59:59', '23:59:59', '23:59:59'],
      ['00:00', '00:00:00', '00:00:00'],
    ],
    bad: ['24:00', '7:30', '07:60', '12:00:60', 'noon', 450],
  },
  DATE_TIME: {
    ok: [
      ['2024-01-01T12:00:00Z', '2024-01-01 12:00:00+00:00', '2024-01-01 12:00:00'],
      ['2024-01-01 14:00:00+02:00', '2024-01-01 12:00:00+00:00', '2024-01-01 12:00:00'],
      [1704110400, '2024-01-01 12:00:00+00:00', '2024-01-01 12:00:00'],
      ['1704110400.5', '2024-01-01 12:00:00.500+00:00', '2024-01-01 12:00:00.500'],
      ['2024-01-01T12:00', '2024-01-01 12:00:00+00:00', '2024-01-01 12:00:00'],
      ['2024-01-01', '2024-01-01 00:00:00+00:00', '2024-01-01 00:00:00'],
    ],
    bad: ['noon', '2024-01-01T25:00:00Z', '2024-02-30T10:00:00Z', '99999999999999', {}],
  },
};

const LIST_CONTROLS = CONTROL_TYPES.filter((c) => !c.endsWith('_range') && c !== 'date_time_aggregation' && !c.startsWith('checkbox'));

describe.each(DIALECTS)('list controls × value types (%s)', (dialect: Dialect) => {
  for (const control of LIST_CONTROLS) {
    const single = (SINGLE_VALUE_CONTROLS as readonly string[]).includes(control);
    for (const valueType of VALUE_TYPES) {
      const sample = SAMPLES[valueType]!;
      const f = [filter('v', control, valueType)];
      const c = (values: unknown[]) => compile(dialect, 'WHERE {[x]=v}', { filters: f, parameters: pick({ v: values }) });

      it(`${control} ${valueType}: each accepted value is bound as its type`, () => {
        for (const [input, pg, my] of sample.ok) {
          const r = c([input]);
          expect(r.text, JSON.stringify(input)).toBe(`WHERE (x = ${ph(dialect, 1)})`);
          expect(r.values, JSON.stringify(input)).toEqual([dialect === 'postgres' ? pg : my]);
        }
        expect(c([]).text).toBe('WHERE TRUE');
      });

      it(`${control} ${valueType}: refused values are a 422 naming the filter and the value`, () => {
        for (const bad of sample.bad) {
          const at = single ? 0 : 1;
          const values = single ? [bad] : [sample.ok[0]![0], bad];
          rejects(() => c(values), /^Filter "v": /, `/parameters/filters/0/selected_values/${at}`);
        }
      });

      it(`${control} ${valueType}: ${single ? 'takes one value' : 'takes a list'}`, () => {
        const two = [sample.ok[0]![0], sample.ok[1]![0]];
        if (single) {
          rejects(() => c(two), /takes one value; 2 were given/, '/parameters/filters/0/selected_values');
        } else {
          const r = c(two);
          expect(r.text).toBe(`WHERE (x IN (${ph(dialect, 1)}, ${ph(dialect, 2)}))`);
          const idx = dialect === 'postgres' ? 1 : 2;
          expect(r.values).toEqual([sample.ok[0]![idx], sample.ok[1]![idx]]);
        }
      });
    }
  }
});

describe.each(DIALECTS)('checkboxes (%s)', (dialect) => {
  for (const control of ['checkbox', 'checkbox_two_way']) {
    // The value type of a checkbox is always BOOLEAN, whatever the definition says.
    for (const valueType of VALUE_TYPES) {
      const f = [filter('flag', control, valueType)];
      const c = (sql: string, values?: unknown[]) => compile(dialect, sql, { filters: f, parameters: values ? pick({ flag: values }) : {} });

      it(`${control} (${valueType}) compares with a bound boolean`, () => {
        expect(c('WHERE {enabled=flag}', ['true'])).toMatchObject({ text: `WHERE (enabled = ${ph(dialect, 1)})`, values: [true] });
        expect(c('WHERE {enabled=flag}', [false])).toMatchObject({ values: [false] });
        expect(c('WHERE {enabled=flag}').text).toBe('WHERE TRUE');
        rejects(() => c('WHERE {enabled=flag}', ['DE']), /Filter "flag": "DE" is not a boolean/);
        rejects(() => c('WHERE {enabled=flag}', [true, false]), /takes one value/);
      });

      it(`${control} (${valueType}): .value is the checkbox state, false when unset`, () => {
        expect(c('SELECT {flag.value}', [true]).values).toEqual([true]);
        expect(c('SELECT {flag.value}')).toMatchObject({ text: `SELECT ${ph(dialect, 1)}`, values: [false] });
      });
    }
  }
});

describe.each(DIALECTS)('range controls (%s)', (dialect) => {
  const cases: [string, string, unknown[], unknown[], unknown[]][] = [
    // control, value type, selection, bounds on postgres, bounds on mysql
    ['date_range', 'DATE', ['2024-01-01', '2024-01-31'], ['2024-01-01', '2024-02-01'], ['2024-01-01', '2024-02-01']],
    [
      'date_time_range',
      'DATE_TIME',
      ['2024-01-01T00:00:00Z~2024-01-01T23:59:59Z'],
      ['2024-01-01 00:00:00+00:00', '2024-01-02 00:00:00+00:00'],
      ['2024-01-01 00:00:00', '2024-01-02 00:00:00'],
    ],
    ['time_range', 'TIME', ['13:00~13:59:59'], ['13:00:00', '14:00:00'], ['13:00:00', '14:00:00']],
  ];
  for (const [control, valueType, selection, pg, my] of cases) {
    const f = [filter('r', control, valueType)];
    const c = (sql: string, values?: unknown[]) => compile(dialect, sql, { filters: f, parameters: values ? pick({ r: values }) : {} });

    it(`${control}: >= start AND < the end's next unit`, () => {
      const r = c('WHERE {x=r}', selection);
      expect(r.text).toBe(`WHERE (x >= ${ph(dialect, 1)} AND x < ${ph(dialect, 2)})`);
      expect(r.values).toEqual(dialect === 'postgres' ? pg : my);
      expect(c('WHERE {x=r}').text).toBe('WHERE TRUE');
    });

    it(`${control}: a backwards range or a bad bound is a 422 naming the filter`, () => {
      rejects(() => c('WHERE {x=r}', ['nonsense~']), /^Filter "r": "nonsense" is not/);
      rejects(() => c('WHERE {x=r}', [1, 2, 3]), /a range is written "start~end"/);
    });
  }

  it('a time range ending at 23:59:59 ends at 24:00:00', () => {
    const r = compile(dialect, 'WHERE {t=r}', { filters: [filter('r', 'time_range', 'TIME')], parameters: pick({ r: ['22:00', '23:59:59'] }) });
    expect(r.values).toEqual(['22:00:00', '24:00:00']);
  });

  it('refuses a range whose end is before its start', () => {
    rejects(
      () => compile(dialect, 'WHERE {t=r}', { filters: [filter('r', 'time_range', 'TIME')], parameters: pick({ r: ['14:00~13:00'] }) }),
      /ends before it starts/,
    );
    rejects(
      () => compile(dialect, 'WHERE {t=r}', { filters: [filter('r', 'date_range', 'DATE')], parameters: pick({ r: ['2024-02-01', '2024-01-31'] }) }),
      /ends before it starts/,
    );
  });
});

describe.each(DIALECTS)('single date, time and date-time controls (%s)', (dialect) => {
  it('date, time and date_time controls bind one value of their type', () => {
    const f = [filter('d', 'date', 'DATE'), filter('t', 'time', 'TIME'), filter('dt', 'date_time', 'DATE_TIME')];
    const r = compile(dialect, 'WHERE {a=d} AND {b=t} AND {c=dt}', {
      filters: f,
      parameters: pick({ d: ['2024-03-31'], t: ['12:34:56'], dt: ['2024-03-31T12:00:00+02:00'] }),
    });
    expect(r.values).toEqual(['2024-03-31', '12:34:56', dialect === 'postgres' ? '2024-03-31 10:00:00+00:00' : '2024-03-31 10:00:00']);
  });

  it('a date-time without offset is a local time of the dashboard zone, written in the data zone', () => {
    const f = [filter('dt', 'date_time', 'DATE_TIME')];
    const r = compile(dialect, 'WHERE {c=dt}', {
      filters: f,
      parameters: pick({ dt: ['2024-07-01T12:00'] }),
      timeZone: 'Europe/Berlin',
      dataTimeZone: 'America/New_York',
    });
    expect(r.values).toEqual([dialect === 'postgres' ? '2024-07-01 06:00:00-04:00' : '2024-07-01 06:00:00']);
  });

  it('a unix date is the calendar day in the dashboard zone', () => {
    const f = [filter('d', 'date', 'DATE')];
    // 2024-03-30T23:30Z is already March 31 in Berlin.
    const r = compile(dialect, 'WHERE {c=d}', { filters: f, parameters: pick({ d: [1711841400] }), timeZone: 'Europe/Berlin' });
    expect(r.values).toEqual(['2024-03-31']);
  });
});

describe('defensive input handling', () => {
  it('refuses selected_values that are not a list', () => {
    rejects(
      () =>
        compile('postgres', 'WHERE {c=v}', {
          filters: [filter('v', 'dropdown')],
          parameters: { filters: [{ variable_name: 'v', selected_values: 'DE' as unknown as unknown[] }] },
        }),
      /selected_values must be a list/,
    );
  });

  it('uses the first selection when a variable is given twice and ignores unused ones', () => {
    const r = compile('postgres', 'WHERE {c=v}', {
      filters: [filter('v', 'dropdown')],
      parameters: {
        filters: [
          { variable_name: 'zzz', selected_values: [{}] },
          { variable_name: 'v', selected_values: ['a'] },
          { variable_name: 'v', selected_values: ['b'] },
        ],
      },
    });
    expect(r.values).toEqual(['a']);
  });
});
