/**
 * The query engine end to end, under `wrangler dev` (one command; it starts its own stack):
 *
 *   npx tsx bench/engine.ts [--rows 1000000] [--pollers 1000] [--reports 10] [--duration 10] [--only large,pollers] [--repeat 1] [--no-write] [--verbose]
 *
 * (a) A large result — `--rows` rows of six columns (bigint, timestamp, two short texts, numeric,
 *     int) of a stored table (made for the run, dropped after it) read by a Postgres datasource that
 *     points at the local server, `select * from` it: the time from
 *     `POST /datasources/{id}/executions` to the last byte of `GET /data/{key}` (JSON), and to the
 *     last byte of `POST /process` (a zip of CSV, through `POST /dashboards/{id}/data`), beside
 *     `psql -c "COPY (select * from …) TO STDOUT"` of the same table in the same run; the CPU time the API's and the
 *     data server's workerd spent on each path (from /proc: comparable on a machine that other work
 *     keeps busy, where wall-clock times are not); the peak RSS of every process of the stack
 *     (wrangler's Node processes and their workerd) and of this one, sampled from /proc. `--repeat`
 *     runs COPY and both paths that many times, each round compared with its own COPY.
 * (b) `--pollers` concurrent pollers of one dashboard of `--reports` reports (autocannon, one
 *     connection per poller, `POST /dashboards/{id}/status`): how many executions they caused (the
 *     target is exactly one per report) and the poll latency p99 beside the bare route's p99 under
 *     the same load on the same `wrangler dev`.
 *
 * The numbers go to bench/README.md between the `bench:engine` markers (`--no-write` leaves it).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import autocannon, { type Result } from 'autocannon';
import postgres from 'postgres';
import { errorMessage, fail, say, warn } from '../scripts/lib/log.ts';
import { README, machineLine, utcNow, withBenchStack, writeReadmeBlock } from './lib.ts';
import { RssSampler, groupCpuMs, type ProcPeak } from './proc-rss.ts';

const START = '<!-- bench:engine:start -->';
const END = '<!-- bench:engine:end -->';
const JSONAPI = 'application/vnd.api+json';
const mb = (n: number) => (n / 1024 / 1024).toFixed(1);
const s = (ms: number) => (ms / 1000).toFixed(2);

const { values: args } = parseArgs({
  options: {
    rows: { type: 'string', default: '1000000' },
    pollers: { type: 'string', default: '1000' },
    reports: { type: 'string', default: '10' },
    duration: { type: 'string', default: '10' },
    only: { type: 'string', default: 'large,pollers' },
    'no-write': { type: 'boolean', default: false },
    verbose: { type: 'boolean', default: false },
    repeat: { type: 'string', default: '1' },
  },
  strict: true,
});
const ROWS = Number(args.rows);
const POLLERS = Number(args.pollers);
const REPORTS = Number(args.reports);
const DURATION = Number(args.duration);
const ONLY = new Set(args.only!.split(','));
const REPEAT = Number(args.repeat);

/** The stored table of (a), one per bench process (the server may be shared). */
const TABLE = `cairn_bench_rows_${process.pid}`;
const largeQuery = () => `select * from ${TABLE}`;

/** Makes the table of (a) (and reads it once, so COPY and the runs find it in the server's cache). */
async function makeTable(dbUrl: string, rows: number): Promise<void> {
  const sql = postgres(dbUrl, { max: 1, onnotice: () => {} });
  try {
    await sql.unsafe(`drop table if exists ${TABLE}`);
    await sql.unsafe(`create table ${TABLE} as ${generated(rows)}`);
    await sql.unsafe(`vacuum analyze ${TABLE}`);
    await sql.unsafe(`select count(*) from ${TABLE}`);
  } finally {
    await sql.end();
  }
}

async function dropTable(dbUrl: string): Promise<void> {
  const sql = postgres(dbUrl, { max: 1, onnotice: () => {} });
  await sql.unsafe(`drop table if exists ${TABLE}`).catch(() => {});
  await sql.end();
}

