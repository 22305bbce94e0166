/**
 * The SQL that builds the sample shop. Everything is derived from row numbers through an integer mixing
 * function (no random()), so two loads produce byte-identical tables on any PostgreSQL-compatible server.
 */
import {
  FIRST_NAMES,
  LAST_NAMES,
  PERIOD_END,
  PERIOD_START,
  PRODUCT_ADJECTIVES,
  SAMPLE_CATEGORIES,
  SAMPLE_COUNTRIES,
  SAMPLE_CURRENCIES,
  SAMPLE_SIZES,
} from './constants.ts';

const S = 'sample_shop';
const M32 = 4294967296;

/** A quoted SQL string literal (constants only; never user input). */
export function lit(value: string): string {
  return `'${value.replace(/'/g, "''")}'`;
}
function textArray(values: readonly string[]): string {
  return `ARRAY[${values.map(lit).join(', ')}]::text[]`;
}

/**
 * A well-spread 32-bit hash of a non-negative integer expression: a multiplicative step followed by two
 * xor-shift-multiply rounds (the operators are all plain bigint arithmetic, so results never overflow).
 * Different salts give practically independent values for the same input.
 */
export function h(x: string, salt: number): string {
  const a = `(((${x})::bigint * 2654435761 + ${(salt * 2246822519 + 374761393) % M32}) % ${M32})`;
  const b = `(((${a} # (${a} >> 15)) * 73244475) % ${M32})`;
  return `(${b} # (${b} >> 13))`;
}
/** A uniform double in [0, 1) derived from h. */
function u(x: string, salt: number): string {
  return `(${h(x, salt)}::float8 / ${M32}.0)`;
}

const PRODUCT_COUNT = SAMPLE_CATEGORIES.length * 20;
const seconds = (expr: string) => `(interval '1 second' * (${expr}))`;
/**
 * Maps a uniform value in [0, 1) to [0, 1) with a density that rises linearly, the last moment being
 * `1 + g` times as likely as the first (inverse of the distribution function of that density).
 */
function growth(uniform: string, g: number): string {
  return `((sqrt(1 + ${g * (g + 2)} * ${uniform}) - 1) / ${g})`;
}

/** `h(x, salt) AS h<salt>` for each salt: hashes computed once per row in an inner query. */
function hashColumns(x: string, salts: number[]): string {
  return salts.map((salt) => `${h(x, salt)} AS h${salt}`).join(', ');
}
/** A hash column as a uniform double in [0, 1). */
function unit(column: string): string {
  return `(${column}::float8 / ${M32}.0)`;
}

/** The country of each of 100 buckets, following the country weights: indexed by `1 + hash % 100`. */
function countryByBucket(): string {
  const codes = SAMPLE_COUNTRIES.flatMap((c) => Array.from({ length: c.weight }, () => c.code));
  if (codes.length !== 100) throw new Error('sample country weights must add up to 100');
  return textArray(codes);
}
function geoCte(): string {
  const rows = SAMPLE_COUNTRIES.map((c) => `(${lit(c.code)}, ${lit(c.currency)}, ${textArray(c.cities)})`);
  return `geo(code, currency, cities) AS (VALUES ${rows.join(', ')})`;
}

