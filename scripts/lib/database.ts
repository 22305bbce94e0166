/**
 * Which Postgres a test or benchmark run uses: DATABASE_URL, else the local server on 5432 if it answers,
 * else an in-memory embedded PGlite (announced loudly: it is slower and serial). Also the per-run database.
 */
import { say, warn } from './log.ts';
import { startPglite } from './pglite.ts';
import { createDatabase, dropDatabase, hostPort, LOCAL_POSTGRES_URL, pgProblem, redact, runDatabaseName, withPassword } from './postgres.ts';
import type { Supervisor } from './procs.ts';

export interface PickedPostgres {
  /** A URL with rights to create databases (or PGlite's only database). */
  adminUrl: string;
  kind: 'env' | 'local' | 'pglite';
}

export async function pickPostgres(sup: Supervisor, opts: { quiet?: boolean; pglitePortFrom?: number } = {}): Promise<PickedPostgres> {
  const fromEnv = process.env.DATABASE_URL?.trim();
  if (fromEnv) {
    const url = withPassword(fromEnv);
    const problem = await pgProblem(url, 5000);
    if (problem) throw new Error(`DATABASE_URL (${redact(url)}) does not answer: ${problem}`);
    say(`Postgres: DATABASE_URL ${redact(url)}`);
    return { adminUrl: url, kind: 'env' };
  }
  // CAIRN_FORCE_PGLITE=1 skips the local server (to exercise the fallback on a machine that has one).
  const problem = process.env.CAIRN_FORCE_PGLITE === '1' ? 'skipped: CAIRN_FORCE_PGLITE=1' : await pgProblem(LOCAL_POSTGRES_URL, 3000);
  if (problem === null) {
    say(`Postgres: local server on ${hostPort(LOCAL_POSTGRES_URL)}`);
    return { adminUrl: LOCAL_POSTGRES_URL, kind: 'local' };
  }
  warn(`no PostgreSQL server answered on ${hostPort(LOCAL_POSTGRES_URL)} (${problem}); falling back to embedded PGlite (in memory, one query at a time: slower).`);
  const db = await startPglite(sup, { dataDir: 'memory://', port: opts.pglitePortFrom ?? 25_488, quiet: opts.quiet });
  say(`Postgres: embedded PGlite on 127.0.0.1:${db.port}`);
  return { adminUrl: db.url, kind: 'pglite' };
}

export interface RunDatabase {
  url: string;
  /** null on PGlite (its single database is used and vanishes with the process). */
  name: string | null;
  drop(): Promise<void>;
}

/** A fresh database `<prefix>_<stamp>_<rand>` on a real server; PGlite's own database otherwise. */
export async function createRunDatabase(pg: PickedPostgres, prefix: string): Promise<RunDatabase> {
  if (pg.kind === 'pglite') return { url: pg.adminUrl, name: null, drop: async () => {} };
  const name = runDatabaseName(prefix);
  const url = await createDatabase(pg.adminUrl, name);
  return { url, name, drop: () => dropDatabase(pg.adminUrl, name) };
}
