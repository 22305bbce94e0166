/**
 * Ranges: open ends, exclusive ends at the next unit, time zones (Europe/Berlin across both DST changes
 * of 2024), data time zones, and the .previous / .next neighbours.
 */
import { describe, expect, it } from 'vitest';
import type { Dialect } from '../src/index.ts';
import { DIALECTS, compile, filter, ph, pick, rejects, unix } from './sql-helpers.ts';

const BERLIN = 'Europe/Berlin';
/** How an instant (given as a UTC ISO string) is bound for a dialect with the data zone UTC. */
const utc = (dialect: Dialect, iso: string) => {
  const s = iso.replace('T', ' ').replace(/\.000Z$|Z$/, '');
  return dialect === 'postgres' ? `${s}+00:00` : s;
};
const tr = (dialect: Dialect, sql: string, timerange: string, timeZone?: string) => compile(dialect, sql, { parameters: { timerange }, timeZone });

describe.each(DIALECTS)('timerange (%s)', (dialect) => {
  it('open on either side, or on both (TRUE)', () => {
    expect(tr(dialect, 'WHERE {t=timerange}', '1700000000~')).toMatchObject({
      text: `WHERE (t >= ${ph(dialect, 1)})`,
      values: [utc(dialect, '2023-11-14T22:13:20Z')],
    });
    // A unix end is the last second included: the bound is one second later.
    expect(tr(dialect, 'WHERE {t=timerange}', '~1700000000')).toMatchObject({
      text: `WHERE (t < ${ph(dialect, 1)})`,
      values: [utc(dialect, '2023-11-14T22:13:21Z')],
    });
    expect(tr(dialect, 'WHERE {t=timerange}', '~').text).toBe('WHERE TRUE');
    expect(compile(dialect, 'WHERE {t=timerange}').text).toBe('WHERE TRUE');
  });

  it('a Berlin day across the spring-forward change has 23 hours', () => {
    const byDate = tr(dialect, 'WHERE {t=timerange}', '2024-03-31~2024-03-31', BERLIN);
    expect(byDate.text).toBe(`WHERE (t >= ${ph(dialect, 1)} AND t < ${ph(dialect, 2)})`);
    expect(byDate.values).toEqual([utc(dialect, '2024-03-30T23:00:00Z'), utc(dialect, '2024-03-31T22:00:00Z')]);
    const byUnix = tr(dialect, 'WHERE {t=timerange}', `${unix('2024-03-30T23:00:00Z')}~${unix('2024-03-31T21:59:59Z')}`, BERLIN);
    expect(byUnix.values).toEqual(byDate.values);
    const byLocal = tr(dialect, 'WHERE {t=timerange}', '2024-03-31T00:00:00~2024-03-31T23:59:59', BERLIN);
    expect(byLocal.values).toEqual(byDate.values);
  });

  it('its neighbours are whole days too (24 hours each)', () => {
    const sql = 'WHERE {t=timerange.previous} OR {t=timerange.next}';
    expect(tr(dialect, sql, '2024-03-31~2024-03-31', BERLIN).values).toEqual([
      utc(dialect, '2024-03-29T23:00:00Z'),
      utc(dialect, '2024-03-30T23:00:00Z'),
      utc(dialect, '2024-03-31T22:00:00Z'),
      utc(dialect, '2024-04-01T22:00:00Z'),
    ]);
  });

  it('a Berlin day across the fall-back change has 25 hours, and so does the neighbour reaching it', () => {
    expect(tr(dialect, 'WHERE {t=timerange}', '2024-10-27~2024-10-27', BERLIN).values).toEqual([
      utc(dialect, '2024-10-26T22:00:00Z'),
      utc(dialect, '2024-10-27T23:00:00Z'),
    ]);
    expect(tr(dialect, 'WHERE {t=timerange.next}', '2024-10-26~2024-10-26', BERLIN).values).toEqual([
      utc(dialect, '2024-10-26T22:00:00Z'),
      utc(dialect, '2024-10-27T23:00:00Z'),
    ]);
  });

  it('whole months step by calendar months (January → December and February)', () => {
    const sql = 'WHERE {t=timerange} OR {t=timerange.previous} OR {t=timerange.next}';
    expect(tr(dialect, sql, '2024-01-01~2024-01-31', BERLIN).values).toEqual([
      utc(dialect, '2023-12-31T23:00:00Z'),
      utc(dialect, '2024-01-31T23:00:00Z'),
      utc(dialect, '2023-11-30T23:00:00Z'),
      utc(dialect, '2023-12-31T23:00:00Z'),
      utc(dialect, '2024-01-31T23:00:00Z'),
      utc(dialect, '2024-02-29T23:00:00Z'),
    ]);
  });

  it('a quarter steps by three months, across DST', () => {
    const sql = 'WHERE {t=timerange.previous} OR {t=timerange.next}';
    expect(tr(dialect, sql, '2024-01-01~2024-03-31', BERLIN).values).toEqual([
      utc(dialect, '2023-09-30T22:00:00Z'),
      utc(dialect, '2023-12-31T23:00:00Z'),
      utc(dialect, '2024-03-31T22:00:00Z'),
      utc(dialect, '2024-06-30T22:00:00Z'),
    ]);
  });

  it('other ranges step by their duration', () => {
    const sql = 'WHERE {t=timerange.previous} OR {t=timerange.next}';
    expect(tr(dialect, sql, '2024-01-01T10:00:00Z~2024-01-01T11:59:59Z').values).toEqual([
      utc(dialect, '2024-01-01T08:00:00Z'),
      utc(dialect, '2024-01-01T10:00:00Z'),
      utc(dialect, '2024-01-01T12:00:00Z'),
      utc(dialect, '2024-01-01T14:00:00Z'),
    ]);
  });

  it('neighbours of open ranges: the other side, or nothing (FALSE)', () => {
    const s = '2024-01-01T00:00:00Z';
    expect(tr(dialect, 'WHERE {t=timerange.previous}', `${s}~`)).toMatchObject({ text: `WHERE (t < ${ph(dialect, 1)})`, values: [utc(dialect, s)] });
    expect(tr(dialect, 'WHERE {t=timerange.next}', `${s}~`)).toMatchObject({ text: 'WHERE FALSE', values: [] });
    expect(tr(dialect, 'WHERE {t=timerange.previous}', `~${s}`)).toMatchObject({ text: 'WHERE FALSE', values: [] });
    expect(tr(dialect, 'WHERE {t=timerange.next}', `~2023-12-31T23:59:59Z`)).toMatchObject({
      text: `WHERE (t >= ${ph(dialect, 1)})`,
      values: [utc(dialect, s)],
    });
    expect(compile(dialect, 'WHERE {t=timerange.next}').text).toBe('WHERE TRUE');
  });

  it('{timerange.start} / {timerange.end} are the bounds (end exclusive), NULL when open', () => {
    const r = tr(dialect, 'SELECT {timerange.start}, {timerange.end}', '2024-03-31~2024-03-31', BERLIN);
    expect(r.text).toBe(`SELECT ${ph(dialect, 1)}, ${ph(dialect, 2)}`);
    expect(r.values).toEqual([utc(dialect, '2024-03-30T23:00:00Z'), utc(dialect, '2024-03-31T22:00:00Z')]);
    expect(tr(dialect, 'SELECT {timerange.start}, {timerange.end}', '~1700000000')).toMatchObject({ text: `SELECT NULL, ${ph(dialect, 1)}` });
  });

  it('bounds are written in the data time zone', () => {
    const r = compile(dialect, 'WHERE {t=timerange}', {
      parameters: { timerange: '2024-07-01~2024-07-01' },
      timeZone: BERLIN,
      dataTimeZone: 'America/New_York',
    });
    expect(r.values).toEqual(
      dialect === 'postgres' ? ['2024-06-30 18:00:00-04:00', '2024-07-01 18:00:00-04:00'] : ['2024-06-30 18:00:00', '2024-07-01 18:00:00'],
    );
    expect(r.sessionTimeZone).toBe('America/New_York');
  });

  it('unix bounds are absolute: the dashboard zone does not move them', () => {
    const range = `${unix('2024-01-01T00:00:00Z')}~`;
    expect(tr(dialect, 'WHERE {t=timerange}', range, 'Asia/Tokyo').values).toEqual(tr(dialect, 'WHERE {t=timerange}', range).values);
  });

  it('refuses bad timeranges with a pointer at the parameter', () => {
    rejects(() => tr(dialect, 'WHERE {t=timerange}', '1700000000'), /a range is written "start~end"/, '/parameters/timerange');
    rejects(() => tr(dialect, 'WHERE {t=timerange}', '1700000000~1600000000'), /ends before it starts/, '/parameters/timerange');
    rejects(() => tr(dialect, 'WHERE {t=timerange}', '-99999999999~'), /outside the years 1000 to 9999/);
    rejects(() => tr(dialect, 'WHERE {t=timerange}', 'yesterday~today'), /"yesterday" is not a unix time/);
  });
});