export function createTablesSql(): string[] {
  return [
    `CREATE SCHEMA ${S}`,
    `CREATE TABLE ${S}.meta (key text PRIMARY KEY, value text NOT NULL)`,
    `CREATE TABLE ${S}.currencies (code text PRIMARY KEY, name text NOT NULL, eur_rate numeric(10,4) NOT NULL)`,
    `CREATE TABLE ${S}.countries (code text PRIMARY KEY, name text NOT NULL, currency text NOT NULL REFERENCES ${S}.currencies)`,
    `CREATE TABLE ${S}.products (
       id integer PRIMARY KEY, name text NOT NULL, category text NOT NULL, price_eur numeric(10,2) NOT NULL)`,
    `CREATE TABLE ${S}.customers (
       id integer PRIMARY KEY, name text NOT NULL, email text NOT NULL, country text NOT NULL, city text NOT NULL,
       signup_date date NOT NULL, currency text NOT NULL)`,
    `CREATE TABLE ${S}.orders (
       id integer PRIMARY KEY, customer_id integer NOT NULL, ordered_at timestamptz NOT NULL, status text NOT NULL,
       country text NOT NULL, currency text NOT NULL, total numeric(12,2) NOT NULL, total_eur numeric(12,2) NOT NULL)`,
    `CREATE TABLE ${S}.order_items (
       order_id integer NOT NULL, line_no integer NOT NULL, product_id integer NOT NULL, quantity integer NOT NULL,
       unit_price numeric(10,2) NOT NULL, PRIMARY KEY (order_id, line_no))`,
    `CREATE TABLE ${S}.web_sessions (
       id integer PRIMARY KEY, started_at timestamptz NOT NULL, country text NOT NULL, device text NOT NULL,
       source text NOT NULL, pages integer NOT NULL, converted boolean NOT NULL)`,
  ];
}

