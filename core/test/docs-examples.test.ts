/**
 * Every SQL example of the user manual's filter, SQL-snippet and time-zone pages
 * (docs/pages/filters, docs/pages/sql-snippets, docs/pages/time-zones), copied as written, compiles
 * with the parameter compiler; where a page states the outcome (the SQL or the values the database
 * receives, an error), that outcome is asserted too. When a page's example changes, change it here.
 */
import { describe, expect, it } from 'vitest';
import { ApiError } from '../src/errors.ts';
import { compileSql, type CompileOptions } from '../src/sql/compile.ts';
import type { FilterDefinition } from '../src/sql/params.ts';
import type { SnippetDefinition } from '../src/sql/snippets.ts';

const f = (variable_name: string, control_type: string, value_type = 'TEXT', extra: Partial<FilterDefinition> = {}): FilterDefinition => ({
  variable_name,
  control_type,
  value_type,
  ...extra,
});

/** The filters the pages define in their examples (the `-- Filter:` comments and the prose). */
const FILTERS: FilterDefinition[] = [
  f('country', 'dropdown_multi', 'TEXT'),
  f('order_status', 'dropdown_multi_manual', 'TEXT'),
  f('city', 'dropdown_multi_dynamic', 'TEXT'),
  f('converted_only', 'checkbox', 'BOOLEAN'),
  f('large_orders_only', 'checkbox', 'BOOLEAN'),
  f('converted', 'checkbox_two_way', 'BOOLEAN'),
  f('repeat_customer', 'checkbox_two_way', 'BOOLEAN'),
  f('order_id', 'input_multi', 'NUMBER'),
  f('email', 'input', 'TEXT'),
  f('customer_name', 'input', 'TEXT'),
  f('signup_day', 'date', 'DATE'),
  f('order_day', 'date', 'DATE'),
  f('cutoff', 'date', 'DATE'),
  f('signup_period', 'date_range', 'DATE'),
  f('as_of', 'date_time', 'DATE_TIME'),
  f('snapshot_time', 'date_time', 'DATE_TIME'),
  f('session_time', 'date_time_range', 'DATE_TIME'),
  f('after_time', 'time', 'TIME'),
  f('opens_at', 'time', 'TIME'),
  f('night_from', 'time', 'TIME'),
  f('night_until', 'time', 'TIME'),
  f('hours', 'time_range', 'TIME'),
  f('order_bucket', 'date_time_aggregation', 'TEXT'),
];

/** The snippets of the SQL-snippets page. */
const SNIPPETS: SnippetDefinition[] = [
  { name: 'completed_orders', text: "SELECT * FROM orders WHERE status NOT IN ('cancelled', 'returned')" },
  { name: 'revenue_eur', text: 'sum(o.total_eur)' },
  {
    name: 'country_revenue',
    text: `SELECT o.country, [revenue_eur] AS revenue_eur
FROM ([completed_orders]) o
GROUP BY o.country`,
  },
  { name: 'large_order', text: 'o.total_eur >= {{min_total_eur}}', params: ['min_total_eur'] },
  { name: 'order_filters', text: '{[o.ordered_at]=timerange} AND {[o.country]=country} AND {[o.status]=order_status}' },
];

const sel = (selections: Record<string, unknown[]>, rest: Record<string, unknown> = {}) => ({
  ...rest,
  filters: Object.entries(selections).map(([variable_name, selected_values]) => ({ variable_name, selected_values })),
});

function compile(sql: string, opts: Partial<CompileOptions> = {}) {
  return compileSql({ sql, dialect: 'postgres', filters: FILTERS, parameters: {}, snippets: SNIPPETS, ...opts });
}

/** Whitespace runs as one space, so a page's aligned output compares with the compiled text. */
const squash = (s: string) => s.replace(/\s+/g, ' ').trim();

function error(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(ApiError);
    expect((e as ApiError).status).toBe(422);
    return e as ApiError;
  }
  throw new Error('expected a 422');
}

// ---------------------------------------------------------------------------------------------------
// filters/overview.mdx

const OVERVIEW_CONDITIONS = `SELECT id, ordered_at, country, status, total_eur
FROM orders
WHERE {ordered_at=timerange}
  AND {country=country}
  AND {status=order_status}
ORDER BY ordered_at DESC
LIMIT 100`;

const OVERVIEW_PREVIOUS = `SELECT 'selected period' AS period, count(*) AS orders, sum(total_eur) AS revenue_eur
FROM orders
WHERE {ordered_at=timerange}
UNION ALL
SELECT 'previous period', count(*), sum(total_eur)
FROM orders
WHERE {ordered_at=timerange.previous}`;

const OVERVIEW_TRANSFORMATION = `SELECT {ordered_at:aggregation} AS period,
       count(*)                 AS orders,
       sum(total_eur)           AS revenue_eur
FROM orders
WHERE {ordered_at=timerange}
GROUP BY 1
ORDER BY 1`;

const OVERVIEW_VALUES = `-- Orders per day inside the selected range, with the range itself as columns
SELECT ordered_at::date AS day,
       count(*)         AS orders,
       {timerange.start} AS range_start,
       {timerange.end}   AS range_end
FROM orders
WHERE {ordered_at=timerange}
GROUP BY 1
ORDER BY 1`;