describe.each(DIALECTS)('date ranges (%s)', (dialect) => {
  const f = [filter('d', 'date_range', 'DATE')];
  const c = (sql: string, values: unknown[], timeZone?: string) => compile(dialect, sql, { filters: f, parameters: pick({ d: values }), timeZone });
  /** Date bounds are calendar dates on both dialects. */
  const day = (date: string) => date;

  it('end exclusive at the next day; open sides', () => {
    expect(c('WHERE {x=d}', ['2024-01-31', '2024-01-31']).values).toEqual([day('2024-01-31'), day('2024-02-01')]);
    expect(c('WHERE {x=d}', ['~2024-12-31'])).toMatchObject({ text: `WHERE (x < ${ph(dialect, 1)})`, values: [day('2025-01-01')] });
    expect(c('WHERE {x=d}', ['2024-12-31~'])).toMatchObject({ text: `WHERE (x >= ${ph(dialect, 1)})`, values: [day('2024-12-31')] });
  });

  it('bounds are calendar dates, whatever the dashboard zone', () => {
    expect(c('WHERE {x=d}', ['2024-03-31~2024-03-31'], BERLIN).values).toEqual(['2024-03-31', '2024-04-01']);
    expect(c('WHERE {x=d}', ['2024-03-31~2024-03-31'], 'Pacific/Kiritimati').values).toEqual(['2024-03-31', '2024-04-01']);
  });

  it('unix bounds are read as calendar days of the dashboard zone', () => {
    const r = c('WHERE {x=d}', [`${unix('2024-03-30T23:00:00Z')}~${unix('2024-03-31T21:59:59Z')}`], BERLIN);
    expect(r.values).toEqual([day('2024-03-31'), day('2024-04-01')]);
  });

  it('neighbours: whole months by months, other ranges by days', () => {
    expect(c('WHERE {x=d.previous} OR {x=d.next}', ['2024-02-01', '2024-02-29']).values).toEqual([
      day('2024-01-01'),
      day('2024-02-01'),
      day('2024-03-01'),
      day('2024-04-01'),
    ]);
    expect(c('WHERE {x=d.previous} OR {x=d.next}', ['2024-01-10', '2024-01-16']).values).toEqual([
      day('2024-01-03'),
      day('2024-01-10'),
      day('2024-01-17'),
      day('2024-01-24'),
    ]);
    expect(c('WHERE {x=d.next}', ['2024-01-31', '2024-01-31']).values).toEqual([day('2024-02-01'), day('2024-02-02')]);
  });

  it('the two documented forms are the same range: "start~end", or [start, end] with null or "" for an open side', () => {
    const same = (a: unknown[], b: unknown[]) => expect(c('WHERE {x=d}', a)).toEqual(c('WHERE {x=d}', b));
    same(['2025-01-01~2025-01-31'], ['2025-01-01', '2025-01-31']);
    same(['2025-01-01~'], ['2025-01-01', null]);
    same(['2025-01-01~'], ['2025-01-01', '']);
    same(['~2025-01-31'], [null, '2025-01-31']);
    expect(c('WHERE {x=d}', ['2025-01-01~2025-01-31']).values).toEqual([day('2025-01-01'), day('2025-02-01')]);
  });

  it('{d.start} and {d.end} are dates (end exclusive)', () => {
    expect(c('SELECT {d.start}, {d.end}', ['2024-01-01', '2024-01-31']).values).toEqual(['2024-01-01', '2024-02-01']);
  });
});

describe.each(DIALECTS)('time-of-day ranges (%s)', (dialect) => {
  const f = [filter('t', 'time_range', 'TIME')];
  const c = (sql: string, range: string) => compile(dialect, sql, { filters: f, parameters: pick({ t: [range] }) });

  it('neighbours stay inside the day', () => {
    expect(c('WHERE {x=t.previous} OR {x=t.next}', '10:00~11:59:59').values).toEqual(['08:00:00', '10:00:00', '12:00:00', '14:00:00']);
    expect(c('WHERE {x=t.previous}', '01:00~02:59:59').values).toEqual(['00:00:00', '01:00:00']);
    expect(c('WHERE {x=t.previous}', '00:00~01:59:59').text).toBe('WHERE FALSE');
    expect(c('WHERE {x=t.next}', '22:30~23:59:59').text).toBe('WHERE FALSE');
    expect(c('WHERE {x=t.next}', '20:00~22:59:59').values).toEqual(['23:00:00', '24:00:00']);
  });

  it('{t.start} and {t.end}', () => {
    expect(c('SELECT {t.start}, {t.end}', '08:15~')).toMatchObject({ text: `SELECT ${ph(dialect, 1)}, NULL`, values: ['08:15:00'] });
  });
});
