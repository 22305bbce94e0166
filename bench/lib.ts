/**
 * What the benchmarks share: a throwaway stack (own state directory, own database, free ports) that is
 * always torn down, the machine line of a result, and the marked block of bench/README.md a run replaces.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { createRunDatabase, pickPostgres, type PickedPostgres, type RunDatabase } from '../scripts/lib/database.ts';
import { errorMessage, fail, warn } from '../scripts/lib/log.ts';
import { REPO_ROOT } from '../scripts/lib/paths.ts';
import { randomPortBase } from '../scripts/lib/ports.ts';
import { Supervisor } from '../scripts/lib/procs.ts';
import { startStack, type StackOptions } from '../scripts/lib/stack.ts';

export const README = join(REPO_ROOT, 'bench/README.md');

/** The stack's first port: BENCH_PORT_BASE on a machine shared by several people, else a random free range. */
const benchPortBase = () => (Number(process.env.BENCH_PORT_BASE) > 0 ? Number(process.env.BENCH_PORT_BASE) : randomPortBase());

/** `2026-11-22 20:51 UTC` */
export const utcNow = () => `${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC`;

/** `2 cores (AMD EPYC …), Node v20…`, with the load average when asked (busy cores move every number). */
export function machineLine(opts: { load?: boolean } = {}): string {
  const load = opts.load
    ? `, load average ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' / ')} at the end`
    : '';
  return `${availableParallelism()} cores (${cpus()[0]?.model.trim() ?? 'unknown CPU'}${load}), Node ${process.version}`;
}

/** Replaces the text between `start` and `end` in bench/README.md (or appends it under `heading`). */
export function writeReadmeBlock(start: string, end: string, body: string, heading: string): void {
  let text: string;
  try {
    text = readFileSync(README, 'utf8');
  } catch {
    text = '# Benchmarks\n';
  }
  const block = `${start}\n${body}\n${end}`;
  const a = text.indexOf(start);
  const b = text.indexOf(end);
  text = a >= 0 && b > a ? text.slice(0, a) + block + text.slice(b + end.length) : `${text.trimEnd()}\n\n## ${heading}\n\n${block}\n`;
  writeFileSync(README, text);
}

export type BenchStack = Awaited<ReturnType<typeof startStack>> & {
  runDb: RunDatabase;
  pg: PickedPostgres;
  /** Aborted on Ctrl-C or when a process of the stack dies. */
  signal: AbortSignal;
  /** The name of the process of the stack that died, if one did. */
  died: () => string | null;
};

/**
 * Starts the stack on a fresh database and free ports, runs `body`, and tears everything down whatever
 * happens (Ctrl-C included). Returns `body`'s exit code, or 1 after printing what failed.
 */
export async function withBenchStack(
  name: string,
  opts: Omit<StackOptions, 'databaseUrl' | 'stateDir' | 'stackFile' | 'portBase' | 'strictPorts' | 'signal'> & { needsServer?: boolean },
  body: (stack: BenchStack) => Promise<number>,
): Promise<number> {
  const stamp = new Date().toISOString().replace(/[-:T]/g, '').slice(0, 14);
  const stateDir = join(REPO_ROOT, '.data', `${name}-${stamp}-${process.pid}`);
  const sup = new Supervisor();
  const abort = new AbortController();
  process.on('SIGINT', () => abort.abort());
  process.on('SIGTERM', () => abort.abort());
  let runDb: RunDatabase | null = null;
  let embedded = false;
  let died: string | null = null;
  try {
    // Without a server on 5432 the embedded PostgreSQL (a real server, D33) serves the run.
    const pg = await pickPostgres(sup, { quiet: true, embeddedPortFrom: randomPortBase(), embeddedDir: stateDir });
    embedded = pg.kind === 'embedded';
    runDb = await createRunDatabase(pg, name.replace(/-/g, '_').replace(/^bench/, 'cairn_bench'));
    const { needsServer: _, ...stackOpts } = opts;
    const started = await startStack(sup, {
      ...stackOpts,
      databaseUrl: runDb.url,
      stateDir,
      stackFile: join(stateDir, 'stack.json'),
      portBase: benchPortBase(),
      strictPorts: false,
      signal: abort.signal,
      // A machine that other work keeps busy may need longer than the default 120 s for the workers to answer.
      ...(Number(process.env.BENCH_READY_TIMEOUT_S) > 0 ? { readyTimeoutMs: Number(process.env.BENCH_READY_TIMEOUT_S) * 1000 } : {}),
    });
    sup.onUnexpectedExit((child) => {
      died ??= child.name;
      fail(child.describeExit());
      abort.abort();
    });
    return await body({ ...started, runDb, pg, signal: abort.signal, died: () => died });
  } catch (err) {
    fail(errorMessage(err));
    return 1;
  } finally {
    await sup.stopAll();
    // The embedded server's databases go with its data directory (in the state dir).
    if (runDb && !embedded) await runDb.drop().catch((err) => warn(`could not drop the bench database: ${errorMessage(err)}`));
    rmSync(stateDir, { recursive: true, force: true });
  }
}