/** What the page shows the database receiving for OVERVIEW_TRANSFORMATION (without its values comment). */
const OVERVIEW_SENT = `SELECT date_trunc('month', (ordered_at)) AS period,
       count(*)                           AS orders,
       sum(total_eur)                     AS revenue_eur
FROM orders
WHERE (ordered_at >= $1 AND ordered_at < $2)
GROUP BY 1
ORDER BY 1`;

describe('filters/overview', () => {
  it('an unset filter is TRUE, so conditions combine freely', () => {
    const r = compile(OVERVIEW_CONDITIONS);
    expect(r.text).toContain('WHERE TRUE\n  AND TRUE\n  AND TRUE');
    expect(r.values).toEqual([]);
  });

  it('one value is =, several IN, a selected null IS NULL', () => {
    expect(compile('{country=country}', { parameters: sel({ country: ['DE'] }) }).text).toBe('(country = $1)');
    expect(compile('{country=country}', { parameters: sel({ country: ['DE', 'FR'] }) }).text).toBe('(country IN ($1, $2))');
    expect(compile('{country=country}', { parameters: sel({ country: ['DE', null] }) }).text).toBe('(country = $1 OR country IS NULL)');
  });

  it('bracketed expressions are parenthesised; literals and comments stay as written', () => {
    expect(compile('{ordered_at=timerange}').text).toBe(compile('{[ordered_at]=timerange}').text);
    compile('{[lower(c.email)]=email}');
    compile('{[o.ordered_at::date]=order_day}');
    expect(compile('{[total_eur > 500]=large_orders_only}', { parameters: sel({ large_orders_only: [true] }) }).text).toBe('((total_eur > 500) = $1)');
    const kept = "SELECT '{not a filter}' -- {country=country}";
    expect(compile(kept, { parameters: sel({ country: ['DE'] }) }).text).toBe(kept);
  });

  it('a date range from 1 to 31 January ends before 1 February; time and date-time ranges at the next second', () => {
    expect(compile('{d=signup_period}', { parameters: sel({ signup_period: ['2025-01-01~2025-01-31'] }) }).values).toEqual(['2025-01-01', '2025-02-01']);
    expect(compile('{t=hours}', { parameters: sel({ hours: ['09:00~13:59:59'] }) }).values).toEqual(['09:00:00', '14:00:00']);
    expect(compile('{t=session_time}', { parameters: sel({ session_time: ['2025-03-01T00:00:00Z~2025-03-01T23:59:59Z'] }) }).values).toEqual([
      '2025-03-01 00:00:00+00:00',
      '2025-03-02 00:00:00+00:00',
    ]);
    expect(compile('{t=signup_period}', { parameters: sel({ signup_period: ['2025-01-01~'] }) }).text).toBe('(t >= $1)');
  });

  it('.previous of March 2025 is February 2025', () => {
    const r = compile(OVERVIEW_PREVIOUS, { parameters: { timerange: '2025-03-01~2025-03-31' } });
    expect(r.values).toEqual(['2025-03-01 00:00:00+00:00', '2025-04-01 00:00:00+00:00', '2025-02-01 00:00:00+00:00', '2025-03-01 00:00:00+00:00']);
  });

  it('the transformation example is what the page says the database receives', () => {
    const r = compile(OVERVIEW_TRANSFORMATION, { parameters: { timerange: '2025-03-01~2025-03-31', aggregation: 'month' } });
    expect(squash(r.text)).toBe(squash(OVERVIEW_SENT));
    expect(r.values).toEqual(['2025-03-01 00:00:00+00:00', '2025-04-01 00:00:00+00:00']);
  });

  it('on a dashboard in another zone the bucketing converts first, the zone being the first value', () => {
    const r = compile(OVERVIEW_TRANSFORMATION, { timeZone: 'Europe/Berlin', parameters: { timerange: '2025-03-01~2025-03-31', aggregation: 'month' } });
    expect(r.text).toContain("date_trunc('month', ((ordered_at)::timestamptz AT TIME ZONE $1))");
    expect(r.values).toEqual(['Europe/Berlin', '2025-02-28 23:00:00+00:00', '2025-03-31 22:00:00+00:00']);
  });

  it('value parameters: bounds (NULL when unset), the exclusive end, the aggregation name', () => {
    expect(compile(OVERVIEW_VALUES).text).toContain('NULL AS range_start');
    const r = compile(OVERVIEW_VALUES, { parameters: { timerange: '2025-03-01~2025-03-31' } });
    expect(r.values.slice(0, 2)).toEqual(['2025-03-01 00:00:00+00:00', '2025-04-01 00:00:00+00:00']);
    expect(compile('{aggregation}', { parameters: { aggregation: 'month' } }).values).toEqual(['month']);
  });

  it('{var.value}: NULL when unset, false for an unset checkbox or Yes / No / All, 422 for several values', () => {
    expect(compile('{email.value}').text).toBe('NULL');
    expect(compile('{converted_only.value}').values).toEqual([false]);
    expect(compile('{converted.value}').values).toEqual([false]);
    error(() => compile('{order_id.value}', { parameters: sel({ order_id: [1, 2] }) }));
  });

  it('an unknown variable is an ad hoc multi-select text filter: TRUE unset, its values bound as text', () => {
    expect(compile('WHERE {region=region}')).toMatchObject({ text: 'WHERE TRUE', unknownVariables: ['region'] });
    const r = compile('WHERE {region=region}', { parameters: sel({ region: ['EU', 'US'] }) });
    expect(r).toMatchObject({ text: 'WHERE (region IN ($1, $2))', values: ['EU', 'US'], unknownVariables: ['region'] });
  });

  it('a timerange in unix seconds or dates, both ends included', () => {
    const unix = compile('{t=timerange}', { parameters: { timerange: '1740787200~1743465599' } }).values;
    const dates = compile('{t=timerange}', { parameters: { timerange: '2025-03-01~2025-03-31' } }).values;
    expect(unix).toEqual(['2025-03-01 00:00:00+00:00', '2025-04-01 00:00:00+00:00']);
    expect(dates).toEqual(unix);
  });
});

