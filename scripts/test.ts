/**
 * `npm test`: every suite against fresh databases, in two lanes that run at the same time.
 *
 * 1. Postgres: DATABASE_URL, else 127.0.0.1:5432 if it answers, else the embedded PostgreSQL (said out loud).
 * 2. Lane A, the linter and the unused-code finder (Biome, knip: D69), then the workspaces' suites one
 *    after the other (core, db, docs, client, worker-api and its
 *    ClickHouse suite, worker-data, remix-app),
 *    against a per-run database cairn_test_<stamp>_<rand>, migrated, and its sample database <that>_sample
 *    (the shop and the login role cairn_sample, D32); the workers' suites get both (SAMPLE_DATABASE_URL).
 * 3. Lane B, at the same time: a database of its own (cairn_teste2e_…), the stack as `npm start` runs it on
 *    free ports with a throwaway state dir, then e2e/*.test.ts; the stack stops as soon as e2e is done, and
 *    lane B goes on with the deploy dry runs (the app's build is current then) and the suites marked
 *    `afterE2e` (the second worker-api configs, worker-data, remix-app), so both lanes end at about the same time. Its output lines start
 *    with `B │`. (Most of lane A's time is workerd starting and importing per test file
 *    and most of lane B's is waiting on browsers and servers, so the two share two cores well: D47.)
 * 4. A summary: each suite's counts, each lane's time and the failed tests by name. Exit code 1 if anything
 *    failed in either lane (130 when interrupted).
 * 5. Always (also on Ctrl-C): stop the stack, drop the databases (unless KEEP_TEST_DB=1), remove the state.
 *
 * Env: CAIRN_TEST_SERIAL=1 (the lanes one after the other, as before: lane A, then lane B on lane A's
 * database, no prefixes), CAIRN_SKIP_BROWSER=1 (no Chromium tests), CAIRN_SKIP_SSHD=1 (no real OpenSSH server for the SSH tunnel tests), CAIRN_SKIP_CLICKHOUSE=1 (no real
 * ClickHouse server), KEEP_TEST_DB=1, CAIRN_TEST_VERBOSE=1 (show the stack's output),
 * CAIRN_SUITE_TIMEOUT_S (per suite, default 2400; 1800 serial), CAIRN_FORCE_EMBEDDED=1
 * (ignore a server on 5432).
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { pickPostgres, createRunDatabase, type PickedPostgres, type RunDatabase } from './lib/database.ts';
import { errorMessage, fail, paint, say, warn, withLinePrefix, writeLines } from './lib/log.ts';
import { REPO_ROOT } from './lib/paths.ts';
import { randomPortBase } from './lib/ports.ts';
import { redact } from './lib/postgres.ts';
import { Supervisor } from './lib/procs.ts';
import { startStack } from './lib/stack.ts';
import { runVitest, type SuiteResult } from './lib/vitest.ts';
import { appBuildReason } from './lib/app-build.ts';

/** `config`: a second suite of the workspace with its own vitest config (e.g. one that starts a server). */
/**
 * `afterE2e`: side by side, lane B runs the suite once e2e is done (on its own database, the stack stopped),
 * so the two lanes end together (lane A alone took ~4 minutes longer); serially, lane A runs it.
 */
