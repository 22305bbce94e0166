/** Runs one vitest suite in a child process and reads its counts from vitest's JSON reporter. */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { createInterface } from 'node:readline';
import { linePrefix } from './log.ts';
import { REPO_ROOT, VITEST_BIN } from './paths.ts';

type SuiteStatus = 'passed' | 'failed' | 'crashed' | 'not run';

export interface SuiteResult {
  name: string;
  status: SuiteStatus;
  passed: number;
  failed: number;
  skipped: number;
  durationMs: number;
  note?: string;
  /** The failed tests (`file › title`), for the summary. */
  failures?: string[];
  /** The slowest test files (`12.3 s file`), for the summary: where a long CI run went. */
  slowest?: string[];
}

interface JsonReport {
  numPassedTests?: number;
  numFailedTests?: number;
  numPendingTests?: number;
  numTodoTests?: number;
  success?: boolean;
  testResults?: {
    name?: string;
    status?: string;
    startTime?: number;
    endTime?: number;
    message?: string;
    assertionResults?: { status?: string; fullName?: string; title?: string; failureMessages?: string[] }[];
  }[];
}

/**
 * The first lines of a failed test's message, indented under its name in the summary: a CI record that keeps
 * only the summary still says why (a timeout names the step it waited on).
 */
function firstLines(messages: string[] | undefined, lines = 4): string {
  const text = (messages ?? []).join('\n').replace(/\x1b\[[0-9;]*m/g, '');
  const all = text
    .split('\n')
    .map((l) => l.trimEnd())
    .filter((l) => l.trim() !== '');
  const picked = all.slice(0, lines);
  // The line of the test file the failure came from, when the stack names one.
  const at = all.find((l) => /\.test\.[cm]?[jt]sx?:\d+/.test(l));
  if (at && !picked.includes(at)) picked.push(at.trim());
  return picked.length ? `\n        ${picked.map((l) => l.slice(0, 200)).join('\n        ')}` : '';
}

/** Counts from a JSON report; a test file that failed without any failed test (import error…) counts as one failure. */
function countReport(report: JsonReport): { passed: number; failed: number; skipped: number; fileErrors: string[]; failures: string[] } {
  const fileErrors: string[] = [];
  const failures: string[] = [];
  for (const file of report.testResults ?? []) {
    const failed = (file.assertionResults ?? []).filter((a) => a.status === 'failed');
    const where = file.name ? relative(REPO_ROOT, file.name) : '(unknown file)';
    for (const a of failed) failures.push(`${where} › ${a.fullName ?? a.title ?? '(unnamed test)'}${firstLines(a.failureMessages)}`);
    const failedTests = failed.length;
    if (file.status === 'failed' && failedTests === 0) {
      fileErrors.push(`${file.name ?? '(unknown file)'}: ${(file.message ?? 'failed to run').split('\n')[0]}`);
    }
  }
  return {
    passed: report.numPassedTests ?? 0,
    failed: (report.numFailedTests ?? 0) + fileErrors.length,
    skipped: (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0),
    fileErrors,
    failures,
  };
}

/** The `count` slowest files of a report, slowest first (wall time from the file's start to its end). */
function slowestFiles(report: JsonReport, count = 6): string[] {
  return (report.testResults ?? [])
    .filter((f) => typeof f.startTime === 'number' && typeof f.endTime === 'number')
    .map((f) => ({ ms: f.endTime! - f.startTime!, where: f.name ? relative(REPO_ROOT, f.name) : '(unknown file)' }))
    .sort((a, b) => b.ms - a.ms)
    .slice(0, count)
    .map((f) => `${(f.ms / 1000).toFixed(1)} s ${f.where}`);
}

export interface RunVitestOptions {
  name: string;
  /** Arguments after `vitest run` (e.g. `--root core` or `--config e2e/vitest.config.ts`). */
  args: string[];
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Put before each line of vitest's output (default: the current lane's, scripts/lib/log.ts); none: passed through as is. */
  prefix?: string;
}