// ---------------------------------------------------------------------------------------------------
// filters/built-in-aggregation.mdx, built-in-time-zone.mdx, built-in-timerange.mdx

describe('filters/built-in-aggregation', () => {
  const BUCKETS = `SELECT {ordered_at:aggregation} AS period,
       count(*)                 AS orders,
       sum(total_eur)           AS revenue_eur
FROM orders
WHERE {ordered_at=timerange}
GROUP BY 1
ORDER BY 1`;
  const NAME = `SELECT {aggregation} AS bucket_size, {ordered_at:aggregation} AS period, count(*) AS orders
FROM orders
WHERE {ordered_at=timerange}
GROUP BY 1, 2
ORDER BY 2`;

  it('compiles; day when nothing is chosen, else the first offered aggregation', () => {
    expect(compile(BUCKETS).text).toContain("date_trunc('day', (ordered_at))");
    expect(compile(BUCKETS, { aggregationOptions: ['week', 'month'] }).text).toContain("date_trunc('week', (ordered_at))");
    compile('{[c.signup_date]:aggregation} {[o.ordered_at]:aggregation}');
  });

  it('week starts on Monday, week_sunday on Sunday, all_time is NULL and only when offered', () => {
    expect(compile(BUCKETS, { parameters: { aggregation: 'week_sunday' } }).text).toContain(
      "(date_trunc('week', (ordered_at) + interval '1 day') - interval '1 day')",
    );
    error(() => compile(BUCKETS, { parameters: { aggregation: 'all_time' } }));
    error(() => compile(BUCKETS, { aggregationOptions: ['day', 'week'], parameters: { aggregation: 'month' } }));
    expect(compile(BUCKETS, { aggregationOptions: ['day', 'all_time'], parameters: { aggregation: 'all_time' } }).text).toContain(
      'CAST(NULL AS timestamp) AS period',
    );
  });

  it('{aggregation} is the name as a bound value', () => {
    expect(compile(NAME, { parameters: { aggregation: 'week' } })).toMatchObject({ values: ['week'] });
  });
});

describe('filters/built-in-time-zone', () => {
  const SQL = `SELECT {ordered_at:aggregation} AS day, count(*) AS orders
FROM orders
WHERE {ordered_at=timerange}
GROUP BY 1
ORDER BY 1`;

  it('dates in timerange are read in the chosen zone', () => {
    const r = compile(SQL, { timeZone: 'America/New_York', parameters: { tz: 'America/New_York', timerange: '2025-03-01~2025-03-31' } });
    expect(r.values).toEqual(['America/New_York', '2025-03-01 05:00:00+00:00', '2025-04-01 04:00:00+00:00']);
  });

  it('an offset is not a zone name', () => {
    error(() => compile(SQL, { timeZone: '+02:00' }));
  });
});

describe('filters/built-in-timerange', () => {
  const LIST = `SELECT id, ordered_at, country, status, total_eur
FROM orders
WHERE {ordered_at=timerange}
ORDER BY ordered_at DESC
LIMIT 500`;
  const SIDE_BY_SIDE = `-- Revenue of the selected period and of the period before it, side by side
SELECT
  (SELECT sum(total_eur) FROM orders WHERE {ordered_at=timerange})          AS revenue_eur,
  (SELECT sum(total_eur) FROM orders WHERE {ordered_at=timerange.previous}) AS previous_revenue_eur`;
  const WITH_AGGREGATION = `SELECT {ordered_at:aggregation} AS period, count(*) AS orders
FROM orders
WHERE {ordered_at=timerange}
GROUP BY 1
ORDER BY 1`;

  it('the condition per selection', () => {
    expect(compile(LIST).text).toContain('WHERE TRUE');
    expect(compile(LIST, { parameters: { timerange: '1735689600~1743465599' } }).text).toContain('WHERE (ordered_at >= $1 AND ordered_at < $2)');
    expect(compile(LIST, { parameters: { timerange: '~1743465599' } }).text).toContain('WHERE (ordered_at < $1)');
    expect(compile(LIST, { parameters: { timerange: '1735689600~' } }).text).toContain('WHERE (ordered_at >= $1)');
  });

  it('Q1 2025 in unix seconds ends at 31 March 23:59:59; a date end includes the whole day', () => {
    const a = compile(LIST, { parameters: { timerange: '1735689600~1743465599' } }).values;
    expect(a).toEqual(['2025-01-01 00:00:00+00:00', '2025-04-01 00:00:00+00:00']);
    expect(compile(LIST, { parameters: { timerange: '2025-01-01~2025-03-31' } }).values).toEqual(a);
  });

  it('previous of "from 1 March on" is "before 1 March"; the text cast example compiles', () => {
    const r = compile(SIDE_BY_SIDE, { parameters: { timerange: '2025-03-01~' } });
    expect(r.text).toContain('WHERE (ordered_at >= $1)');
    expect(r.text).toContain('WHERE (ordered_at < $2)');
    compile('{[created_at_text::timestamptz]=timerange}');
    compile(WITH_AGGREGATION);
  });
});

