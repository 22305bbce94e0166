/**
 * Injection payloads through every way a value reaches the compiler: filter selections of every control
 * and value type, the timerange, the aggregation, the time zones, snippet arguments and the built-in
 * context. A payload is either refused (422) or appears only in `values` — never in `text`.
 */
import { describe, expect, it } from 'vitest';
import { ApiError, CONTROL_TYPES, VALUE_TYPES, compileSql, type Dialect } from '../src/index.ts';
import { DIALECTS, PAYLOADS, filter, pick } from './sql-helpers.ts';

const BASE = 'SELECT a FROM t WHERE b = 1';

/** Compiles; a refusal must be a 422 ApiError; an acceptance must keep the payload out of the text. */
function check(dialect: Dialect, payload: string, build: () => ReturnType<typeof compileSql>, boundSomewhere = true) {
  let r: ReturnType<typeof compileSql>;
  try {
    r = build();
  } catch (e) {
    expect(e, JSON.stringify(payload)).toBeInstanceOf(ApiError);
    expect((e as ApiError).status).toBe(422);
    return 'refused';
  }
  const needle = payload.length > 2 ? payload : null;
  if (needle) expect(r.text.includes(needle), `payload ${JSON.stringify(payload)} leaked into: ${r.text}`).toBe(false);
  expect(r.text.startsWith(BASE)).toBe(true);
  if (boundSomewhere)
    expect(
      r.values.some((v) => typeof v === 'string' && v.includes(payload)),
      JSON.stringify(r.values),
    ).toBe(true);
  // Nothing but placeholders and compiler-written SQL follows the user's text.
  const placeholders = dialect === 'postgres' ? /\$\d+/g : /\?/g;
  expect((r.text.match(placeholders) ?? []).length).toBeGreaterThanOrEqual(dialect === 'postgres' ? Math.min(1, r.values.length) : r.values.length);
  return 'bound';
}

describe.each(DIALECTS)('payloads through filters (%s)', (dialect) => {
  const listControls = CONTROL_TYPES.filter((c) => !c.endsWith('_range') && c !== 'date_time_aggregation');

  for (const control of listControls) {
    for (const valueType of VALUE_TYPES) {
      it(`${control} ${valueType}`, () => {
        const filters = [filter('v', control, valueType)];
        const outcomes = PAYLOADS.map((p) =>
          check(dialect, p, () => compileSql({ sql: `${BASE} AND {[c]=v} AND {v.value} IS NOT NULL`, dialect, filters, parameters: pick({ v: [p] }) })),
        );
        // Text filters bind every payload except NUL; the typed ones refuse them all.
        const textual = valueType === 'TEXT' && !control.startsWith('checkbox');
        expect(outcomes.filter((o) => o === 'bound').length).toBe(textual ? PAYLOADS.length - 1 : 0);
      });
    }
  }

  for (const control of ['date_range', 'date_time_range', 'time_range']) {
    it(`${control}`, () => {
      const filters = [filter('v', control, control === 'time_range' ? 'TIME' : control === 'date_range' ? 'DATE' : 'DATE_TIME')];
      for (const p of PAYLOADS) {
        for (const sel of [[p], [`${p}~`], [p, ''], ['', p]]) {
          expect(
            check(dialect, p, () => compileSql({ sql: `${BASE} AND {[c]=v.next} AND {v.start} < {v.end}`, dialect, filters, parameters: pick({ v: sel }) })),
          ).toBe('refused');
        }
      }
    });
  }

  it('date_time_aggregation and the built-ins timerange / aggregation', () => {
    const filters = [filter('g', 'date_time_aggregation')];
    for (const p of PAYLOADS) {
      expect(check(dialect, p, () => compileSql({ sql: `${BASE} AND {[c]:g} = {g}`, dialect, filters, parameters: pick({ g: [p] }) }))).toBe('refused');
      expect(
        check(dialect, p, () => compileSql({ sql: `${BASE} AND {[c]:aggregation} = {aggregation}`, dialect, filters: [], parameters: { aggregation: p } })),
      ).toBe('refused');
      expect(check(dialect, p, () => compileSql({ sql: `${BASE} AND {c=timerange}`, dialect, filters: [], parameters: { timerange: `${p}~` } }))).toBe(
        'refused',
      );
    }
  });

  it('time zones', () => {
    for (const p of PAYLOADS) {
      expect(check(dialect, p, () => compileSql({ sql: `${BASE} AND {[c]:aggregation}`, dialect, filters: [], parameters: {}, timeZone: p }))).toBe('refused');
      expect(check(dialect, p, () => compileSql({ sql: `${BASE} AND {[c]:aggregation}`, dialect, filters: [], parameters: {}, dataTimeZone: p }))).toBe(
        'refused',
      );
    }
  });

  it('variable names of selections that the SQL does not use are ignored', () => {
    for (const p of PAYLOADS) {
      const r = compileSql({ sql: BASE, dialect, filters: [], parameters: pick({ [p]: [p] }) });
      expect(r).toMatchObject({ text: BASE, values: [] });
    }
  });
});

describe.each(DIALECTS)('payloads through snippets and context (%s)', (dialect) => {
  const snippets = [
    { name: 's', text: 'col = {{p}}', params: ['p'] },
    { name: 'outer', text: '[s({{q}})]', params: ['q'] },
  ];
  const quote = (p: string) => `'${p.replaceAll("'", "''")}'`;

  it('a quoted snippet argument is bound (NUL refused)', () => {
    for (const p of PAYLOADS) {
      const outcome = check(dialect, p, () =>
        compileSql({ sql: `${BASE} AND [s(${quote(p)})] AND [outer(${quote(p)})]`, dialect, filters: [], parameters: {}, snippets }),
      );
      expect(outcome, JSON.stringify(p)).toBe(p.includes('\u0000') ? 'refused' : 'bound');
    }
  });

  it('an unquoted payload as a snippet argument is refused', () => {
    for (const p of PAYLOADS.filter((x) => !/^-?\d/.test(x))) {
      expect(check(dialect, p, () => compileSql({ sql: `${BASE} AND [s(${p})]`, dialect, filters: [], parameters: {}, snippets }))).toBe('refused');
    }
  });

  it('built-in snippet values from the context are bound', () => {
    for (const p of PAYLOADS) {
      const context = { userEmail: p, userFirstname: p, userLastname: p, userRole: p, dashboardName: p, dashboardId: p };
      const r = compileSql({ sql: `${BASE} AND [CAIRN_USER_EMAIL] = [CAIRN_DASHBOARD_NAME]`, dialect, filters: [], parameters: {}, context });
      expect(r.text).toBe(`${BASE} AND ${dialect === 'postgres' ? '$1 = $2' : '? = ?'}`);
      expect(r.values).toEqual([p, p]);
    }
  });
});
