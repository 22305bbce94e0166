/**
 * The embedded database: PGlite served on the Postgres wire protocol by ./pglite-server.ts (see there why
 * not pglite-socket's `pglite-server`), run as a child process: PGlite is single-threaded WebAssembly, so
 * in its own process it cannot stall the orchestrator, and it closes cleanly on SIGTERM.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './paths.ts';
import { findFreePort } from './ports.ts';
import { waitForPostgres } from './postgres.ts';
import type { Child, Supervisor } from './procs.ts';

export const PGLITE_DEFAULT_PORT = 5488;

export interface PgliteOptions {
  /** A directory (created if missing) or `memory://`. */
  dataDir: string;
  /** First port to try (the first free one at or above it is used; never 5432). */
  port?: number;
  maxConnections?: number;
  quiet?: boolean;
}

export interface RunningPglite {
  url: string;
  port: number;
  child: Child;
}

const SERVER_SCRIPT = join(REPO_ROOT, 'scripts/lib/pglite-server.ts');

export async function startPglite(sup: Supervisor, opts: PgliteOptions): Promise<RunningPglite> {
  if (!opts.dataDir.startsWith('memory://')) mkdirSync(opts.dataDir, { recursive: true });
  const port = await findFreePort(opts.port ?? PGLITE_DEFAULT_PORT);
  // Connections cost PGlite nothing (one backend serves them all); the cap only stops a runaway client.
  const maxConnections = Math.max(20, opts.maxConnections ?? 256);
  const child = sup.spawn(
    'pglite',
    process.execPath,
    ['--import', 'tsx', SERVER_SCRIPT, `--db=${opts.dataDir}`, '--host=127.0.0.1', `--port=${port}`, `--max-connections=${maxConnections}`],
    {
      quiet: opts.quiet,
      stopLast: true,
      cwd: REPO_ROOT,
    },
  );
  const url = `postgres://postgres:postgres@127.0.0.1:${port}/postgres`;
  // Wait for our own server's "listening" line before connecting, so we never talk to a stranger's port.
  const deadline = Date.now() + 60_000;
  while (!child.tail.some((l) => l.startsWith('listening on'))) {
    if (!child.running) throw new Error(`the embedded PGlite server did not start. ${child.describeExit()}`);
    if (Date.now() > deadline) throw new Error('the embedded PGlite server did not start listening within 60 s');
    await new Promise((r) => setTimeout(r, 100));
  }
  await waitForPostgres(url, 30_000, () => child.running);
  return { url, port, child };
}