// ---------------------------------------------------------------------------------------------------
// filters/checkbox.mdx, yes-no-all.mdx, text-input.mdx

describe('filters/checkbox', () => {
  const SESSIONS = `-- Filter: variable_name converted_only, display name "Converted sessions only",
--         control_type checkbox, value_type BOOLEAN
SELECT started_at::date AS day, source, count(*) AS sessions
FROM web_sessions
WHERE {converted=converted_only}
  AND {started_at=timerange}
GROUP BY 1, 2
ORDER BY 1, 2`;
  const LARGE = `-- "Large orders only": orders above 500 EUR
SELECT id, ordered_at, country, total_eur
FROM orders
WHERE {[total_eur > 500]=large_orders_only}`;

  it('ticked: converted = true; unticked: TRUE', () => {
    expect(compile(SESSIONS, { parameters: sel({ converted_only: [true] }) })).toMatchObject({ values: [true] });
    expect(compile(SESSIONS, { parameters: sel({ converted_only: [true] }) }).text).toContain('(converted = $1)');
    expect(compile(SESSIONS).text).toContain('WHERE TRUE');
    expect(compile(LARGE, { parameters: sel({ large_orders_only: [true] }) }).text).toContain('((total_eur > 500) = $1)');
  });

  it('true, false, 1 and 0 are accepted; other values are a 422', () => {
    expect(compile(LARGE, { parameters: sel({ large_orders_only: [1] }) }).values).toEqual([true]);
    error(() => compile(LARGE, { parameters: sel({ large_orders_only: ['yes'] }) }));
  });
});

describe('filters/yes-no-all', () => {
  const SQL = `-- Filter: variable_name converted, display name "Converted", control_type checkbox_two_way,
--         value_type BOOLEAN
SELECT device,
       count(*)              AS sessions,
       round(avg(pages), 1)  AS avg_pages
FROM web_sessions
WHERE {converted=converted}
  AND {started_at=timerange}
GROUP BY device
ORDER BY sessions DESC`;

  it('Yes, No and All', () => {
    expect(compile(SQL, { parameters: sel({ converted: [true] }) })).toMatchObject({ values: [true] });
    expect(compile(SQL, { parameters: sel({ converted: [false] }) })).toMatchObject({ values: [false] });
    expect(compile(SQL).text).toContain('WHERE TRUE');
    compile('{[c.signup_date < o.ordered_at::date - 30]=repeat_customer}');
    compile('{[coalesce(converted, false)]=converted}');
  });
});

describe('filters/text-input', () => {
  const IDS = `-- Filter: variable_name order_id, control_type input_multi, value_type NUMBER
SELECT o.id, o.ordered_at, o.status, o.total, o.currency, c.name AS customer
FROM orders o
JOIN customers c ON c.id = o.customer_id
WHERE {[o.id]=order_id}
ORDER BY o.ordered_at DESC`;
  const LOWER = `SELECT id, name, email, country, signup_date
FROM customers
WHERE {[lower(email)]=email}`;
  const SEARCH = `-- Filter: variable_name customer_name, control_type input, value_type TEXT
SELECT id, name, email, city
FROM customers
WHERE (CAST({customer_name.value} AS text) IS NULL
       OR name ILIKE '%' || CAST({customer_name.value} AS text) || '%')
ORDER BY name
LIMIT 200`;

  it('1042 and 1043 are an IN list of numbers; abc is refused', () => {
    expect(compile(IDS, { parameters: sel({ order_id: ['1042', '1043'] }) })).toMatchObject({ values: [1042, 1043] });
    expect(compile(IDS, { parameters: sel({ order_id: ['1042', '1043'] }) }).text).toContain('(o.id IN ($1, $2))');
    error(() => compile(IDS, { parameters: sel({ order_id: ['abc'] }) }));
    compile(LOWER);
  });

  it('the substring search binds the value twice, NULL while empty', () => {
    expect(compile(SEARCH).text).toContain('CAST(NULL AS text) IS NULL');
    expect(compile(SEARCH, { parameters: sel({ customer_name: ['ann'] }) }).values).toEqual(['ann', 'ann']);
  });
});

// ---------------------------------------------------------------------------------------------------
// filters/date.mdx, date-range.mdx, date-time.mdx, date-time-range.mdx, time.mdx, time-range.mdx

