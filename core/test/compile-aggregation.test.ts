/** Transformations: every aggregation per dialect, time zone conversion, all_time and allowed lists. */
import { describe, expect, it } from 'vitest';
import { AGGREGATIONS } from '../src/index.ts';
import { compile, filter, pick, rejects } from './sql-helpers.ts';

const agg = (dialect: 'postgres' | 'mysql', aggregation: string, extra = {}) =>
  compile(dialect, 'SELECT {[o.at]:aggregation}', { parameters: { aggregation }, aggregationOptions: [...AGGREGATIONS], ...extra });

describe('postgres buckets', () => {
  const expected: Record<string, string> = {
    second: "date_trunc('second', (o.at))",
    minute: "date_trunc('minute', (o.at))",
    hour: "date_trunc('hour', (o.at))",
    day: "date_trunc('day', (o.at))",
    week: "date_trunc('week', (o.at))",
    week_sunday: "(date_trunc('week', (o.at) + interval '1 day') - interval '1 day')",
    month: "date_trunc('month', (o.at))",
    quarter: "date_trunc('quarter', (o.at))",
    year: "date_trunc('year', (o.at))",
    all_time: 'CAST(NULL AS timestamp)',
  };
  for (const a of AGGREGATIONS) {
    it(`${a} in the data time zone: fixed SQL, nothing bound`, () => {
      expect(agg('postgres', a)).toMatchObject({ text: `SELECT ${expected[a]}`, values: [] });
    });
  }

  it('converts into the dashboard zone first, with one shared zone parameter', () => {
    const r = compile('postgres', 'SELECT {[o.at]:aggregation}, count(*) FROM o WHERE {o.at=timerange} GROUP BY {[o.at]:aggregation}', {
      parameters: { aggregation: 'week_sunday', timerange: '1700000000~' },
      timeZone: 'Europe/Berlin',
    });
    const bucket = "(date_trunc('week', ((o.at)::timestamptz AT TIME ZONE $1) + interval '1 day') - interval '1 day')";
    expect(r.text).toBe(`SELECT ${bucket}, count(*) FROM o WHERE (o.at >= $2) GROUP BY ${bucket}`);
    expect(r.values).toEqual(['Europe/Berlin', '2023-11-14 22:13:20+00:00']);
    expect(compile('postgres', 'SELECT {[t]:aggregation}', { parameters: { aggregation: 'hour' }, timeZone: 'Asia/Tokyo' }).text).toBe(
      "SELECT date_trunc('hour', ((t)::timestamptz AT TIME ZONE $1))",
    );
  });
});

