/**
 * Throughput and peak memory of the data server's downloads on a synthetic result: by default
 * 1,000,000 rows of the issue's six columns (bigint, timestamp, two short texts, numeric, int)
 * stored as the engine stores them, ~512 KB JSON chunks.
 *
 *   npx tsx bench/data-formats.ts [--rows 1000000] [--only csv,xlsx]
 *     The writers alone (core/src/export), each format in its own Node process so its peak RSS is
 *     its own. The chunks are made once per process and handed out again and again (as a database
 *     hands out stored chunks), so input memory stays small and the numbers are the writers' own.
 *
 *   DATABASE_URL=… npx tsx bench/data-formats.ts --server [--rows 1000000] [--only json,csv,csv_zip,xlsx]
 *     The real data server: stores the result in the database (a migrated one, e.g. from
 *     `npx tsx scripts/dev-db.ts bench`), starts worker-data under `wrangler dev`, and downloads it
 *     in every format over HTTP: time to the last byte, and the peak RSS of the workerd process.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import { csvStream, xlsxStream, zipStream, fileNamer, type CsvOptions, type ExportField } from '../core/src/export/index.ts';
import { makeDataKey, newId, signDataToken, signProcessToken } from '../core/src/index.ts';
import { findFreePort } from '../scripts/lib/ports.ts';
import { waitForHttp } from '../scripts/lib/http.ts';
import { withPassword } from '../scripts/lib/postgres.ts';
import { REPO_ROOT, WRANGLER_BIN } from '../scripts/lib/paths.ts';

const CHUNK_BYTES = 512 * 1024;

export const FIELDS: ExportField[] = [
  { name: 'id', data_type: 'BigInt' },
  { name: 'created_at', data_type: 'DateTime' },
  { name: 'country', data_type: 'String' },
  { name: 'status', data_type: 'String' },
  { name: 'amount', data_type: 'Float' },
  { name: 'quantity', data_type: 'Integer' },
];

const COUNTRIES = ['DE', 'FR', 'NL', 'US', 'GB', 'ES', 'IT', 'PL'];
const STATUSES = ['paid', 'shipped', 'refunded', 'open, "pending"'];

/** Row `i` as the engine writes it. */
function rowJson(i: number): string {
  const ts = new Date(Date.UTC(2025, 0, 1) + i * 37_000).toISOString().replace('.000Z', 'Z');
  const amount = ((i * 7919) % 1_000_000) / 100;
  return `[${i},"${ts}","${COUNTRIES[i % 8]}",${JSON.stringify(STATUSES[i % 4])},${amount},${i % 97}]`;
}

/** A few distinct chunks of ~512 KB and how many rows each holds. */
function makeChunks(): { chunks: Uint8Array[]; rowsPerChunk: number[] } {
  const enc = new TextEncoder();
  const chunks: Uint8Array[] = [];
  const rowsPerChunk: number[] = [];
  let i = 0;
  for (let c = 0; c < 4; c++) {
    const parts: string[] = [];
    let size = 0;
    while (size < CHUNK_BYTES) {
      const r = rowJson(i++);
      parts.push(r);
      size += r.length + 1;
    }
    chunks.push(enc.encode(parts.join(',')));
    rowsPerChunk.push(parts.length);
  }
  return { chunks, rowsPerChunk };
}

/** Chunks totalling about `rows` rows (whole chunks). */
function* source(rows: number, made: ReturnType<typeof makeChunks>): Generator<Uint8Array> {
  let n = 0;
  for (let k = 0; n < rows; k++) {
    const i = k % made.chunks.length;
    n += made.rowsPerChunk[i]!;
    yield made.chunks[i]!;
  }
}

function countRows(rows: number, made: ReturnType<typeof makeChunks>): { rows: number; bytes: number } {
  let n = 0;
  let bytes = 0;
  for (let k = 0; n < rows; k++) {
    n += made.rowsPerChunk[k % made.chunks.length]!;
    bytes += made.chunks[k % made.chunks.length]!.length + 1;
  }
  return { rows: n, bytes };
}

const csvDefault: CsvOptions = { column_separator: 'comma', decimal_separator: 'point', quote_style: 'necessary' };
const csvEuropean: CsvOptions = { column_separator: 'semicolon', decimal_separator: 'comma', quote_style: 'always' };