describe('filters/date', () => {
  const BY_DAY = `-- Filter: variable_name signup_day, control_type date, value_type DATE
SELECT id, name, country, city
FROM customers
WHERE {signup_date=signup_day}
ORDER BY name`;
  const CAST_DAY = `SELECT id, ordered_at, total_eur
FROM orders
WHERE {[ordered_at::date]=order_day}`;
  const CUTOFF = `-- Customers signed up on or before the cut-off and how many orders they had placed by then
SELECT c.country,
       count(DISTINCT c.id) AS customers,
       count(o.id)          AS orders
FROM customers c
LEFT JOIN orders o
  ON o.customer_id = c.id
 AND o.ordered_at < CAST({cutoff.value} AS date) + 1
WHERE c.signup_date <= CAST({cutoff.value} AS date)
GROUP BY c.country
ORDER BY customers DESC`;

  it('compiles as the page says', () => {
    expect(compile(BY_DAY, { parameters: sel({ signup_day: ['2025-03-03'] }) })).toMatchObject({ values: ['2025-03-03'] });
    expect(compile(BY_DAY).text).toContain('WHERE TRUE');
    compile(CAST_DAY);
    expect(compile(CUTOFF).text).toContain('CAST(NULL AS date)');
    expect(compile(CUTOFF, { parameters: sel({ cutoff: ['2025-06-30'] }) }).values).toEqual(['2025-06-30', '2025-06-30']);
  });

  it('refuses 31/01/2025 and 2025-02-30; accepts unix seconds as the day in the dashboard zone', () => {
    error(() => compile(BY_DAY, { parameters: sel({ signup_day: ['31/01/2025'] }) }));
    error(() => compile(BY_DAY, { parameters: sel({ signup_day: ['2025-02-30'] }) }));
    expect(compile(BY_DAY, { parameters: sel({ signup_day: [1740960000] }) }).values).toEqual(['2025-03-03']);
  });
});

describe('filters/date-range', () => {
  const BY_COUNTRY = `-- Filter: variable_name signup_period, control_type date_range, value_type DATE
SELECT country, count(*) AS new_customers
FROM customers
WHERE {signup_date=signup_period}
GROUP BY country
ORDER BY new_customers DESC`;
  const ON_TIMESTAMP = 'SELECT count(*) AS orders FROM orders WHERE {ordered_at=signup_period}';
  const PREVIOUS = `SELECT
  (SELECT count(*) FROM customers WHERE {signup_date=signup_period})          AS this_period,
  (SELECT count(*) FROM customers WHERE {signup_date=signup_period.previous}) AS previous_period`;

  it('1–31 January 2025 is >= 2025-01-01 AND < 2025-02-01', () => {
    const r = compile(BY_COUNTRY, { parameters: sel({ signup_period: ['2025-01-01~2025-01-31'] }) });
    expect(r.text).toContain('WHERE (signup_date >= $1 AND signup_date < $2)');
    expect(r.values).toEqual(['2025-01-01', '2025-02-01']);
  });

  it('on a timestamp column the bounds are still days, whatever the dashboard zone', () => {
    const r = compile(ON_TIMESTAMP, { timeZone: 'Europe/Berlin', parameters: sel({ signup_period: ['2025-01-01~2025-01-31'] }) });
    expect(r.values).toEqual(['2025-01-01', '2025-02-01']);
  });

  it('start, end, previous; open ranges; URL days in unix seconds; a reversed range is a 422', () => {
    const r = compile(`${PREVIOUS} {signup_period.start} {signup_period.end}`, { parameters: sel({ signup_period: ['2025-01-01~2025-01-31'] }) });
    expect(r.values).toEqual(['2025-01-01', '2025-02-01', '2024-12-01', '2025-01-01', '2025-01-01', '2025-02-01']);
    expect(compile('{signup_period.end}', { parameters: sel({ signup_period: ['2025-01-01~'] }) }).text).toBe('NULL');
    expect(compile(BY_COUNTRY, { parameters: sel({ signup_period: ['1735689600~1738281600'] }) }).values).toEqual(['2025-01-01', '2025-02-01']);
    error(() => compile(BY_COUNTRY, { parameters: sel({ signup_period: ['2025-01-31~2025-01-01'] }) }));
  });
});

describe('filters/date-time', () => {
  const AS_OF = `-- Filter: variable_name as_of, control_type date_time, value_type DATE_TIME
-- Pending and shipped orders placed up to the chosen moment, and their average age then
SELECT status,
       count(*)                                                       AS orders,
       avg(CAST({as_of.value} AS timestamptz) - ordered_at)           AS average_age
FROM orders
WHERE ordered_at <= CAST({as_of.value} AS timestamptz)
  AND status IN ('pending', 'shipped')
GROUP BY status`;
  const SNAPSHOTS = 'SELECT * FROM stock_snapshots WHERE {taken_at=snapshot_time}';

  it('binds the instant with the data time zone offset; equality as a condition', () => {
    expect(compile(AS_OF, { parameters: sel({ as_of: ['2025-03-01T10:30:00+01:00'] }) }).values).toEqual([
      '2025-03-01 09:30:00+00:00',
      '2025-03-01 09:30:00+00:00',
    ]);
    expect(compile(AS_OF, { dataTimeZone: 'Europe/Berlin', parameters: sel({ as_of: [1740821400] }) }).values[0]).toBe('2025-03-01 10:30:00+01:00');
    expect(compile(AS_OF).text).toContain('CAST(NULL AS timestamptz)');
    expect(compile(SNAPSHOTS, { parameters: sel({ snapshot_time: ['2025-03-01T09:30:00Z'] }) }).text).toContain('(taken_at = $1)');
  });

  it('a timestamp without offset is local to the dashboard zone; other text is a 422', () => {
    expect(compile(SNAPSHOTS, { timeZone: 'Europe/Berlin', parameters: sel({ snapshot_time: ['2025-03-01T09:30'] }) }).values).toEqual([
      '2025-03-01 08:30:00+00:00',
    ]);
    error(() => compile(SNAPSHOTS, { parameters: sel({ snapshot_time: ['yesterday'] }) }));
  });
});

