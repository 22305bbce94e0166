/**
 * `npm test`: every suite against one fresh database, then the end-to-end suite against the whole stack.
 *
 * 1. Postgres: DATABASE_URL, else 127.0.0.1:5432 if it answers, else the embedded PostgreSQL (said out loud).
 * 2. A per-run database cairn_test_<stamp>_<rand>, migrated, and its sample database <that>_sample (the
 *    shop and the login role cairn_sample, D32); the workers' suites get both (SAMPLE_DATABASE_URL).
 * 3. The workspaces' suites one after the other (core, db, docs, worker-api, worker-data).
 * 4. The stack as `npm start` runs it, on free ports with a throwaway state dir; then e2e/*.test.ts.
 * 5. Always (also on Ctrl-C): stop the stack, drop both databases (unless KEEP_TEST_DB=1), remove the state.
 *
 * Env: CAIRN_SKIP_BROWSER=1 (no Chromium tests), KEEP_TEST_DB=1, CAIRN_TEST_VERBOSE=1 (show the stack's
 * output), CAIRN_SUITE_TIMEOUT_S (per suite, default 900), CAIRN_FORCE_EMBEDDED=1 (ignore a server on 5432).
 */
import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { pickPostgres, createRunDatabase, type RunDatabase } from './lib/database.ts';
import { errorMessage, fail, paint, say, warn } from './lib/log.ts';
import { REPO_ROOT } from './lib/paths.ts';
import { randomPortBase } from './lib/ports.ts';
import { redact } from './lib/postgres.ts';
import { Supervisor } from './lib/procs.ts';
import { startStack } from './lib/stack.ts';
import { runVitest, type SuiteResult } from './lib/vitest.ts';

const WORKSPACES: { dir: string; needsConfig: boolean }[] = [
  { dir: 'core', needsConfig: false },
  { dir: 'db', needsConfig: false },
  { dir: 'docs', needsConfig: false },
  { dir: 'worker-api', needsConfig: true },
  { dir: 'worker-data', needsConfig: true },
  { dir: 'remix-app', needsConfig: true },
];
const CONFIG_NAMES = ['vitest.config.ts', 'vitest.config.mts', 'vitest.config.js', 'vitest.config.mjs'];
const CHROMIUM = '/usr/bin/chromium';
const STACK_FILE = join(REPO_ROOT, '.cairn/test-stack.json');

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

function printSummary(results: SuiteResult[], notes: string[]): { passed: number; failed: number; skipped: number } {
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
  }
  for (const n of notes) console.log(`  ${paint('yellow', `note: ${n}`)}`);
  const total = { passed: 0, failed: 0, skipped: 0 };
  for (const r of results) {
    total.passed += r.passed;
    total.failed += r.failed;
    total.skipped += r.skipped;
  }
  return total;
}