const FORMATS: Record<string, { label: string; run: (rows: number, made: ReturnType<typeof makeChunks>) => AsyncIterable<Uint8Array> }> = {
  json: {
    label: 'JSON (chunks joined, as GET /data)',
    async *run(rows, made) {
      const enc = new TextEncoder();
      yield enc.encode('{"rows":[');
      let first = true;
      for (const c of source(rows, made)) {
        if (!first) yield enc.encode(',');
        first = false;
        yield c;
      }
      yield enc.encode(']}');
    },
  },
  csv: { label: 'CSV (comma, point, necessary)', run: (rows, made) => csvStream(FIELDS, source(rows, made), csvDefault) },
  csv_eu: { label: 'CSV (semicolon, decimal comma, always)', run: (rows, made) => csvStream(FIELDS, source(rows, made), csvEuropean) },
  csv_zip: {
    label: 'CSV zip (deflate)',
    run: (rows, made) => zipStream([{ name: fileNamer('.csv')('orders'), data: csvStream(FIELDS, source(rows, made), csvDefault) }]),
  },
  csv_zip_store: {
    label: 'CSV zip (stored)',
    run: (rows, made) => zipStream([{ name: 'orders.csv', data: csvStream(FIELDS, source(rows, made), csvDefault), method: 'store' }]),
  },
  xlsx: { label: 'XLSX (deflate)', run: (rows, made) => xlsxStream([{ name: 'orders', fields: FIELDS, chunks: source(rows, made) }]) },
  xlsx_store: {
    label: 'XLSX (stored)',
    run: (rows, made) => xlsxStream([{ name: 'orders', fields: FIELDS, chunks: source(rows, made) }], { method: 'store' }),
  },
};

async function measure(format: string, rows: number) {
  const made = makeChunks();
  const { rows: actualRows, bytes: inputBytes } = countRows(rows, made);
  const before = process.memoryUsage().rss;
  let peak = before;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 20);
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  let out = 0;
  let pieces = 0;
  for await (const piece of FORMATS[format]!.run(rows, made)) {
    out += piece.length;
    if (++pieces % 64 === 0) peak = Math.max(peak, process.memoryUsage().rss);
  }
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  clearInterval(timer);
  peak = Math.max(peak, process.memoryUsage().rss, process.resourceUsage().maxRSS * 1024);
  console.log(JSON.stringify({ format, rows: actualRows, inputBytes, outputBytes: out, seconds, cpuSeconds, peakRssBytes: peak, baseRssBytes: before }));
}

function table(
  results: { format: string; rows: number; inputBytes: number; outputBytes: number; seconds: number; cpuSeconds: number; peakRssBytes: number }[],
) {
  const mb = (b: number) => (b / 1e6).toFixed(1);
  const lines = [
    '| format | rows | output MB | wall s | CPU s | rows/s (CPU) | peak RSS MB |',
    '|---|---:|---:|---:|---:|---:|---:|',
    ...results.map(
      (r) =>
        `| ${FORMATS[r.format]!.label} | ${r.rows.toLocaleString('en')} | ${mb(r.outputBytes)} | ${r.seconds.toFixed(2)} | ${r.cpuSeconds.toFixed(2)} | ${Math.round(r.rows / r.cpuSeconds).toLocaleString('en')} | ${mb(r.peakRssBytes)} |`,
    ),
  ];
  return lines.join('\n');
}

/** Every process below `pid` (wrangler starts workerd as a child). */
function descendants(pid: number): number[] {
  const out: number[] = [];
  const children = new Map<number, number[]>();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const ppid = Number(/PPid:\s+(\d+)/.exec(readFileSync(`/proc/${d}/status`, 'utf8'))![1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(d)]);
    } catch {
      /* gone */
    }
  }
  const walk = (p: number) => {
    for (const c of children.get(p) ?? []) {
      out.push(c);
      walk(c);
    }
  };
  walk(pid);
  return out;
}

const rssOf = (pid: number) => {
  try {
    return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;
  } catch {
    return 0;
  }
};

/** The workerd process of a wrangler dev (the largest descendant). */
function workerdPid(wrangler: number): number {
  const pids = descendants(wrangler).filter((p) => {
    try {
      return readFileSync(`/proc/${p}/cmdline`, 'utf8').includes('workerd');
    } catch {
      return false;
    }
  });
  if (!pids.length) throw new Error('no workerd process under wrangler');
  return pids.sort((a, b) => rssOf(b) - rssOf(a))[0]!;
}

async function storeSynthetic(sql: postgres.Sql, rows: number) {
  const made = makeChunks();
  const org = newId('organization');
  const exe = newId('execution');
  const key = makeDataKey('eu', org, exe, 'bench000000000000'.slice(0, 16));
  const expires = new Date(Date.now() + 3_600_000);
  await sql`insert into organizations (id, name) values (${org}, 'data-formats bench')`;
  await sql`insert into executions (id, organization_id, execution_type, execution_status, sql_query, expires_at)
            values (${exe}, ${org}, 'sql_query', 'success', 'synthetic', ${expires})`;
  const fields = FIELDS.map((f, idx) => ({
    idx,
    name: f.name,
    data_type: f.data_type,
    unique_count: null,
    human_name: f.name,
    min_value: null,
    max_value: null,
    group_by: false,
  }));
  const { rows: n, bytes } = countRows(rows, made);
  await sql`insert into results (execution_id, organization_id, data_key, fields, row_count, size_in_bytes, time_zone, data_timestamp, expires_at)
            values (${exe}, ${org}, ${key}, ${sql.json(fields)}, ${n}, ${bytes}, 'UTC', now(), ${expires})`;
  let seq = 0;
  for (const chunk of source(rows, made)) {
    await sql`insert into result_chunks (execution_id, seq, rows, data) values (${exe}, ${seq}, ${made.rowsPerChunk[seq % made.chunks.length]!}, ${Buffer.from(chunk)})`;
    seq++;
  }
  return { org, key, rows: n, bytes, cleanup: () => sql`delete from organizations where id = ${org}` };
}