describe('filters/date-time-range', () => {
  const BY_SOURCE = `-- Filter: variable_name session_time, control_type date_time_range, value_type DATE_TIME
SELECT source,
       count(*)                                   AS sessions,
       round(100.0 * avg(converted::int), 1)      AS conversion_pct
FROM web_sessions
WHERE {started_at=session_time}
GROUP BY source
ORDER BY sessions DESC`;
  const PREVIOUS = `-- Sessions per hour of the selected range next to the same hours one range earlier
SELECT 'selected' AS period, count(*) AS sessions FROM web_sessions WHERE {started_at=session_time}
UNION ALL
SELECT 'previous', count(*) FROM web_sessions WHERE {started_at=session_time.previous}`;

  it('bounds are the data time zone wall clock (with its offset on PostgreSQL, bare on MySQL)', () => {
    const p = sel({ session_time: ['1740787200~1740873599'] });
    expect(compile(BY_SOURCE, { parameters: p }).values).toEqual(['2025-03-01 00:00:00+00:00', '2025-03-02 00:00:00+00:00']);
    expect(compile(BY_SOURCE, { dataTimeZone: 'Europe/Berlin', parameters: p }).values).toEqual(['2025-03-01 01:00:00+01:00', '2025-03-02 01:00:00+01:00']);
    expect(compile(BY_SOURCE, { dialect: 'mysql', dataTimeZone: 'Europe/Berlin', parameters: p }).values).toEqual([
      '2025-03-01 01:00:00',
      '2025-03-02 01:00:00',
    ]);
  });

  it('ISO sides without offset are local; previous has the same length', () => {
    const r = compile(PREVIOUS, { parameters: sel({ session_time: ['2025-03-01T08:00~2025-03-01T19:59:59'] }) });
    expect(r.values).toEqual(['2025-03-01 08:00:00+00:00', '2025-03-01 20:00:00+00:00', '2025-02-28 20:00:00+00:00', '2025-03-01 08:00:00+00:00']);
  });
});

describe('filters/time and time-range', () => {
  const AFTER = `-- Filter: variable_name after_time, control_type time, value_type TIME
-- Orders placed at or after the chosen time of day, per country
SELECT country, count(*) AS late_orders
FROM orders
WHERE (CAST({after_time.value} AS time) IS NULL
       OR (ordered_at AT TIME ZONE 'Europe/Berlin')::time >= CAST({after_time.value} AS time))
GROUP BY country
ORDER BY late_orders DESC`;
  const HOURS = `-- Filter: variable_name hours, control_type time_range, value_type TIME
SELECT device, count(*) AS sessions
FROM web_sessions
WHERE {[(started_at AT TIME ZONE 'UTC')::time]=hours}
  AND {started_at=timerange}
GROUP BY device
ORDER BY sessions DESC`;
  const NIGHT = `-- Filters: night_from and night_until, control_type time, value_type TIME
SELECT count(*) AS night_sessions
FROM web_sessions
WHERE (started_at AT TIME ZONE 'UTC')::time >= CAST({night_from.value} AS time)
   OR (started_at AT TIME ZONE 'UTC')::time <  CAST({night_until.value} AS time)`;

  it('time: value and condition', () => {
    expect(compile(AFTER, { parameters: sel({ after_time: ['18:00'] }) }).values).toEqual(['18:00:00', '18:00:00']);
    expect(compile('{opening_time=opens_at}', { parameters: sel({ opens_at: ['08:30'] }) }).text).toBe('(opening_time = $1)');
    expect(compile('{opening_time=opens_at}').text).toBe('TRUE');
    error(() => compile(AFTER, { parameters: sel({ after_time: ['6pm'] }) }));
  });

  it('time range: 09:00~16:59:59 is >= 09:00:00 AND < 17:00:00; no wrap around midnight', () => {
    const r = compile(HOURS, { parameters: sel({ hours: ['09:00~16:59:59'] }) });
    expect(r.text).toContain("WHERE (((started_at AT TIME ZONE 'UTC')::time) >= $1 AND ((started_at AT TIME ZONE 'UTC')::time) < $2)");
    expect(r.values).toEqual(['09:00:00', '17:00:00']);
    expect(compile(HOURS).text).toContain('WHERE TRUE');
    error(() => compile(HOURS, { parameters: sel({ hours: ['22:00~05:59:59'] }) }));
    expect(compile(NIGHT, { parameters: sel({ night_from: ['22:00'], night_until: ['06:00'] }) }).values).toEqual(['22:00:00', '06:00:00']);
  });
});