async function main(): Promise<number> {
  const t0 = Date.now();
  const runStamp = stamp();
  const stateDir = join(REPO_ROOT, '.data', `test-${runStamp}-${process.pid}`);
  const verbose = process.env.CAIRN_TEST_VERBOSE === '1';
  const suiteTimeoutMs = Number(process.env.CAIRN_SUITE_TIMEOUT_S ?? 900) * 1000;
  const skipBrowser = process.env.CAIRN_SKIP_BROWSER === '1';

  const sup = new Supervisor();
  const abort = new AbortController();
  // Ctrl-C arrives twice (terminal and tsx's relay): a repeat within 2 s is the same interrupt.
  let firstSignalAt = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    const now = Date.now();
    if (firstSignalAt === 0) firstSignalAt = now;
    else if (now - firstSignalAt < 2000) return;
    else {
      warn('second interrupt: killing everything now (the test database and state may be left behind)');
      sup.killAllNow();
      process.exit(130);
    }
    warn(`${signal} received: stopping and cleaning up…`);
    abort.abort();
  };
  process.on('SIGINT', () => onSignal('SIGINT'));
  process.on('SIGTERM', () => onSignal('SIGTERM'));
  const check = () => {
    if (abort.signal.aborted) throw new Interrupted('interrupted');
  };

  const results: SuiteResult[] = [];
  const notes: string[] = [];
  let runDb: RunDatabase | null = null;
  /** The embedded server's databases go with its data directory (in the state dir). */
  let embedded = false;
  let setupFailed = false;

  try {
    // 1–2. The database.
    const pg = await pickPostgres(sup, { quiet: !verbose, embeddedPortFrom: randomPortBase(), embeddedDir: stateDir });
    embedded = pg.kind === 'embedded';
    check();
    runDb = await createRunDatabase(pg, 'cairn_test');
    say(`test databases: ${runDb.name} (migrated) and ${runDb.sampleName} (the sample shop)`);
    check();

    const suiteEnv: NodeJS.ProcessEnv = {
      ...process.env,
      // The server's superuser URL for suites that make databases of their own (db/test/helpers.ts).
      DATABASE_URL: runDb.url,
      SAMPLE_DATABASE_URL: runDb.sampleUrl,
      WRANGLER_SEND_METRICS: 'false',
      CLOUDFLARE_CF_FETCH_ENABLED: 'false',
    };

    // 3. Workspace suites.
    for (const ws of WORKSPACES) {
      const dir = join(REPO_ROOT, ws.dir);
      const config = CONFIG_NAMES.find((n) => existsSync(join(dir, n)));
      if (!config && (ws.needsConfig || !hasTestFiles(dir))) {
        const why = hasTestFiles(dir) ? 'has tests but no vitest config yet' : 'no vitest config and no tests yet';
        say(paint('yellow', `skipping ${ws.dir}: ${why}`));
        notes.push(`${ws.dir} skipped: ${why}`);
        continue;
      }
      say(paint('bold', `── ${ws.dir} ──`));
      results.push(
        await runVitest({ name: ws.dir, args: ['--root', ws.dir], env: suiteEnv, timeoutMs: suiteTimeoutMs, signal: abort.signal }),
      );
      check();
    }

    // 4. The stack and the end-to-end suite.
    const browserMissing = !existsSync(CHROMIUM);
    if (browserMissing && !skipBrowser) {
      results.push({
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
    const skipBrowserTests = skipBrowser || browserMissing;
    if (skipBrowser) notes.push('browser tests skipped (CAIRN_SKIP_BROWSER=1)');

    say(paint('bold', '── starting the stack for e2e ──'));
    const stackStart = Date.now();
    try {
      await startStack(sup, {
        databaseUrl: runDb.url,
        stateDir,
        stackFile: STACK_FILE,
        credsFile: join(stateDir, 'dev-credentials.json'),
        portBase: randomPortBase(),
        strictPorts: false,
        app: true,
        // The docs test hooks (a page that crashes on demand) for e2e/docs.browser.test.ts.
        appVars: { DOCS_TEST_HOOKS: '1' },
        quiet: !verbose,
        signal: abort.signal,
      });
    } catch (err) {
      check();
      setupFailed = true;
      results.push({ name: 'e2e', status: 'crashed', passed: 0, failed: 1, skipped: 0, durationMs: Date.now() - stackStart, note: `the stack did not start: ${errorMessage(err).split('\n')[0]}` });
      fail(`the stack did not start: ${errorMessage(err)}`);
    }
    check();
    if (!setupFailed) {
      say(`stack is up (${seconds(Date.now() - stackStart)}); ${relative(REPO_ROOT, STACK_FILE)} written`);
      let stackDied: string | null = null;
      sup.onUnexpectedExit((child) => {
        stackDied = child.describeExit();
        fail(`during e2e: ${stackDied}`);
      });
      say(paint('bold', '── e2e ──'));
      const e2e = await runVitest({
        name: 'e2e',
        args: ['--config', 'e2e/vitest.config.ts'],
        env: { ...suiteEnv, CAIRN_STACK_FILE: STACK_FILE, CAIRN_SKIP_BROWSER: skipBrowserTests ? '1' : '0' },
        timeoutMs: suiteTimeoutMs,
        signal: abort.signal,
      });
      if (stackDied) e2e.note = [e2e.note, `a stack process died: ${String(stackDied).split('\n')[0]}`].filter(Boolean).join('; ');
      results.push(e2e);
      if (e2e.status !== 'passed' && !verbose) {
        for (const child of sup.children) {
          if (child.tail.length) console.log(`\n${paint('gray', `last output of ${child.name}:`)}\n    ${child.tail.slice(-12).join('\n    ')}`);
        }
      }
      check();
    }
  } catch (err) {
    if (err instanceof Interrupted || abort.signal.aborted) {
      notes.push('interrupted: the remaining suites did not run');
    } else {
      setupFailed = true;
      fail(errorMessage(err));
      results.push({ name: 'setup', status: 'crashed', passed: 0, failed: 1, skipped: 0, durationMs: 0, note: errorMessage(err).split('\n')[0] });
    }
  } finally {
    // 5. Clean up whatever happened.
    await sup.stopAll();
    const left = sup.liveGroups();
    if (left.length) warn(`process groups still alive after stopping: ${left.join(', ')}`);
    if (runDb && !embedded) {
      if (process.env.KEEP_TEST_DB === '1') say(`kept the test databases ${runDb.name} and ${runDb.sampleName} (KEEP_TEST_DB=1): ${redact(runDb.url)}`);
      else {
        try {
          await runDb.drop();
        } catch (err) {
          warn(`could not drop ${runDb.name}: ${errorMessage(err)}`);
        }
      }
    }
    rmSync(stateDir, { recursive: true, force: true });
    rmSync(STACK_FILE, { force: true });
  }

  const total = printSummary(results, notes);
  console.log(`  ${paint('gray', `total time ${seconds(Date.now() - t0)}`)}`);
  const interrupted = abort.signal.aborted;
  const anyBad = results.some((r) => r.status !== 'passed') || setupFailed || interrupted;
  console.log(`${total.passed} passed, ${total.failed} failed${total.skipped ? `, ${total.skipped} skipped` : ''}`);
  if (interrupted) return 130;
  return anyBad || total.failed > 0 ? 1 : 0;
}

process.exitCode = await main();
process.exit(process.exitCode);