interface Workspace {
  dir: string;
  needsConfig: boolean;
  config?: string;
  name?: string;
  env?: Record<string, string>;
  files?: string[];
  afterE2e?: boolean;
}
const WORKSPACES: Workspace[] = [
  { dir: 'core', needsConfig: false },
  { dir: 'db', needsConfig: false },
  { dir: 'docs', needsConfig: false },
  { dir: 'client', needsConfig: false },
  // The whole suite through the DbPool objects, as the local stack does (D53). Run whole through Hyperdrive
  // it passed too (and found the jsonb bug of lib/statement-client.ts), but beside the e2e stack local
  // Hyperdrive's connection per client ran the shared server out of connections ("too many clients").
  { dir: 'worker-api', needsConfig: true, env: { CAIRN_DB_ACCESS: 'pool' } },
  // Statements straight through Hyperdrive, as production sends them: the files that exercise every kind
  // of database access (reads, writes, transactions, the cron, the gate, sessions, isolation) and the ones
  // that failed only there (jsonb operators: 2FA recovery codes, SSO domains, the security settings).
  {
    dir: 'worker-api',
    needsConfig: true,
    name: 'worker-api (hyperdrive)',
    afterE2e: true,
    files: [
      'test/isolation.test.ts',
      'test/regions.test.ts',
      'src/lib/read-cache.test.ts',
      'src/resources/executions/executions.test.ts',
      'src/cron.test.ts',
      'src/auth/sessions.test.ts',
      'src/resources/dashboard-status/dashboard-status.test.ts',
      'src/resources/reports/data.test.ts',
      'src/resources/export-jobs/create.test.ts',
      'src/jobs/queue.test.ts',
      'src/auth/two-factor.test.ts',
      'src/auth/sso/sso.test.ts',
      'src/auth/org-security.test.ts',
      'test/audit-transaction.test.ts',
    ],
  },
  // The ClickHouse connector against a real clickhouse-server (started by the config's global setup).
  { dir: 'worker-api', needsConfig: true, config: 'vitest.clickhouse.ts', name: 'worker-api clickhouse', afterE2e: true },
  // SSH tunnels through a real OpenSSH server (started by the config's global setup).
  { dir: 'worker-api', needsConfig: true, config: 'vitest.sshd.ts', name: 'worker-api sshd', afterE2e: true },
  { dir: 'worker-data', needsConfig: true, afterE2e: true },
  { dir: 'remix-app', needsConfig: true, afterE2e: true },
];
const CONFIG_NAMES = ['vitest.config.ts', 'vitest.config.mts', 'vitest.config.js', 'vitest.config.mjs'];
const CHROMIUM = '/usr/bin/chromium';
const STACK_FILE = join(REPO_ROOT, '.cairn/test-stack.json');
const TSX_BIN = join(REPO_ROOT, 'node_modules/tsx/dist/cli.mjs');
const E2E_PREFIX = 'B │ ';

class Interrupted extends Error {}

function hasTestFiles(dir: string): boolean {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return false;
  }
  for (const e of entries) {
    if (e === 'node_modules' || e.startsWith('.') || e === 'build' || e === 'dist') continue;
    const p = join(dir, e);
    if (statSync(p).isDirectory()) {
      if (hasTestFiles(p)) return true;
    } else if (/\.test\.[cm]?[jt]sx?$/.test(e)) return true;
  }
  return false;
}