// ---------------------------------------------------------------------------------------------------
// filters/date-time-aggregation.mdx

describe('filters/date-time-aggregation', () => {
  const PERIODS = `-- Filter: variable_name order_bucket, control_type date_time_aggregation
SELECT {ordered_at:order_bucket} AS period,
       count(*)                  AS orders,
       sum(total_eur)            AS revenue_eur
FROM orders
WHERE {ordered_at=timerange}
GROUP BY 1
ORDER BY 1`;
  const NAME = `SELECT {order_bucket.value} AS bucket_size, {ordered_at:order_bucket} AS period, count(*) AS orders
FROM orders
GROUP BY 1, 2
ORDER BY 2`;
  const withAllowed = (allowed: string[] | null, defaults: unknown[] | null = null) =>
    FILTERS.map((d) => (d.variable_name === 'order_bucket' ? { ...d, allowed_aggregations: allowed, default_values: defaults } : d));

  it('week buckets start on Monday', () => {
    expect(compile(PERIODS, { parameters: sel({ order_bucket: ['week'] }) }).text).toContain("date_trunc('week', (ordered_at))");
  });

  it('all_time only when allowed; unlisted aggregations are a 422', () => {
    error(() => compile(PERIODS, { parameters: sel({ order_bucket: ['all_time'] }) }));
    error(() => compile(PERIODS, { filters: withAllowed(['day', 'week', 'month']), parameters: sel({ order_bucket: ['hour'] }) }));
    expect(compile(PERIODS, { filters: withAllowed(['day', 'all_time']), parameters: sel({ order_bucket: ['all_time'] }) }).text).toContain(
      'CAST(NULL AS timestamp) AS period',
    );
  });

  it('unset: the first default, then day, then the first allowed', () => {
    expect(compile(PERIODS, { filters: withAllowed(null, ['month']) }).text).toContain("date_trunc('month'");
    expect(compile(PERIODS).text).toContain("date_trunc('day'");
    expect(compile(PERIODS, { filters: withAllowed(['week', 'month']) }).text).toContain("date_trunc('week'");
  });

  it('{order_bucket.value} is the name', () => {
    expect(compile(NAME, { parameters: sel({ order_bucket: ['month'] }) }).values).toEqual(['month']);
  });
});

// ---------------------------------------------------------------------------------------------------
// filters/dropdown-list.mdx

describe('filters/dropdown-list', () => {
  const REPORT = `SELECT country, count(*) AS orders, sum(total_eur) AS revenue_eur
FROM orders
WHERE {country=country}
  AND {ordered_at=timerange}
GROUP BY country
ORDER BY revenue_eur DESC`;
  const OPTIONS = `-- Options of the "country" filter: code as value, full name as label
SELECT code, name
FROM countries
ORDER BY name`;
  const CITIES = `-- "city" filter (dropdown_multi_dynamic), parent filter: country
SELECT DISTINCT city AS value, city || ' (' || country || ')' AS label
FROM customers
WHERE {country=country}
ORDER BY 1`;
  const BOTH = `SELECT c.city, count(*) AS orders
FROM orders o
JOIN customers c ON c.id = o.customer_id
WHERE {[o.country]=country}
  AND {[c.city]=city}
GROUP BY c.city
ORDER BY orders DESC`;

  it('compiles; the parent condition is TRUE with no country selected, bound otherwise', () => {
    expect(compile(REPORT, { parameters: sel({ country: ['DE', 'FR'] }) }).text).toContain('(country IN ($1, $2))');
    expect(compile(OPTIONS).text).toBe(OPTIONS);
    expect(compile(CITIES).text).toContain('WHERE TRUE');
    expect(compile(CITIES, { parameters: sel({ country: ['DE'] }) })).toMatchObject({ values: ['DE'] });
    expect(compile(BOTH, { parameters: sel({ country: ['DE'], city: ['Berlin'] }) }).values).toEqual(['DE', 'Berlin']);
  });
});

// ---------------------------------------------------------------------------------------------------
// sql-snippets/overview.mdx