export function fillTablesSql(): string[] {
  const currencies = SAMPLE_CURRENCIES.map((c) => `(${lit(c.code)}, ${lit(c.name)}, ${c.eur_rate})`).join(', ');
  const countries = SAMPLE_COUNTRIES.map((c) => `(${lit(c.code)}, ${lit(c.name)}, ${lit(c.currency)})`).join(', ');
  const categories = SAMPLE_CATEGORIES.map((c, i) => `(${i}, ${lit(c.name)}, ${c.min}, ${c.max}, ${textArray(c.items)})`).join(', ');
  const start = `${lit(PERIOD_START)}::timestamptz`;
  const end = `${lit(PERIOD_END)}::timestamptz`;
  // Customers sign up from six months before the period to three days before its end, more of them lately.
  const signupFrom = `(${start} - interval '183 days')`;
  const signupSpan = `extract(epoch FROM (${end} - interval '3 days') - ${signupFrom})`;

  return [
    `INSERT INTO ${S}.currencies (code, name, eur_rate) VALUES ${currencies}`,
    `INSERT INTO ${S}.countries (code, name, currency) VALUES ${countries}`,

    `INSERT INTO ${S}.products (id, name, category, price_eur)
     SELECT p.id,
            (${textArray(PRODUCT_ADJECTIVES)})[1 + (p.j / 10 + cat.idx * 3) % ${PRODUCT_ADJECTIVES.length}]
              || ' ' || cat.items[1 + p.j % 10],
            cat.name,
            greatest(cat.lo, round((cat.lo + (cat.hi - cat.lo) * ${u('p.id', 1)} * ${u('p.id', 2)})::numeric)) - 0.01
     FROM (SELECT g AS id, (g - 1) % ${SAMPLE_CATEGORIES.length} AS c, (g - 1) / ${SAMPLE_CATEGORIES.length} AS j
           FROM generate_series(1, ${PRODUCT_COUNT}) AS g) p
     JOIN (VALUES ${categories}) AS cat(idx, name, lo, hi, items) ON cat.idx = p.c`,

    // "OFFSET 0" keeps each inner query from being merged into its outer one, so every hash is computed once.
    `WITH ${geoCte()}
     INSERT INTO ${S}.customers (id, name, email, country, city, signup_date, currency)
     SELECT r.id,
            r.first || ' ' || r.last,
            lower(replace(r.first || '.' || r.last, ' ', '')) || r.id || '@example.com',
            geo.code,
            geo.cities[1 + (r.h4 % cardinality(geo.cities))::int],
            ((${signupFrom} + ${seconds(`floor(${signupSpan} * ${growth(unit('r.h5'), 1.5)})`)}) AT TIME ZONE 'UTC')::date,
            geo.currency
     FROM (SELECT g.id, ${hashColumns('g.id', [3, 4, 5])},
                  (${textArray(FIRST_NAMES)})[1 + (${h('g.id', 1)} % ${FIRST_NAMES.length})::int] AS first,
                  (${textArray(LAST_NAMES)})[1 + (${h('g.id', 2)} % ${LAST_NAMES.length})::int] AS last
           FROM generate_series(1, ${SAMPLE_SIZES.customers}) AS g(id) OFFSET 0) r
     JOIN geo ON geo.code = (${countryByBucket()})[1 + (r.h3 % 100)::int]`,

    // Each customer orders up to 24 times between signing up (or the period start) and the period end.
    `CREATE TEMP TABLE cairn_sample_orders ON COMMIT DROP AS
     SELECT (row_number() OVER (ORDER BY x.ordered_at, x.customer_id, x.k))::int AS id, x.*
     FROM (
       SELECT c.id AS customer_id, k, c.country, c.currency,
              w.lo + ${seconds(`floor(extract(epoch FROM ${end} - w.lo) * ${u('c.id * 64 + k', 11)})`)} AS ordered_at
       FROM (SELECT c.*, ${hashColumns('c.id', [7, 8])} FROM ${S}.customers c OFFSET 0) c
       CROSS JOIN LATERAL (
         SELECT greatest(${start}, (c.signup_date::timestamp AT TIME ZONE 'UTC') + interval '9 hours') AS lo,
                -- how often this customer would order over the full two years
                CASE WHEN c.h7 % 1000 < 100 THEN 0
                     WHEN c.h7 % 1000 < 350 THEN 1 + c.h8 % 2
                     WHEN c.h7 % 1000 < 650 THEN 3 + c.h8 % 3
                     WHEN c.h7 % 1000 < 900 THEN 6 + c.h8 % 5
                     ELSE 11 + c.h8 % 14 END AS n) w
       -- ...scaled to the share of the period the customer was signed up
       CROSS JOIN LATERAL (SELECT ceil(w.n * least(1.0, extract(epoch FROM ${end} - w.lo)
                                                   / extract(epoch FROM ${end} - ${start})))::int AS n) f
       CROSS JOIN LATERAL generate_series(1, f.n) AS k
     ) x`,

    // One to four lines per order; cheap, low-numbered products sell more often.
    `INSERT INTO ${S}.order_items (order_id, line_no, product_id, quantity, unit_price)
     SELECT l.order_id, l.line_no, p.id,
            1 + CASE WHEN l.h24 % 10 < 7 THEN 0 WHEN l.h24 % 10 < 9 THEN 1 ELSE 2 END,
            greatest(round(p.price_eur / cur.eur_rate) - 0.01, 0.99)
     FROM (
       SELECT o.id AS order_id, n AS line_no, o.currency, ${hashColumns('o.id * 8 + n', [22, 23, 24])}
       FROM (SELECT o.*, ${h('o.id', 21)} % 100 AS h21 FROM cairn_sample_orders o OFFSET 0) o
       CROSS JOIN LATERAL generate_series(1, CASE WHEN o.h21 < 45 THEN 1 WHEN o.h21 < 75 THEN 2
                                                   WHEN o.h21 < 92 THEN 3 ELSE 4 END) AS n
       OFFSET 0
     ) l
     JOIN ${S}.currencies cur ON cur.code = l.currency
     JOIN ${S}.products p ON p.id = 1 + floor(${PRODUCT_COUNT} * ${unit('l.h22')} * ${unit('l.h23')})::int`,

    `INSERT INTO ${S}.orders (id, customer_id, ordered_at, status, country, currency, total, total_eur)
     SELECT o.id, o.customer_id, o.ordered_at,
            CASE WHEN o.ordered_at >= ${end} - interval '2 days' THEN 'pending'
                 WHEN o.ordered_at >= ${end} - interval '6 days' THEN 'shipped'
                 WHEN o.h31 % 100 < 4 THEN 'cancelled'
                 WHEN o.h31 % 100 < 7 THEN 'returned'
                 ELSE 'delivered' END,
            o.country, o.currency, t.total, round(t.total * cur.eur_rate, 2)
     FROM (SELECT o.*, ${h('o.id', 31)} AS h31 FROM cairn_sample_orders o OFFSET 0) o
     JOIN ${S}.currencies cur ON cur.code = o.currency
     JOIN (SELECT order_id, sum(quantity * unit_price) AS total FROM ${S}.order_items GROUP BY order_id) t
       ON t.order_id = o.id`,

    // Visits grow over the two years and mostly happen between 06:00 and midnight UTC.
    `INSERT INTO ${S}.web_sessions (id, started_at, country, device, source, pages, converted)
     SELECT s.id, s.started_at, s.country, s.device, s.source, s.pages,
            s.h47 % 1000 < 8 + 6 * s.pages + CASE s.source WHEN 'email' THEN 25 WHEN 'paid_search' THEN 10 ELSE 0 END
     FROM (
       SELECT r.id, r.h47,
              ${start} + ${seconds(`86400 * floor(730 * ${growth(unit('r.h41'), 3)})
                + CASE WHEN r.h42 % 100 < 85 THEN 21600 + r.h43 % 64800 ELSE r.h43 % 86400 END`)} AS started_at,
              (${countryByBucket()})[1 + (r.h40 % 100)::int] AS country,
              CASE WHEN r.h44 % 100 < 55 THEN 'mobile' WHEN r.h44 % 100 < 90 THEN 'desktop' ELSE 'tablet' END AS device,
              CASE WHEN r.h45 % 100 < 35 THEN 'organic'
                   WHEN r.h45 % 100 < 55 THEN 'direct'
                   WHEN r.h45 % 100 < 73 THEN 'paid_search'
                   WHEN r.h45 % 100 < 87 THEN 'social'
                   WHEN r.h45 % 100 < 95 THEN 'email' ELSE 'referral' END AS source,
              CASE WHEN r.h46 % 100 < 35 THEN 1 ELSE 2 + floor(14 * ${unit('r.h48')} * ${unit('r.h49')})::int END AS pages
       FROM (SELECT g.id, ${hashColumns('g.id', [40, 41, 42, 43, 44, 45, 46, 47, 48, 49])}
             FROM generate_series(1, ${SAMPLE_SIZES.web_sessions}) AS g(id) OFFSET 0) r
       OFFSET 0
     ) s`,
  ];
}