function stamp(d = new Date()): string {
  return d.toISOString().replace(/[-:T]/g, '').slice(0, 14);
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

interface Lane {
  label: string;
  results: SuiteResult[];
  notes: string[];
  /** Wall time of the lane (0: it did not start). */
  durationMs: number;
  /** Something outside a suite went wrong (the stack did not start, a database could not be made). */
  broken: boolean;
}

function newLane(label: string): Lane {
  return { label, results: [], notes: [], durationMs: 0, broken: false };
}

function laneFailed(lane: Lane): boolean {
  return lane.broken || lane.results.some((r) => r.status !== 'passed' || r.failed > 0);
}

const MAX_FAILURES_LISTED = 25;

function printSummary(lanes: Lane[], notes: string[], parallel: boolean): { passed: number; failed: number; skipped: number } {
  const results = lanes.flatMap((l) => l.results);
  const rows = results.map((r) => [r.name, r.status, String(r.passed), String(r.failed), String(r.skipped), seconds(r.durationMs)]);
  const head = ['suite', 'status', 'passed', 'failed', 'skipped', 'time'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const fmt = (cells: string[]) => cells.map((c, i) => (i < 2 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  console.log('');
  console.log(paint('bold', 'Summary'));
  console.log(`  ${paint('bold', fmt(head))}`);
  for (const [i, r] of results.entries()) {
    const color = r.status === 'passed' ? 'green' : r.status === 'not run' ? 'yellow' : 'red';
    console.log(`  ${paint(color, fmt(rows[i]!))}`);
    if (r.note) console.log(`    ${paint('gray', r.note)}`);
    // Where a long suite's time went (the CI record keeps only this summary).
    if (r.durationMs > 120_000 && r.slowest?.length) console.log(`    ${paint('gray', `slowest files: ${r.slowest.join(' · ')}`)}`);
  }
  console.log('');
  for (const lane of lanes) {
    if (lane.durationMs === 0 && lane.results.length === 0) continue;
    const bad = laneFailed(lane);
    console.log(`  ${paint(bad ? 'red' : 'green', `${lane.label}: ${bad ? 'FAILED' : 'passed'} in ${seconds(lane.durationMs)}`)}`);
  }
  if (parallel) console.log(`  ${paint('gray', 'the two lanes ran at the same time (CAIRN_TEST_SERIAL=1: one after the other)')}`);
  const failures = results.flatMap((r) => (r.failures ?? []).map((f) => `${r.name}: ${f}`));
  if (failures.length) {
    console.log('');
    console.log(`  ${paint('red', `failed tests (${failures.length}):`)}`);
    for (const f of failures.slice(0, MAX_FAILURES_LISTED)) console.log(`    ${paint('red', '✗')} ${f}`);
    if (failures.length > MAX_FAILURES_LISTED) console.log(`    … and ${failures.length - MAX_FAILURES_LISTED} more (see the output above)`);
  }
  for (const n of [...lanes.flatMap((l) => l.notes), ...notes]) console.log(`  ${paint('yellow', `note: ${n}`)}`);
  const total = { passed: 0, failed: 0, skipped: 0 };
  for (const r of results) {
    total.passed += r.passed;
    total.failed += r.failed;
    total.skipped += r.skipped;
  }
  return total;
}

interface RunContext {
  abort: AbortController;
  check: () => void;
  suiteTimeoutMs: number;
  verbose: boolean;
  skipBrowser: boolean;
}

function suiteEnvFor(db: RunDatabase): NodeJS.ProcessEnv {
  return {
    ...process.env,
    // The server's superuser URL for suites that make databases of their own (db/test/helpers.ts).
    DATABASE_URL: db.url,
    SAMPLE_DATABASE_URL: db.sampleUrl,
    WRANGLER_SEND_METRICS: 'false',
    CLOUDFLARE_CF_FETCH_ENABLED: 'false',
  };
}

/**
 * Lane A: the linter and the unused-code finder, then the workspaces' suites one after the other. `part`
 * 'first' leaves out what lane B runs after e2e (those suites and the deploy dry runs); 'all' runs everything.
 */
async function workspaceLane(ctx: RunContext, lane: Lane, db: RunDatabase, part: 'first' | 'all'): Promise<void> {
  // The linter (import cycles included) and the unused-code finder first: fast, and no database (D69).
  for (const [name, args] of STATIC_CHECKS) {
    ctx.check();
    lane.results.push(await commandSuite(ctx, name, args));
  }
  await workspaceSuites(ctx, lane, db, part === 'all' ? WORKSPACES : WORKSPACES.filter((w) => !w.afterE2e));
  if (part === 'all') await deployDryRuns(ctx, lane);
}

/**
 * What lane B runs once e2e is done: the deploy dry runs first, while the app's build from the stack is
 * current (a suite's temporary files, vitest's bundled config for one, change the folders' mtimes that
 * the staleness check reads), then the suites.
 */
async function afterE2eSuites(ctx: RunContext, lane: Lane, db: RunDatabase): Promise<void> {
  await deployDryRuns(ctx, lane);
  await workspaceSuites(
    ctx,
    lane,
    db,
    WORKSPACES.filter((w) => w.afterE2e),
  );
}

async function workspaceSuites(ctx: RunContext, lane: Lane, db: RunDatabase, list: Workspace[]): Promise<void> {
  const env = suiteEnvFor(db);
  for (const ws of list) {
    ctx.check();
    const dir = join(REPO_ROOT, ws.dir);
    const config = ws.config ? (existsSync(join(dir, ws.config)) ? ws.config : undefined) : CONFIG_NAMES.find((n) => existsSync(join(dir, n)));
    if (!config && (ws.needsConfig || !hasTestFiles(dir))) {
      const why = hasTestFiles(dir) ? 'has tests but no vitest config yet' : 'no vitest config and no tests yet';
      say(paint('yellow', `skipping ${ws.dir}: ${why}`));
      lane.notes.push(`${ws.dir} skipped: ${why}`);
      continue;
    }
    const name = ws.name ?? ws.dir;
    say(paint('bold', `── ${name} ──`));
    const args = [...(ws.config ? ['--root', ws.dir, '--config', join(dir, ws.config)] : ['--root', ws.dir]), ...(ws.files ?? [])];
    lane.results.push(await runVitest({ name, args, env: ws.env ? { ...env, ...ws.env } : env, timeoutMs: ctx.suiteTimeoutMs, signal: ctx.abort.signal }));
  }
}

async function deployDryRuns(ctx: RunContext, lane: Lane): Promise<void> {
  for (const region of ['eu', 'us'] as const) {
    ctx.check();
    lane.results.push(await deployDryRun(ctx, region, lane));
  }
}

/** Static checks run as commands from the repository root: Biome's linter and knip (D69). */
const STATIC_CHECKS: [string, string[]][] = [
  ['lint and format (biome)', [join(REPO_ROOT, 'node_modules/@biomejs/biome/bin/biome'), 'check', '--reporter=summary', '.']],
  ['unused code (knip)', [join(REPO_ROOT, 'node_modules/knip/bin/knip.js'), '--no-progress']],
];

/** One command as a suite: passed when it exits 0. */
async function commandSuite(ctx: RunContext, name: string, args: string[]): Promise<SuiteResult> {
  say(paint('bold', `── ${name} ──`));
  const started = Date.now();
  const code = await new Promise<number>((resolve) => {
    const proc = spawn(process.execPath, args, { cwd: REPO_ROOT, stdio: ['ignore', 'inherit', 'inherit'], env: process.env });
    const stop = () => proc.kill('SIGTERM');
    ctx.abort.signal.addEventListener('abort', stop, { once: true });
    proc.on('error', () => resolve(1));
    proc.on('exit', (c) => {
      ctx.abort.signal.removeEventListener('abort', stop);
      resolve(c ?? 1);
    });
  });
  return {
    name,
    status: code === 0 ? 'passed' : 'failed',
    passed: code === 0 ? 1 : 0,
    failed: code === 0 ? 0 : 1,
    skipped: 0,
    durationMs: Date.now() - started,
  };
}

/**
 * `npm run deploy -- --env <region> --dry-run` (D53): every worker's config checked and bundled by
 * wrangler, nothing uploaded. The app is bundled too when its build is current (lane B builds it).
 */
async function deployDryRun(ctx: RunContext, region: 'eu' | 'us', lane: Lane): Promise<SuiteResult> {
  const name = `deploy dry-run (${region})`;
  say(paint('bold', `── ${name} ──`));
  const stale = appBuildReason();
  const withApp = stale === null;
  if (!withApp) lane.notes.push(`${name}: the app was left out (its build is not current: ${stale})`);
  const started = Date.now();
  const code = await new Promise<number>((resolve) => {
    const proc = spawn(process.execPath, [TSX_BIN, 'scripts/deploy.ts', '--env', region, '--dry-run', ...(withApp ? [] : ['--no-app'])], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'inherit', 'inherit'],
      env: { ...process.env, WRANGLER_SEND_METRICS: 'false', CLOUDFLARE_CF_FETCH_ENABLED: 'false' },
    });
    const stop = () => proc.kill('SIGTERM');
    ctx.abort.signal.addEventListener('abort', stop, { once: true });
    proc.on('exit', (c) => {
      ctx.abort.signal.removeEventListener('abort', stop);
      resolve(c ?? 1);
    });
  });
  return {
    name,
    status: code === 0 ? 'passed' : 'failed',
    passed: code === 0 ? 1 : 0,
    failed: code === 0 ? 0 : 1,
    skipped: 0,
    durationMs: Date.now() - started,
  };
}

/**
 * Lane B: the stack as `npm start` runs it (on `db`, on free ports, state in `stateDir`), then the e2e
 * suite against it; the stack is stopped before this returns, so the other lane gets the machine back.
 */
async function e2eLane(ctx: RunContext, lane: Lane, db: RunDatabase, stateDir: string): Promise<void> {
  const browserMissing = !existsSync(CHROMIUM);
  if (browserMissing && !ctx.skipBrowser) {
    lane.results.push({
      name: 'e2e browser',
      status: 'crashed',
      passed: 0,
      failed: 1,
      skipped: 0,
      durationMs: 0,
      note: `${CHROMIUM} is missing: install Debian's chromium (apt-get install chromium) or set CAIRN_SKIP_BROWSER=1`,
    });
    fail(`${CHROMIUM} is missing; the browser tests cannot run (install chromium, or set CAIRN_SKIP_BROWSER=1). Running the other e2e tests.`);
  }
  const skipBrowserTests = ctx.skipBrowser || browserMissing;
  if (ctx.skipBrowser) lane.notes.push('browser tests skipped (CAIRN_SKIP_BROWSER=1)');

  // Its own supervisor, so the stack can stop as soon as e2e is done (a second Ctrl-C exits the process,
  // and every supervisor kills its children on exit).
  const sup = new Supervisor();
  try {
    say(paint('bold', '── starting the stack for e2e ──'));
    const stackStart = Date.now();
    try {
      await startStack(sup, {
        databaseUrl: db.url,
        stateDir,
        stackFile: STACK_FILE,
        credsFile: join(stateDir, 'dev-credentials.json'),
        portBase: randomPortBase(),
        strictPorts: false,
        app: true,
        // The docs test hooks (a page that crashes on demand) for e2e/docs.browser.test.ts.
        appVars: { DOCS_TEST_HOOKS: '1' },
        quiet: !ctx.verbose,
        signal: ctx.abort.signal,
      });
    } catch (err) {
      ctx.check();
      lane.broken = true;
      lane.results.push({
        name: 'e2e',
        status: 'crashed',
        passed: 0,
        failed: 1,
        skipped: 0,
        durationMs: Date.now() - stackStart,
        note: `the stack did not start: ${errorMessage(err).split('\n')[0]}`,
      });
      fail(`the stack did not start: ${errorMessage(err)}`);
      return;
    }
    ctx.check();
    say(`stack is up (${seconds(Date.now() - stackStart)}); ${relative(REPO_ROOT, STACK_FILE)} written`);
    // `npm start`'s health watch (restarting a worker that stops answering) is not run here: with it, CI's
    // first e2e sign-in twice stayed on the sign-in page (not understood yet; see the closing note), so the
    // test that kills a worker (e2e/jobs-truth) runs only against `npm start`'s stack (CAIRN_E2E_KILL_WORKERS=1).
    let stackDied: string | null = null;
    sup.onUnexpectedExit((child) => {
      stackDied = child.describeExit();
      fail(`during e2e: ${stackDied}`);
    });
    say(paint('bold', '── e2e ──'));
    const e2e = await runVitest({
      name: 'e2e',
      args: ['--config', 'e2e/vitest.config.ts'],
      env: { ...suiteEnvFor(db), CAIRN_STACK_FILE: STACK_FILE, CAIRN_SKIP_BROWSER: skipBrowserTests ? '1' : '0' },
      timeoutMs: ctx.suiteTimeoutMs,
      signal: ctx.abort.signal,
    });
    if (stackDied) e2e.note = [e2e.note, `a stack process died: ${String(stackDied).split('\n')[0]}`].filter(Boolean).join('; ');
    lane.results.push(e2e);
    if (e2e.status !== 'passed' && !ctx.verbose) {
      for (const child of sup.children) {
        if (child.tail.length) writeLines(process.stdout, `\n${paint('gray', `last output of ${child.name}:`)}\n    ${child.tail.slice(-12).join('\n    ')}`);
      }
    }
  } finally {
    await sup.stopAll();
    const left = sup.liveGroups();
    if (left.length) warn(`stack process groups still alive after stopping: ${left.join(', ')}`);
  }
}

/** Runs one lane, timing it; an error inside it marks it broken (an interrupt is left to the caller). */
async function timed(ctx: RunContext, lane: Lane, body: () => Promise<void>): Promise<void> {
  const t = Date.now();
  try {
    await body();
  } catch (err) {
    if (!(err instanceof Interrupted || ctx.abort.signal.aborted)) {
      lane.broken = true;
      fail(`${lane.label}: ${errorMessage(err)}`);
      lane.results.push({
        name: `${lane.label} setup`,
        status: 'crashed',
        passed: 0,
        failed: 1,
        skipped: 0,
        durationMs: Date.now() - t,
        note: errorMessage(err).split('\n')[0],
      });
    }
  } finally {
    lane.durationMs = Date.now() - t;
  }
}

async function main(): Promise<number> {
  const t0 = Date.now();
  const runStamp = stamp();
  const stateDir = join(REPO_ROOT, '.data', `test-${runStamp}-${process.pid}`);
  const serial = process.env.CAIRN_TEST_SERIAL === '1';

  const sup = new Supervisor(); // the embedded Postgres, when there is one
  const abort = new AbortController();
  // Ctrl-C arrives twice (terminal and tsx's relay): a repeat within 2 s is the same interrupt.
  let firstSignalAt = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    const now = Date.now();
    if (firstSignalAt === 0) firstSignalAt = now;
    else if (now - firstSignalAt < 2000) return;
    else {
      warn('second interrupt: killing everything now (the test databases and state may be left behind)');
      sup.killAllNow();
      process.exit(130);
    }
    warn(`${signal} received: stopping and cleaning up…`);
    abort.abort();
  };
  process.on('SIGINT', () => onSignal('SIGINT'));
  process.on('SIGTERM', () => onSignal('SIGTERM'));
  const ctx: RunContext = {
    abort,
    check: () => {
      if (abort.signal.aborted) throw new Interrupted('interrupted');
    },
    // Against a hang, not a slow machine: with the lanes side by side a suite takes longer than alone.
    suiteTimeoutMs: Number(process.env.CAIRN_SUITE_TIMEOUT_S ?? (serial ? 1800 : 2400)) * 1000,
    verbose: process.env.CAIRN_TEST_VERBOSE === '1',
    skipBrowser: process.env.CAIRN_SKIP_BROWSER === '1',
  };

  const laneA = newLane('lane A (workspace suites)');
  const laneB = newLane('lane B (stack + e2e)');
  const notes: string[] = [];
  const databases: RunDatabase[] = [];
  /** The embedded server's databases go with its data directory (in the state dir). */
  let embedded = false;
  let setupFailed = false;

  try {
    // 1. The server, and lane A's database.
    const pg: PickedPostgres = await pickPostgres(sup, { quiet: !ctx.verbose, embeddedPortFrom: randomPortBase(), embeddedDir: stateDir });
    embedded = pg.kind === 'embedded';
    ctx.check();
    const dbA = await createRunDatabase(pg, 'cairn_test');
    databases.push(dbA);
    say(`test databases: ${dbA.name} (migrated) and ${dbA.sampleName} (the sample shop)`);
    ctx.check();

    const stackState = join(stateDir, 'stack');
    if (serial) {
      say('CAIRN_TEST_SERIAL=1: the workspace suites, then the stack and e2e');
      await timed(ctx, laneA, () => workspaceLane(ctx, laneA, dbA, 'all'));
      ctx.check();
      await timed(ctx, laneB, () => e2eLane(ctx, laneB, dbA, stackState));
    } else {
      say(`two lanes at once: the workspace suites, and (lines marked "${E2E_PREFIX.trim()}") the stack and e2e`);
      await Promise.all([
        timed(ctx, laneA, () => workspaceLane(ctx, laneA, dbA, 'first')),
        withLinePrefix(E2E_PREFIX, () =>
          timed(ctx, laneB, async () => {
            const dbB = await createRunDatabase(pg, 'cairn_teste2e');
            databases.push(dbB);
            say(`e2e database: ${dbB.name} and ${dbB.sampleName}`);
            ctx.check();
            await e2eLane(ctx, laneB, dbB, stackState);
            ctx.check();
            // Also after a failed e2e: these suites do not depend on it, and the summary should name every failure.
            await afterE2eSuites(ctx, laneB, dbB);
          }),
        ),
      ]);
    }
    ctx.check();
  } catch (err) {
    if (err instanceof Interrupted || abort.signal.aborted) {
      notes.push('interrupted: the remaining suites did not run');
    } else {
      setupFailed = true;
      fail(errorMessage(err));
      laneA.results.push({ name: 'setup', status: 'crashed', passed: 0, failed: 1, skipped: 0, durationMs: 0, note: errorMessage(err).split('\n')[0] });
    }
  } finally {
    // 5. Clean up whatever happened.
    await sup.stopAll();
    const left = sup.liveGroups();
    if (left.length) warn(`process groups still alive after stopping: ${left.join(', ')}`);
    if (!embedded) {
      for (const db of databases) {
        if (process.env.KEEP_TEST_DB === '1') say(`kept the test databases ${db.name} and ${db.sampleName} (KEEP_TEST_DB=1): ${redact(db.url)}`);
        else {
          try {
            await db.drop();
          } catch (err) {
            warn(`could not drop ${db.name}: ${errorMessage(err)}`);
          }
        }
      }
    }
    rmSync(stateDir, { recursive: true, force: true });
    rmSync(STACK_FILE, { force: true });
  }

  if (abort.signal.aborted && !notes.length) notes.push('interrupted: the remaining suites did not run');
  const total = printSummary([laneA, laneB], notes, !serial);
  console.log(`  ${paint('gray', `total time ${seconds(Date.now() - t0)}`)}`);
  const interrupted = abort.signal.aborted;
  const anyBad = laneFailed(laneA) || laneFailed(laneB) || setupFailed || interrupted;
  console.log(`${total.passed} passed, ${total.failed} failed${total.skipped ? `, ${total.skipped} skipped` : ''}`);
  if (interrupted) return 130;
  return anyBad || total.failed > 0 ? 1 : 0;
}

process.exitCode = await main();
process.exit(process.exitCode);