describe('sql-snippets/overview', () => {
  const REPORT = `SELECT country, count(*) AS orders, sum(total_eur) AS revenue_eur
FROM ([completed_orders]) o
WHERE {[o.ordered_at]=timerange}
GROUP BY country
ORDER BY revenue_eur DESC`;
  const LARGE = `SELECT count(*) AS large_orders
FROM orders o
WHERE [large_order(500)]
  AND {[o.ordered_at]=timerange}`;
  const FILTERED = `SELECT {[o.ordered_at]:aggregation} AS period, count(*) AS orders
FROM orders o
WHERE [order_filters]
GROUP BY 1
ORDER BY 1`;
  const OWN_ROWS = `SELECT o.country, sum(o.total_eur) AS revenue_eur
FROM orders o
JOIN sales_managers m ON m.country = o.country
WHERE m.email = [CAIRN_USER_EMAIL]
GROUP BY o.country`;

  it('[name] is replaced by the text; other brackets stay', () => {
    expect(compile(REPORT).text).toContain("FROM (SELECT * FROM orders WHERE status NOT IN ('cancelled', 'returned')) o");
    expect(compile('SELECT * FROM [dbo].[orders] WHERE tags[1] = 2').text).toBe('SELECT * FROM [dbo].[orders] WHERE tags[1] = 2');
    expect(compile('[Completed_Orders]').text).toBe('[Completed_Orders]');
  });

  it('nested snippets expand; cycles are a 422', () => {
    expect(compile('[country_revenue]').text).toContain('SELECT o.country, sum(o.total_eur) AS revenue_eur\nFROM (SELECT * FROM orders');
    const e = error(() =>
      compile('[a]', {
        snippets: [
          { name: 'a', text: '[b]' },
          { name: 'b', text: '[a]' },
        ],
      }),
    );
    expect(e.message).toMatch(/\[a\] → \[b\] → \[a\]/);
  });

  it('arguments are bound: o.total_eur >= $1 with 500', () => {
    const r = compile(LARGE);
    expect(r).toMatchObject({ values: [500] });
    expect(r.text).toContain('WHERE o.total_eur >= $1\n  AND TRUE');
    expect(compile("[large_order('12.5')]").values).toEqual(['12.5']);
    const passOn = { name: 'big_orders', text: 'SELECT * FROM orders o WHERE [large_order({{threshold}})]', params: ['threshold'] };
    expect(compile('[big_orders(1000)]', { snippets: [...SNIPPETS, passOn] })).toMatchObject({
      text: 'SELECT * FROM orders o WHERE o.total_eur >= $1',
      values: [1000],
    });
    error(() => compile('[large_order]'));
    error(() => compile('[large_order(o.total)]'));
    error(() => compile('[s(1)]', { snippets: [{ name: 's', text: "'{{p}}'", params: ['p'] }] }));
  });

  it('filter syntax inside snippets is compiled', () => {
    const r = compile(FILTERED, { parameters: sel({ country: ['DE'] }) });
    expect(r.text).toContain('WHERE TRUE AND (o.country = $1) AND TRUE');
    expect(r.variables).toEqual(['aggregation', 'timerange', 'country', 'order_status']);
  });

  it('built-in snippets are bound values, NULL without a signed-in user; unknown CAIRN_ names are a 422', () => {
    expect(compile(OWN_ROWS, { context: { userEmail: 'ann@example.com' } })).toMatchObject({ values: ['ann@example.com'] });
    expect(compile(OWN_ROWS, { context: { userEmail: 'ann@example.com' } }).text).toContain('WHERE m.email = $1');
    expect(compile(OWN_ROWS).values).toEqual([null]);
    const all = '[CAIRN_USER_EMAIL] [CAIRN_USER_FIRSTNAME] [CAIRN_USER_LASTNAME] [CAIRN_USER_ROLE] [CAIRN_DASHBOARD_NAME] [CAIRN_DASHBOARD_ID]';
    expect(compile(all, { context: { dashboardName: 'Sales', dashboardId: 'dsh_1' } }).values).toEqual([null, null, null, null, 'Sales', 'dsh_1']);
    expect(error(() => compile('[CAIRN_USER_MAIL]')).message).toMatch(/CAIRN_USER_EMAIL, CAIRN_USER_FIRSTNAME/);
    error(() => compile('[CAIRN_USER_EMAIL(1)]'));
  });
});

// ---------------------------------------------------------------------------------------------------
// time-zones/*.mdx

describe('time-zones', () => {
  const SAME_SQL = `SELECT {ordered_at:aggregation} AS period, count(*) AS orders, sum(total_eur) AS revenue_eur
FROM orders
WHERE {ordered_at=timerange}
GROUP BY 1
ORDER BY 1`;
  const FIND_ZONE = `-- PostgreSQL: an order you placed yourself at a known local time
SELECT id, ordered_at, pg_typeof(ordered_at) FROM orders ORDER BY id DESC LIMIT 5;`;

  it('the same SQL in any zone; the session runs in the data time zone', () => {
    const utc = compile(SAME_SQL, { parameters: { timerange: '2025-03-01~2025-03-07', aggregation: 'day' } });
    expect(utc).toMatchObject({ timeZone: 'UTC', sessionTimeZone: 'UTC' });
    const berlin = compile(SAME_SQL, {
      timeZone: 'Europe/Berlin',
      dataTimeZone: 'UTC',
      parameters: { tz: 'Europe/Berlin', timerange: '2025-03-01~2025-03-07', aggregation: 'day' },
    });
    expect(berlin).toMatchObject({ timeZone: 'Europe/Berlin', sessionTimeZone: 'UTC' });
    expect(berlin.values.slice(1)).toEqual(['2025-02-28 23:00:00+00:00', '2025-03-07 23:00:00+00:00']);
    // Without a dashboard zone (time_zone_config disabled) the data time zone applies.
    expect(compile(SAME_SQL, { dataTimeZone: 'America/Chicago' })).toMatchObject({ timeZone: 'America/Chicago', sessionTimeZone: 'America/Chicago' });
  });

  it('the examples compile', () => {
    expect(compile(FIND_ZONE).text).toBe(FIND_ZONE);
    compile("{[created_local AT TIME ZONE 'America/Chicago']=timerange}", { parameters: { timerange: '2025-03-01~2025-03-07' } });
  });
});
