/**
 * `npm run bench`: throughput of the API worker under `wrangler dev`, a bare JSON route against a real
 * read (`GET /dashboards/{id}?include=reports` with an API key), measured with autocannon.
 *
 *   npm run bench [-- --duration 10 --connections 50 --warmup 2 --no-write]
 *
 * Starts its own stack (workers only, free ports, a throwaway state dir and database) and stops it at the end.
 */
import { parseArgs } from 'node:util';
import autocannon, { type Result } from 'autocannon';
import { errorMessage, fail, say, warn } from '../scripts/lib/log.ts';
import { machineLine, utcNow, withBenchStack, writeReadmeBlock } from './lib.ts';
import { groupCpuMs } from './proc-rss.ts';

const START = '<!-- bench:results:start -->';
const END = '<!-- bench:results:end -->';

interface Row {
  name: string;
  path: string;
  reqPerSec: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

function positive(value: string | undefined, flag: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${flag} must be a positive number, got ${JSON.stringify(value)}`);
  return n;
}

async function load(url: string, headers: Record<string, string>, connections: number, duration: number): Promise<Result> {
  return autocannon({ url, headers, connections, duration, timeout: 10 });
}

function tableOf(rows: Row[], meta: { date: string; machine: string; db: string; connections: number; duration: number }): string {
  const bare = rows[0]!;
  const lines = [
    `Run ${meta.date} on ${meta.machine}; database: ${meta.db}; ${meta.connections} connections, ${meta.duration} s per route after a warm-up.`,
    '',
    '| route | req/s | p50 latency (ms) | p99 latency (ms) | non-2xx | errors | vs bare |',
    '|---|---:|---:|---:|---:|---:|---:|',
    ...rows.map(
      (r) =>
        `| \`${r.path}\` | ${r.reqPerSec.toFixed(0)} | ${r.p50} | ${r.p99} | ${r.non2xx} | ${r.errors} | ${
          r === bare ? '1.00' : (r.reqPerSec / bare.reqPerSec).toFixed(2)
        } |`,
    ),
  ];
  return lines.join('\n');
}

async function main(): Promise<number> {
  let opts;
  try {
    const { values } = parseArgs({
      options: {
        duration: { type: 'string', default: '10' },
        connections: { type: 'string', default: '50' },
        warmup: { type: 'string', default: '2' },
        'no-write': { type: 'boolean', default: false },
        // Also load the diagnostic routes: auth + rate limit alone, one pool round trip, no include.
        diagnose: { type: 'boolean', default: false },
      },
      strict: true,
    });
    opts = {
      duration: positive(values.duration, '--duration'),
      connections: Math.round(positive(values.connections, '--connections')),
      warmup: positive(values.warmup, '--warmup'),
      write: !values['no-write'] && !values.diagnose,
      diagnose: values.diagnose,
    };
  } catch (err) {
    fail(errorMessage(err));
    return 2;
  }

  return withBenchStack('bench', {
    app: false,
    quiet: !process.env.BENCH_VERBOSE,
    // Measure the API, not the per-key limiter: the limiter still runs (its cost counts), it just never says no.
    extraVars: { RATE_LIMIT_RPS: '1000000', RATE_LIMIT_BURST: '1000000', BENCH_ROUTES: '1' },
  }, async ({ info, children, pg, signal, died }) => {
    const api = info.regions.eu.api;
    const auth = { authorization: `Api ${info.api_key}` };
    const list = await fetch(`${api}/dashboards`, { headers: auth });
    const listed = (await list.json()) as { data?: { id: string }[] };
    const dashboardId = listed.data?.[0]?.id;
    if (!list.ok || !dashboardId) throw new Error(`GET /dashboards answered ${list.status} without a dashboard`);

    const targets = [
      { name: 'bare Hono JSON route', path: '/bench/bare', headers: {} },
      { name: 'dashboard with reports and filters', path: `/dashboards/${dashboardId}?include=reports,filters`, headers: auth },
    ];
    if (opts.diagnose) {
      targets.push(
        { name: 'auth and rate limit only', path: '/bench/auth', headers: auth },
        { name: 'one no-op call to the pool object', path: '/bench/rpc', headers: auth },
        { name: 'one database round trip', path: '/bench/db', headers: auth },
        { name: 'dashboard without includes', path: `/dashboards/${dashboardId}`, headers: auth },
      );
    }
    const rows: Row[] = [];
    for (const t of targets) {
      if (signal.aborted) throw new Error(died() ? `${died()} died; no results recorded` : 'interrupted');
      say(`${t.name}: warm-up ${opts.warmup} s, then ${opts.duration} s with ${opts.connections} connections…`);
      await load(api + t.path, t.headers, opts.connections, opts.warmup);
      const apiGroup = children.find((ch) => ch.name === 'api-eu')?.pid;
      const cpuBefore = apiGroup ? groupCpuMs(apiGroup, 'workerd') : 0;
      const r = await load(api + t.path, t.headers, opts.connections, opts.duration);
      if (opts.diagnose && apiGroup) {
        const perReq = ((groupCpuMs(apiGroup, 'workerd') - cpuBefore) * 1000) / Math.max(1, r.requests.total);
        say(`${t.name}: ${r.requests.average.toFixed(0)} req/s, api-eu workerd CPU ${perReq.toFixed(0)} µs per request`);
      }
      rows.push({
        name: t.name,
        path: t.path.replace(dashboardId, '{id}'),
        reqPerSec: r.requests.average,
        p50: r.latency.p50,
        p99: r.latency.p99,
        non2xx: r.non2xx,
        errors: r.errors + r.timeouts,
      });
      if (died()) throw new Error(`${died()} died during the ${t.name} run; no results recorded`);
      if (r.non2xx || r.errors) warn(`${t.name}: ${r.non2xx} non-2xx answers, ${r.errors} errors, ${r.timeouts} timeouts`);
    }

    const table = tableOf(rows, {
      date: utcNow(),
      machine: machineLine(),
      db: pg.kind === 'embedded' ? 'embedded PostgreSQL' : 'PostgreSQL',
      connections: opts.connections,
      duration: opts.duration,
    });
    console.log(`\n${table}\n`);
    const broken = rows.filter((r) => r.reqPerSec === 0 || r.errors > 0 || r.non2xx > 0);
    if (broken.length) {
      fail(`not recording: ${broken.map((r) => r.path).join(', ')} had errors or non-2xx answers`);
      return 1;
    }
    const ratio = rows[1]!.reqPerSec / rows[0]!.reqPerSec;
    say(`the dashboard read runs at ${(ratio * 100).toFixed(0)} % of the bare route's throughput`);
    if (opts.write) {
      writeReadmeBlock(START, END, table, 'Latest results');
      say('results written to bench/README.md');
    }
    return 0;
  });
}

process.exitCode = await main();
process.exit(process.exitCode);