export async function runVitest(opts: RunVitestOptions): Promise<SuiteResult> {
  const started = Date.now();
  const dir = mkdtempSync(join(tmpdir(), 'cairn-vitest-'));
  const jsonFile = join(dir, 'report.json');
  const args = [VITEST_BIN, 'run', ...opts.args, '--reporter=default', '--reporter=json', `--outputFile.json=${jsonFile}`];
  const prefix = opts.prefix ?? linePrefix();
  const proc = spawn(process.execPath, args, {
    cwd: REPO_ROOT,
    env: opts.env ?? process.env,
    stdio: ['ignore', prefix ? 'pipe' : 'inherit', prefix ? 'pipe' : 'inherit'],
    detached: true, // its own group: a timeout or Ctrl-C stops its workers too
  });
  if (prefix) {
    createInterface({ input: proc.stdout! }).on('line', (l) => process.stdout.write(`${prefix}${l}\n`));
    createInterface({ input: proc.stderr! }).on('line', (l) => process.stderr.write(`${prefix}${l}\n`));
  }
  const killGroup = (signal: NodeJS.Signals) => {
    try {
      if (proc.pid) process.kill(-proc.pid, signal);
    } catch {
      /* gone */
    }
  };
  let timedOut = false;
  const onAbort = () => {
    killGroup('SIGTERM');
    setTimeout(() => killGroup('SIGKILL'), 3000).unref();
  };
  opts.signal?.addEventListener('abort', onAbort, { once: true });
  const timer = setTimeout(
    () => {
      timedOut = true;
      onAbort();
    },
    opts.timeoutMs ?? 10 * 60_000,
  );
  const onExit = () => killGroup('SIGKILL');
  process.on('exit', onExit);

  const exit = await new Promise<{ code: number | null; signal: NodeJS.Signals | null; error?: Error }>((resolve) => {
    proc.once('error', (error) => resolve({ code: null, signal: null, error }));
    proc.once('exit', (code, signal) => resolve({ code, signal }));
  });
  clearTimeout(timer);
  opts.signal?.removeEventListener('abort', onAbort);
  process.off('exit', onExit);
  killGroup('SIGKILL'); // leftovers of a crashed run (pool workers, workerd)

  const durationMs = Date.now() - started;
  const base = { name: opts.name, durationMs };
  try {
    let report: JsonReport | null = null;
    if (existsSync(jsonFile)) {
      try {
        report = JSON.parse(readFileSync(jsonFile, 'utf8')) as JsonReport;
      } catch {
        report = null;
      }
    }
    const how = exit.error
      ? `could not start: ${exit.error.message}`
      : timedOut
        ? `timed out after ${Math.round((opts.timeoutMs ?? 0) / 1000)} s`
        : opts.signal?.aborted
          ? 'interrupted'
          : exit.signal
            ? `killed by ${exit.signal}`
            : `exit code ${exit.code}`;
    if (!report) {
      return { ...base, status: 'crashed', passed: 0, failed: 1, skipped: 0, note: `no test report (${how})` };
    }
    const counts = { ...countReport(report), slowest: slowestFiles(report) };
    const cleanExit = exit.code === 0 && !timedOut;
    if (counts.failed > 0) {
      return { ...base, status: 'failed', ...counts, note: counts.fileErrors.length ? counts.fileErrors.join('; ') : undefined };
    }
    if (!cleanExit) {
      // Every test passed but vitest failed (an unhandled error, a teardown crash, a timeout): still a failure.
      return { ...base, status: 'crashed', ...counts, failed: 1, note: `all tests passed but vitest failed (${how})` };
    }
    if (counts.passed === 0 && counts.skipped === 0) {
      return { ...base, status: 'passed', ...counts, note: 'no tests found' };
    }
    return { ...base, status: 'passed', ...counts };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