describe('mysql buckets', () => {
  const expected: Record<string, string> = {
    second: "CAST(DATE_FORMAT((o.at), '%Y-%m-%d %H:%i:%s') AS DATETIME)",
    minute: "CAST(DATE_FORMAT((o.at), '%Y-%m-%d %H:%i:00') AS DATETIME)",
    hour: "CAST(DATE_FORMAT((o.at), '%Y-%m-%d %H:00:00') AS DATETIME)",
    day: 'CAST(DATE((o.at)) AS DATETIME)',
    week: 'CAST(DATE((o.at)) - INTERVAL WEEKDAY((o.at)) DAY AS DATETIME)',
    week_sunday: 'CAST(DATE((o.at)) - INTERVAL (DAYOFWEEK((o.at)) - 1) DAY AS DATETIME)',
    month: "CAST(DATE_FORMAT((o.at), '%Y-%m-01 00:00:00') AS DATETIME)",
    quarter: 'CAST(MAKEDATE(YEAR((o.at)), 1) + INTERVAL (QUARTER((o.at)) - 1) QUARTER AS DATETIME)',
    year: "CAST(DATE_FORMAT((o.at), '%Y-01-01 00:00:00') AS DATETIME)",
    all_time: 'CAST(NULL AS DATETIME)',
  };
  for (const a of AGGREGATIONS) {
    it(`${a} in the data time zone: fixed SQL, nothing bound`, () => {
      expect(agg('mysql', a)).toMatchObject({ text: `SELECT ${expected[a]}`, values: [] });
    });
  }

  it('a zone without offset changes is a constant shift', () => {
    expect(agg('mysql', 'day', { timeZone: 'Asia/Tokyo' }).text).toBe('SELECT CAST(DATE(((o.at) + INTERVAL 32400 SECOND)) AS DATETIME)');
    expect(agg('mysql', 'day', { timeZone: 'Asia/Tokyo', dataTimeZone: 'Asia/Kolkata' }).text).toBe(
      'SELECT CAST(DATE(((o.at) + INTERVAL 12600 SECOND)) AS DATETIME)',
    );
  });

  it('a zone with DST looks its offset up from the UTC seconds (no CONVERT_TZ, no time zone tables)', () => {
    const r = agg('mysql', 'day', { timeZone: 'Europe/Berlin' });
    expect(r.values).toEqual([]);
    expect(r.text).not.toContain('CONVERT_TZ');
    const m =
      /^SELECT CAST\(DATE\(\(\(o\.at\) \+ INTERVAL \(CAST\(ELT\(INTERVAL\(TO_SECONDS\(o\.at\), ([\d, ]+)\) \+ 1, ([\d, -]+)\) AS SIGNED\) - 0\) SECOND\)\) AS DATETIME\)$/.exec(
        r.text,
      );
    expect(m, r.text.slice(0, 200)).not.toBeNull();
    const bounds = m![1]!.split(', ').map(Number);
    const offsets = m![2]!.split(', ').map(Number);
    expect(offsets.length).toBe(bounds.length + 1);
    expect([...bounds].sort((a, b) => a - b)).toEqual(bounds);
    // 2024-03-31T01:00:00Z in TO_SECONDS: the switch to +02:00.
    const i = bounds.indexOf(Date.parse('2024-03-31T01:00:00Z') / 1000 + 62_167_219_200);
    expect(i).toBeGreaterThan(0);
    expect(offsets[i]).toBe(3600);
    expect(offsets[i + 1]).toBe(7200);
  });

  it('a data zone with DST is looked up by its wall clock first', () => {
    const r = agg('mysql', 'hour', { timeZone: 'UTC', dataTimeZone: 'America/New_York' });
    // UTC target: its offset is the constant 0, the data zone's is looked up once.
    expect(r.text.match(/ELT\(INTERVAL\(/g)?.length).toBe(1);
    expect(r.text).toContain('(0 - CAST(ELT(INTERVAL(TO_SECONDS(o.at), ');
    // Berlin target: the data zone's offset twice (to reach UTC, and in the shift), Berlin's once, on the UTC seconds.
    const both = agg('mysql', 'hour', { timeZone: 'Europe/Berlin', dataTimeZone: 'America/New_York' });
    expect(both.text.match(/ELT\(INTERVAL\(/g)?.length).toBe(3);
    expect(both.text).toContain('ELT(INTERVAL((TO_SECONDS(o.at) - CAST(ELT(INTERVAL(TO_SECONDS(o.at), ');
  });
});

describe('which aggregations are accepted', () => {
  it('the built-in aggregation defaults to day; all_time only when the dashboard offers it', () => {
    expect(compile('postgres', 'SELECT {[t]:aggregation}').text).toBe("SELECT date_trunc('day', (t))");
    rejects(
      () => compile('postgres', 'SELECT {[t]:aggregation}', { parameters: { aggregation: 'all_time' } }),
      /all_time aggregation is not enabled/,
      '/parameters/aggregation',
    );
    expect(compile('postgres', 'SELECT {[t]:aggregation}', { parameters: { aggregation: 'all_time' }, aggregationOptions: ['day', 'all_time'] }).text).toBe(
      'SELECT CAST(NULL AS timestamp)',
    );
  });

  it('the dashboard aggregation options limit the choice', () => {
    rejects(
      () => compile('mysql', 'SELECT {[t]:aggregation}', { parameters: { aggregation: 'hour' }, aggregationOptions: ['month', 'year'] }),
      /"hour" is not offered here; use one of month, year/,
    );
    // Unset, with day not offered: the first option.
    expect(compile('postgres', 'SELECT {[t]:aggregation}', { aggregationOptions: ['month', 'year'] }).text).toBe("SELECT date_trunc('month', (t))");
  });

  it('unknown aggregations are refused', () => {
    for (const bad of ['fortnight', "day'; DROP TABLE x; --", 'DAY', 7]) {
      rejects(
        () => compile('postgres', 'SELECT {[t]:aggregation}', { parameters: { aggregation: bad as string } }),
        /is not an aggregation; use one of second, minute/,
        '/parameters/aggregation',
      );
    }
  });

  it('a date_time_aggregation filter: its allowed_aggregations and default', () => {
    const f = [filter('grain', 'date_time_aggregation', 'TEXT', { allowed_aggregations: ['week', 'month', 'all_time'], default_values: ['month'] })];
    const c = (values?: unknown[]) => compile('postgres', 'SELECT {[t]:grain}, {grain}', { filters: f, parameters: values ? pick({ grain: values }) : {} });
    expect(c()).toMatchObject({ text: "SELECT date_trunc('month', (t)), $1", values: ['month'] });
    expect(c(['week']).text).toBe("SELECT date_trunc('week', (t)), $1");
    expect(c(['all_time']).text).toBe('SELECT CAST(NULL AS timestamp), $1');
    rejects(() => c(['day']), /Filter "grain": the aggregation "day" is not offered here/, '/parameters/filters/0/selected_values');
    const noAllTime = [filter('grain', 'date_time_aggregation', 'TEXT')];
    rejects(
      () => compile('mysql', 'SELECT {[t]:grain}', { filters: noAllTime, parameters: pick({ grain: ['all_time'] }) }),
      /all_time aggregation is not enabled/,
    );
    expect(compile('mysql', 'SELECT {t:grain}', { filters: noAllTime }).text).toBe('SELECT CAST(DATE((t)) AS DATETIME)');
  });
});