/** Keys and indexes, added after the bulk inserts (faster than maintaining them row by row). */
export function constraintsSql(): string[] {
  return [
    `ALTER TABLE ${S}.customers ADD FOREIGN KEY (country) REFERENCES ${S}.countries,
       ADD FOREIGN KEY (currency) REFERENCES ${S}.currencies`,
    `ALTER TABLE ${S}.orders ADD FOREIGN KEY (customer_id) REFERENCES ${S}.customers,
       ADD FOREIGN KEY (country) REFERENCES ${S}.countries, ADD FOREIGN KEY (currency) REFERENCES ${S}.currencies`,
    `ALTER TABLE ${S}.order_items ADD FOREIGN KEY (order_id) REFERENCES ${S}.orders,
       ADD FOREIGN KEY (product_id) REFERENCES ${S}.products`,
    `ALTER TABLE ${S}.web_sessions ADD FOREIGN KEY (country) REFERENCES ${S}.countries`,
    `CREATE INDEX orders_ordered_at_idx ON ${S}.orders (ordered_at)`,
    `CREATE INDEX orders_customer_idx ON ${S}.orders (customer_id)`,
    `CREATE INDEX order_items_product_idx ON ${S}.order_items (product_id)`,
    `CREATE INDEX web_sessions_started_at_idx ON ${S}.web_sessions (started_at)`,
  ];
}