const generated = (rows: number) => `select i::bigint as id,
       timestamp '2024-01-01 00:00:00' + i * interval '1 second' as created_at,
       'customer_' || (i % 5000) as customer,
       (array['open', 'paid', 'shipped', 'returned'])[i % 4 + 1] as status,
       round((i % 100000) / 100.0, 2)::numeric(12, 2) as amount,
       (i % 1000)::int as quantity
  from generate_series(1, ${rows}) as s(i)`;

interface Api {
  base: string;
  key: string;
}

async function api(a: Api, method: string, path: string, body?: unknown, type = 'application/json') {
  const send = () =>
    fetch(a.base + path, {
      method,
      headers: { authorization: `Api ${a.key}`, ...(body !== undefined ? { 'content-type': type } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  // A read that fails on the network (a reset connection on a busy machine) is tried once more.
  const res = await send().catch((err) => {
    if (method !== 'GET') throw new Error(`${method} ${path}: ${errorMessage(err)} (${String((err as { cause?: unknown }).cause ?? '')})`);
    warn(`GET ${path}: ${errorMessage(err)} (${String((err as { cause?: unknown }).cause ?? '')}); retrying`);
    return send().catch((again) => {
      throw new Error(`GET ${path}: ${errorMessage(again)} (${String((again as { cause?: unknown }).cause ?? '')})`);
    });
  });
  const text = await res.text();
  const json = text ? JSON.parse(text) : null;
  if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${text.slice(0, 400)}`);
  return json;
}

/**
 * The downloads ask for the bytes as they are, as psql's COPY gets them. Node's fetch would ask for
 * gzip, and the local Cloudflare emulation (miniflare's entry worker, like Cloudflare's edge for JSON
 * and CSV) would then gzip 64 MB in wrangler's Node process on the way: 2–6 s instead of ~1 s here.
 */
const RAW = { 'accept-encoding': 'identity' };

/** Reads a response to its last byte; returns the byte count. */
async function drain(res: Response): Promise<number> {
  if (!res.ok || !res.body) throw new Error(`download answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
  let bytes = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) bytes += chunk.length;
  return bytes;
}

/**
 * A request before a timed part: COPY may take long enough on a busy machine for the server to close
 * the bench's idle keep-alive connection, and a POST on such a connection fails ("other side closed").
 */
async function wakeUp(a: Api): Promise<void> {
  await fetch(`${a.base}/bench/bare`)
    .then((r) => r.text())
    .catch(() => '');
}

/** Starts an ad hoc execution and waits for it (polling every 25 ms); returns its id. */
async function execute(a: Api, datasourceId: string, sqlText: string): Promise<string> {
  const started = await api(a, 'POST', `/datasources/${datasourceId}/executions`, { sql_query: sqlText });
  for (;;) {
    const e = await api(a, 'GET', `/executions/${started.execution_id}`);
    if (e.execution_status === 'success') return started.execution_id;
    if (!['starting', 'running', 'waiting', 'scheduled'].includes(e.execution_status)) {
      throw new Error(`execution ${started.execution_id} ended ${e.execution_status}: ${e.error_message}`);
    }
    await new Promise((r) => setTimeout(r, 25));
  }
}

function copyTime(dbUrl: string, sqlText: string): { ms: number; bytes: number } {
  const u = new URL(dbUrl);
  const t0 = performance.now();
  // Through a pipe into wc, so that this process never holds the COPY text.
  const out = execFileSync(
    'bash',
    [
      '-c',
      'psql "$@" | wc -c',
      'psql',
      '-h',
      u.hostname,
      '-p',
      u.port || '5432',
      '-U',
      decodeURIComponent(u.username || 'postgres'),
      '-d',
      u.pathname.slice(1),
      '-X',
      '-q',
      '-c',
      `COPY (${sqlText}) TO STDOUT`,
    ],
    { env: { ...process.env, PGPASSWORD: decodeURIComponent(u.password) } },
  );
  return { ms: performance.now() - t0, bytes: Number(out.toString().trim()) };
}

interface Timed {
  ms: number;
  execMs: number;
  bytes: number;
  /** CPU time (user + system) of the API's and the data server's workerd during this path. */
  cpu: { api: number; data: number };
}

interface LargeRound {
  copy: { ms: number; bytes: number };
  json: Timed;
  csv: Timed & { reused: boolean };
}

interface LargeResult {
  rounds: LargeRound[];
  peaks: ProcPeak[];
}

/** Process groups of the eu API and data server (their workerd's CPU time is read per path). */
interface CpuGroups {
  api: number;
  data: number;
}

const cpuNow = (g: CpuGroups) => ({ api: groupCpuMs(g.api, 'workerd'), data: groupCpuMs(g.data, 'workerd') });
const cpuSince = (g: CpuGroups, before: { api: number; data: number }) => {
  const now = cpuNow(g);
  return { api: now.api - before.api, data: now.data - before.data };
};

async function benchLarge(a: Api, data: string, dbUrl: string, datasourceId: string, sampler: RssSampler, cpu: CpuGroups): Promise<LargeResult> {
  say(`(a) making the stored table ${TABLE} (${ROWS.toLocaleString('en')} rows)…`);
  await makeTable(dbUrl, ROWS);
  const query = largeQuery();
  const dash = await api(a, 'POST', '/dashboards', { data: { type: 'dashboards', attributes: { name: `Bench large ${Date.now()}` } } }, JSONAPI);
  const dashboardId = dash.data.id as string;
  await api(
    a,
    'POST',
    '/reports',
    {
      data: {
        type: 'reports',
        attributes: { name: 'Large', sql_query: query },
        relationships: { dashboard: { data: { type: 'dashboards', id: dashboardId } }, datasource: { data: { type: 'datasources', id: datasourceId } } },
      },
    },
    JSONAPI,
  );
  sampler.start(100);
  const rounds: LargeRound[] = [];
  for (let round = 1; round <= REPEAT; round++) {
    const tag = REPEAT > 1 ? ` [round ${round}/${REPEAT}]` : '';
    say(`(a) ${ROWS.toLocaleString('en')} rows: COPY through psql…${tag}`);
    const copy = copyTime(dbUrl, query);
    say(`    COPY: ${s(copy.ms)} s, ${mb(copy.bytes)} MB`);

    say('    JSON: POST /datasources/{id}/executions → GET /data/{key}…');
    await wakeUp(a);
    let c0 = cpuNow(cpu);
    let t0 = performance.now();
    let exe = await execute(a, datasourceId, query);
    let execMs = performance.now() - t0;
    const handle = await api(a, 'GET', `/executions/${exe}/data`);
    const t1 = performance.now();
    const jsonBytes = await drain(await fetch(handle.data_url, { headers: { authorization: `Data ${handle.data_access_token}`, ...RAW } }));
    const json = { ms: performance.now() - t0, execMs, bytes: jsonBytes, cpu: cpuSince(cpu, c0) };
    say(
      `    JSON: ${s(json.ms)} s (execution ${s(execMs)} s, download ${s(performance.now() - t1)} s), ${mb(jsonBytes)} MB; workerd CPU api ${s(json.cpu.api)} s, data ${s(json.cpu.data)} s`,
    );

    say('    CSV zip: POST /datasources/{id}/executions → POST /dashboards/{id}/data → POST /process…');
    await wakeUp(a);
    c0 = cpuNow(cpu);
    t0 = performance.now();
    exe = await execute(a, datasourceId, query);
    execMs = performance.now() - t0;
    const proc = await api(a, 'POST', `/dashboards/${dashboardId}/data`, { data_format: 'csv_zip' });
    const reused = proc.reports?.[0]?.execution_id === exe;
    const csvBytes = await drain(
      await fetch(proc.data_url ?? `${data}/process`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...RAW },
        body: JSON.stringify({ data_access_token: proc.data_process_token }),
      }),
    );
    const csv = { ms: performance.now() - t0, execMs, bytes: csvBytes, reused, cpu: cpuSince(cpu, c0) };
    say(
      `    CSV zip: ${s(csv.ms)} s (execution ${s(execMs)} s), ${mb(csvBytes)} MB${reused ? '' : ' (the dashboard data call ran the query again)'}; workerd CPU api ${s(csv.cpu.api)} s, data ${s(csv.cpu.data)} s`,
    );
    rounds.push({ copy, json, csv });
  }
  return { rounds, peaks: sampler.stop() };
}

interface PollResult {
  executions: number;
  cold: Result;
  warm: Result;
  bare: Result;
}

/** Waits until the server answers the bare route quickly again (requests left over from a load run drain first). */
async function settle(base: string, maxMs = 60_000) {
  const until = Date.now() + maxMs;
  let quick = 0;
  while (quick < 3 && Date.now() < until) {
    const t0 = performance.now();
    await (await fetch(`${base}/bench/bare`)).text().catch(() => '');
    quick = performance.now() - t0 < 100 ? quick + 1 : 0;
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function load(url: string, opts: { method?: 'POST' | 'GET'; headers?: Record<string, string>; body?: string; connections: number; duration: number }) {
  return autocannon({
    url,
    method: opts.method ?? 'GET',
    headers: opts.headers,
    body: opts.body,
    connections: opts.connections,
    duration: opts.duration,
    timeout: 30,
  });
}

/** The answers' status codes and the kinds of failure, when something failed. */
function statuses(r: Result): string {
  if (!r.non2xx && !r.errors) return '';
  const codes = Object.entries(r.statusCodeStats ?? {}).map(([k, v]) => `${k}: ${v.count}`);
  return ` (status codes ${codes.join(', ')}; timeouts ${r.timeouts}, resets ${r.resets ?? 0})`;
}

async function benchPollers(a: Api, datasourceId: string, dbUrl: string): Promise<PollResult> {
  const tag = Math.random().toString(36).slice(2, 10);
  const dash = await api(a, 'POST', '/dashboards', { data: { type: 'dashboards', attributes: { name: `Bench pollers ${tag}` } } }, JSONAPI);
  const dashboardId = dash.data.id as string;
  const reportIds: string[] = [];
  for (let i = 0; i < REPORTS; i++) {
    const r = await api(
      a,
      'POST',
      '/reports',
      {
        data: {
          type: 'reports',
          // Each run takes a second, so the pollers pile up on runs under way.
          attributes: { name: `R${i}`, sql_query: `select '${tag}-${i}' as tag, g from generate_series(1, 1000) g, (select pg_sleep(1)) s` },
          relationships: { dashboard: { data: { type: 'dashboards', id: dashboardId } }, datasource: { data: { type: 'datasources', id: datasourceId } } },
        },
      },
      JSONAPI,
    );
    reportIds.push(r.data.id);
  }
  const headers = { authorization: `Api ${a.key}`, 'content-type': 'application/json' };
  const url = `${a.base}/dashboards/${dashboardId}/status`;
  say(`(b) ${POLLERS} concurrent pollers of a dashboard of ${REPORTS} reports, ${DURATION} s (cold: the first polls start the runs)…`);
  const cold = await load(url, { method: 'POST', headers, body: '{}', connections: POLLERS, duration: DURATION });
  say(
    `    cold: p50 ${cold.latency.p50} ms, p99 ${cold.latency.p99} ms, ${cold.requests.total} polls, ${cold.non2xx} non-2xx, ${cold.errors} errors${statuses(cold)}`,
  );
  await settle(a.base);
  const warm = await load(url, { method: 'POST', headers, body: '{}', connections: POLLERS, duration: DURATION });
  say(
    `    warm: p50 ${warm.latency.p50} ms, p99 ${warm.latency.p99} ms, ${warm.requests.total} polls, ${warm.non2xx} non-2xx, ${warm.errors} errors${statuses(warm)}`,
  );
  say(`    bare route, same load…`);
  await settle(a.base);
  await load(`${a.base}/bench/bare`, { connections: POLLERS, duration: 2 });
  await settle(a.base);
  const bare = await load(`${a.base}/bench/bare`, { connections: POLLERS, duration: DURATION });
  say(`    bare: p50 ${bare.latency.p50} ms, p99 ${bare.latency.p99} ms`);
  const sql = postgres(dbUrl, { max: 1, onnotice: () => {} });
  const [row] = await sql<{ n: number }[]>`select count(*)::int as n from executions where report_id in ${sql(reportIds)}`;
  await sql.end();
  say(`    executions caused: ${row!.n} (reports: ${REPORTS})`);
  return { executions: row!.n, cold, warm, bare };
}

function report(large: LargeResult | null, polls: PollResult | null, meta: { date: string; machine: string }): string {
  const lines = [`Run ${meta.date} on ${meta.machine}; PostgreSQL on 127.0.0.1:5432; \`wrangler dev\` (workerd) for the four workers.`, ''];
  if (large) {
    const { rounds } = large;
    const copyBytes = rounds[0]!.copy.bytes;
    const ratio = (ms: number, r: LargeRound) => (ms / r.copy.ms).toFixed(2);
    const notReused = rounds.some((r) => !r.csv.reused);
    lines.push(
      `**(a) ${ROWS.toLocaleString('en')}-row result of a stored table** (\`select * from\` it; 6 columns: bigint, timestamp, two short texts, numeric, int; ${mb(copyBytes)} MB as COPY text)${
        rounds.length > 1 ? `, ${rounds.length} rounds (each: COPY, then the JSON path, then the CSV zip path)` : ''
      }`,
      '',
      '| round | path | time (s) | × COPY (same round) | execution part (s) | workerd CPU: API / data server (s) | bytes received (MB) |',
      '|---:|---|---:|---:|---:|---:|---:|',
      ...rounds.flatMap((r, i) => [
        `| ${i + 1} | \`psql -c "COPY (…) TO STDOUT"\` | ${s(r.copy.ms)} | 1.00 | | | ${mb(r.copy.bytes)} |`,
        `| ${i + 1} | \`POST /datasources/{id}/executions\` → last byte of \`GET /data/{key}\` (JSON) | ${s(r.json.ms)} | ${ratio(r.json.ms, r)} | ${s(r.json.execMs)} | ${s(r.json.cpu.api)} / ${s(r.json.cpu.data)} | ${mb(r.json.bytes)} |`,
        `| ${i + 1} | \`POST /datasources/{id}/executions\` → last byte of \`POST /process\` (CSV zip)${r.csv.reused ? '' : ' ¹'} | ${s(r.csv.ms)} | ${ratio(r.csv.ms, r)} | ${s(r.csv.execMs)} | ${s(r.csv.cpu.api)} / ${s(r.csv.cpu.data)} | ${mb(r.csv.bytes)} |`,
      ]),
      '',
      ...(notReused ? ['¹ The dashboard data call did not reuse the execution and ran the query again.', ''] : []),
      'Peak RSS per process while (a) ran (sampled every 100 ms from /proc):',
      '',
      '| process | pid | peak RSS (MB) |',
      '|---|---:|---:|',
      ...large.peaks.map((p) => `| ${p.group} (${p.comm}) | ${p.pid} | ${mb(p.peakBytes)} |`),
      '',
    );
  }
  if (polls) {
    const row = (name: string, r: Result) => `| ${name} | ${r.requests.total} | ${r.latency.p50} | ${r.latency.p99} | ${r.non2xx} | ${r.errors + r.timeouts} |`;
    lines.push(
      `**(b) ${POLLERS} concurrent pollers** of one dashboard of ${REPORTS} reports (each report's query takes ~1 s), ${DURATION} s per run: **${polls.executions} executions caused** (target: ${REPORTS}).`,
      '',
      '| run | requests | p50 (ms) | p99 (ms) | non-2xx | errors |',
      '|---|---:|---:|---:|---:|---:|',
      row('`POST /dashboards/{id}/status`, cold (the first polls start the runs)', polls.cold),
      row('`POST /dashboards/{id}/status`, warm (data current)', polls.warm),
      row('`GET /bench/bare`, same connections', polls.bare),
      '',
      `Poll p99 above the bare route's p99: cold ${polls.cold.latency.p99 - polls.bare.latency.p99} ms, warm ${polls.warm.latency.p99 - polls.bare.latency.p99} ms (target: under 50 ms).`,
    );
  }
  return lines.join('\n');
}

/**
 * When only one part ran, the other part's last numbers stay in the block (marked with the run they
 * come from), so that `--only large` does not erase the pollers' results or the other way round.
 */
function keepOtherPart(block: string, text: string): string {
  const a = text.indexOf(START);
  const b = text.indexOf(END);
  if (a < 0 || b < a || (ONLY.has('large') && ONLY.has('pollers'))) return block;
  const old = text.slice(a + START.length, b).trim();
  const oldRun = /^Run (\d{4}-\d\d-\d\d \d\d:\d\d UTC)/.exec(old)?.[1] ?? 'an earlier run';
  const at = old.indexOf('**(b) ');
  const start = old.indexOf('**(a) ');
  if (!ONLY.has('pollers') && at >= 0) {
    const part = old.slice(at).replace(/^\*\*\(b\) (?!\(from the run of)/, `**(b) (from the run of ${oldRun}) `);
    return `${block.trimEnd()}\n\n${part}`;
  }
  if (!ONLY.has('large') && start >= 0) {
    const end = at > start ? at : old.length;
    const part = old
      .slice(start, end)
      .trimEnd()
      .replace(/^\*\*\(a\) (?!\(from the run of)/, `**(a) (from the run of ${oldRun}) `);
    const [head, ...rest] = block.split('\n\n');
    return [head, part, ...rest].join('\n\n');
  }
  return block;
}

async function main(): Promise<number> {
  if (![ROWS, POLLERS, REPORTS, DURATION, REPEAT].every((n) => Number.isInteger(n) && n > 0)) {
    fail('--rows, --pollers, --reports, --duration and --repeat must be positive integers');
    return 2;
  }
  return withBenchStack(
    'bench-engine',
    {
      app: false,
      quiet: !args.verbose,
      needsServer: true,
      extraVars: { RATE_LIMIT_RPS: '1000000', RATE_LIMIT_BURST: '1000000', STATEMENT_TIMEOUT_MS: '600000' },
    },
    async ({ info, children, runDb }) => {
      const a: Api = { base: info.regions.eu.api, key: info.api_key };
      // The datasource reads another database of the same server: Cairn refuses datasources that point at
      // its own metadata database (ARCHITECTURE D36), and the queries here need no tables.
      const u = new URL(runDb.url);
      u.pathname = '/postgres';
      const ds = await api(
        a,
        'POST',
        '/datasources',
        {
          data: {
            type: 'datasources',
            attributes: {
              name: 'Bench Postgres',
              database_type: 'postgres',
              connection_mode: 'direct',
              host: u.hostname,
              port: Number(u.port || 5432),
              username: decodeURIComponent(u.username || 'postgres'),
              password: decodeURIComponent(u.password || 'postgres'),
              database: u.pathname.slice(1),
            },
          },
        },
        JSONAPI,
      );
      const groups = new Map(children.filter((c) => c.pid !== undefined).map((c) => [c.pid!, c.name]));
      const sampler = new RssSampler(groups, new Map([[process.pid, 'bench (this process)']]));
      const pgrpOf = (name: string) => children.find((c) => c.name === name)?.pid ?? -1;
      const large = ONLY.has('large')
        ? await benchLarge(a, info.regions.eu.data, u.toString(), ds.data.id, sampler, { api: pgrpOf('api-eu'), data: pgrpOf('data-eu') }).finally(() =>
            dropTable(u.toString()),
          )
        : null;
      const polls = ONLY.has('pollers') ? await benchPollers(a, ds.data.id, runDb.url) : null;
      const block = report(large, polls, { date: utcNow(), machine: machineLine({ load: true }) });
      console.log(`\n${block}\n`);
      if (!args['no-write']) {
        writeReadmeBlock(START, END, keepOtherPart(block, readFileSync(README, 'utf8')), 'Engine: latest results');
        say('results written to bench/README.md');
      }
      return 0;
    },
  );
}

process.exitCode = await main();
process.exit(process.exitCode);