async function serverBench(rows: number, only?: string[]) {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error('Set DATABASE_URL to a migrated database (npx tsx scripts/dev-db.ts bench).');
  const sql = postgres(withPassword(url), { max: 1, onnotice: () => {} });
  const stored = await storeSynthetic(sql, rows);
  const port = await findFreePort(8990);
  const inspector = await findFreePort(port + 1);
  const secret = 'bench-data-token-secret';
  let wrangler: ChildProcess | null = null;
  try {
    wrangler = spawn(
      process.execPath,
      [
        WRANGLER_BIN,
        'dev',
        '-c',
        'worker-data/wrangler.toml',
        '--env',
        'eu',
        '--ip',
        '127.0.0.1',
        '--port',
        String(port),
        '--inspector-port',
        String(inspector),
        '--log-level',
        'error',
        '--show-interactive-dev-session=false',
        '--var',
        `DATA_TOKEN_SECRET:${secret}`,
      ],
      {
        cwd: REPO_ROOT,
        stdio: ['ignore', 'ignore', 'inherit'],
        detached: true,
        env: { ...process.env, WRANGLER_SEND_METRICS: 'false', CLOUDFLARE_HYPERDRIVE_LOCAL_CONNECTION_STRING_HYPERDRIVE: withPassword(url) },
      },
    );
    const base = `http://127.0.0.1:${port}`;
    await waitForHttp(`${base}/health`, { timeoutMs: 120_000 });
    const pid = workerdPid(wrangler.pid!);
    const item = [{ key: stored.key, name: 'orders', id: 'rpt_bench' }];
    let runs: { id: string; label: string; request: () => Promise<Response> }[] = [];
    const get = (format?: 'csv' | 'xlsx') => async () =>
      fetch(`${base}/data/${stored.key}`, {
        headers: {
          authorization: `Data ${await signDataToken({ kind: 'data', org: stored.org, key: stored.key, region: 'eu', ...(format ? { format } : {}) }, secret)}`,
        },
      });
    const proc = (format: 'json' | 'csv_zip' | 'xlsx') => async () =>
      fetch(`${base}/process`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ data_access_token: await signProcessToken({ kind: 'process', org: stored.org, region: 'eu', items: item, format }, secret) }),
      });
    runs.push(
      { id: 'json', label: 'GET /data (JSON)', request: get() },
      { id: 'csv', label: 'GET /data (CSV)', request: get('csv') },
      { id: 'csv_zip', label: 'POST /process (CSV zip)', request: proc('csv_zip') },
      { id: 'xlsx', label: 'POST /process (XLSX)', request: proc('xlsx') },
    );
    if (only) runs = runs.filter((r) => only.includes(r.id));
    console.log(
      `Node ${process.version}; ${stored.rows.toLocaleString('en')} rows, ${(stored.bytes / 1e6).toFixed(1)} MB of stored JSON; workerd idle RSS ${(rssOf(pid) / 1e6).toFixed(0)} MB\n`,
    );
    console.log('| download | status | bytes | seconds to last byte | peak workerd RSS MB |');
    console.log('|---|---:|---:|---:|---:|');
    for (const r of runs) {
      let peak = rssOf(pid);
      const timer = setInterval(() => {
        peak = Math.max(peak, rssOf(pid));
      }, 25);
      const t0 = performance.now();
      const res = await r.request();
      let bytes = 0;
      for await (const piece of res.body as unknown as AsyncIterable<Uint8Array>) bytes += piece.length;
      const seconds = (performance.now() - t0) / 1000;
      clearInterval(timer);
      peak = Math.max(peak, rssOf(pid));
      console.log(`| ${r.label} | ${res.status} | ${bytes.toLocaleString('en')} | ${seconds.toFixed(2)} | ${(peak / 1e6).toFixed(0)} |`);
    }
  } finally {
    if (wrangler?.pid) {
      try {
        process.kill(-wrangler.pid, 'SIGTERM');
      } catch {
        /* already gone */
      }
    }
    await stored.cleanup();
    await sql.end({ timeout: 5 });
  }
}

async function main() {
  const args = process.argv.slice(2);
  const arg = (name: string) => {
    const i = args.indexOf(`--${name}`);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const rows = Number(arg('rows') ?? 1_000_000);
  if (args.includes('--server')) return serverBench(rows, arg('only')?.split(','));
  const child = arg('child');
  if (child) return measure(child, rows);
  // json (the chunks passed through untouched) only on request: it measures nothing but the loop.
  const only = (
    arg('only') ??
    Object.keys(FORMATS)
      .filter((f) => f !== 'json')
      .join(',')
  ).split(',');
  const results = [];
  for (const format of only) {
    const res = spawnSync(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), '--child', format, '--rows', String(rows)], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    if (res.status !== 0) throw new Error(`${format} failed`);
    results.push(JSON.parse(res.stdout.trim().split('\n').pop()!));
  }
  console.log(`Node ${process.version}, ${rows.toLocaleString('en')} rows requested, ~512 KB chunks\n`);
  console.log(table(results));
}

await main();
