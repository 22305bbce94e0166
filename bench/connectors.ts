/**
 * The Postgres connector's read path on its own: a generated result (6 columns: bigint, timestamptz,
 * two short texts, numeric, int) streamed through `PostgresConnector.run` into a sink that only
 * counts, beside `psql -c "COPY (…) TO STDOUT"` of the same query on the same server.
 *
 *   npx tsx bench/connectors.ts [--rows 1000000] [--url postgres://…] [--repeat 3] [--objects]
 *
 * With `--repeat N` both are run N times, alternating, and the best time of each is reported (the
 * machine is shared: the best run is the one least disturbed).
 * `--objects` also times the naive way for comparison: one JS object per row and JSON.stringify
 * (postgres.js cursor, same batches). Prints rows/s, JSON bytes and the process's peak RSS.
 */
import { execFileSync } from 'node:child_process';
import { parseArgs } from 'node:util';
import postgres from 'postgres';
import { PostgresConnector } from '../worker-api/src/engine/connectors/postgres.ts';
import { remoteSource } from '../worker-api/src/engine/connectors/postgres-source.ts';

const { values: args } = parseArgs({
  options: {
    rows: { type: 'string', default: '1000000' },
    url: { type: 'string', default: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' },
    objects: { type: 'boolean', default: false },
    repeat: { type: 'string', default: '1' },
  },
});
const rows = Number(args.rows);
if (!Number.isSafeInteger(rows) || rows <= 0) throw new Error(`--rows must be a positive integer, got ${args.rows}`);
const url = new URL(args.url!);

const QUERY = `
select i::bigint as id,
       timestamptz '2024-01-01 00:00:00+00' + i * interval '1 second' as created_at,
       'customer_' || (i % 5000) as customer,
       (array['open', 'paid', 'shipped', 'returned'])[i % 4 + 1] as status,
       round((i % 100000) / 100.0, 2)::numeric(12, 2) as amount,
       (i % 1000)::int as quantity
  from generate_series(1, ${rows}) as s(i)`;

let peakRss = 0;
const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 10);
const mb = (n: number) => (n / 1024 / 1024).toFixed(1);

function copyTime(): { seconds: number; bytes: number } {
  const start = performance.now();
  // Through a pipe into wc, so that this process never holds the COPY text.
  const out = execFileSync(
    'bash',
    [
      '-c',
      'psql "$@" | wc -c',
      'psql',
      '-h',
      url.hostname,
      '-p',
      url.port || '5432',
      '-U',
      decodeURIComponent(url.username || 'postgres'),
      '-d',
      url.pathname.slice(1) || 'postgres',
      '-X',
      '-q',
      '-c',
      `COPY (${QUERY.trim()}) TO STDOUT`,
    ],
    { env: { ...process.env, PGPASSWORD: decodeURIComponent(url.password) } },
  );
  return { seconds: (performance.now() - start) / 1000, bytes: Number(out.toString().trim()) };
}

async function connectorTime(): Promise<{ seconds: number; bytes: number; rows: number }> {
  const connector = new PostgresConnector(
    remoteSource('postgres', {
      host: url.hostname,
      port: Number(url.port || 5432),
      user: decodeURIComponent(url.username || 'postgres'),
      password: decodeURIComponent(url.password),
      database: url.pathname.slice(1) || 'postgres',
      requireSsl: false,
      verifySsl: false,
    }),
  );
  let bytes = 0;
  let chunks = 0;
  const start = performance.now();
  const cpu0 = process.cpuUsage();
  const summary = await connector.run(
    { text: QUERY, values: [] },
    {
      chunk: (c) => {
        bytes += c.data.length;
        chunks++;
      },
    },
    { timeoutMs: 600_000 },
  );
  const seconds = (performance.now() - start) / 1000;
  const cpu = process.cpuUsage(cpu0);
  console.log(
    `  ${chunks} chunks, ${((cpu.user + cpu.system) / 1e6).toFixed(2)} s of CPU in this process; fields: ${summary.fields.map((f) => `${f.name} ${f.data_type} [${JSON.stringify(f.min_value)}…${JSON.stringify(f.max_value)}] ${f.unique_count} distinct`).join('; ')}`,
  );
  return { seconds, bytes, rows: summary.rowCount };
}

async function objectsTime(): Promise<{ seconds: number; bytes: number }> {
  const sql = postgres(args.url!, { max: 1, fetch_types: false, onnotice: () => {} });
  const start = performance.now();
  let bytes = 0;
  await sql.begin(async (tx) => {
    for await (const batch of tx.unsafe(QUERY).cursor(10_000)) {
      for (const row of batch) bytes += JSON.stringify(Object.values(row)).length + 1;
    }
  });
  const seconds = (performance.now() - start) / 1000;
  await sql.end();
  return { seconds, bytes };
}

console.log(`RSS before: ${mb(process.memoryUsage().rss)} MB`);
const repeat = Math.max(1, Number(args.repeat) || 1);
let copy = { seconds: Infinity, bytes: 0 };
let run = { seconds: Infinity, bytes: 0, rows: 0 };
for (let i = 0; i < repeat; i++) {
  const c = copyTime();
  if (c.seconds < copy.seconds) copy = c;
  const r = await connectorTime();
  if (r.seconds < run.seconds) run = r;
}
const runPeak = Math.max(peakRss, process.memoryUsage().rss);
console.log(`COPY … TO STDOUT (psql): ${copy.seconds.toFixed(2)} s, ${mb(copy.bytes)} MB of COPY text${repeat > 1 ? ` (best of ${repeat})` : ''}`);
console.log(
  `PostgresConnector.run → counting sink: ${run.rows} rows in ${run.seconds.toFixed(2)} s = ` +
    `${Math.round(run.rows / run.seconds).toLocaleString('en')} rows/s, ${mb(run.bytes)} MB of JSON, ` +
    `${(run.seconds / copy.seconds).toFixed(2)}× COPY; peak RSS ${mb(runPeak)} MB${repeat > 1 ? ` (best of ${repeat})` : ''}`,
);
if (args.objects) {
  const o = await objectsTime();
  console.log(
    `For comparison, a JS object per row + JSON.stringify: ${o.seconds.toFixed(2)} s (${(o.seconds / copy.seconds).toFixed(2)}× COPY), ${mb(o.bytes)} MB`,
  );
}
clearInterval(sampler);
console.log(`Process peak RSS (getrusage): ${mb(process.resourceUsage().maxRSS * 1024)} MB`);
process.exit(0);
