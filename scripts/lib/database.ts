/**
 * Which Postgres a test or benchmark run uses: DATABASE_URL, else the local server on 5432 if it answers,
 * else the embedded PostgreSQL (scripts/lib/embedded-postgres.ts, D35). Also the per-run databases: the
 * metadata database and its sample database (D32), both dropped at the end.
 */
import { join } from 'node:path';
import { ensureSampleDatabase } from '@cairn/db/sample-shop/setup';
import { say, warn } from './log.ts';
import { startEmbeddedPostgres } from './embedded-postgres.ts';
import { createDatabase, dropDatabase, hostPort, LOCAL_POSTGRES_URL, pgProblem, redact, runDatabaseName, withPassword } from './postgres.ts';
import type { Supervisor } from './procs.ts';

export interface PickedPostgres {
  /** A URL with rights to create databases and roles. */
  adminUrl: string;
  kind: 'env' | 'local' | 'embedded';
}

export async function pickPostgres(sup: Supervisor, opts: { quiet?: boolean; embeddedPortFrom?: number; embeddedDir: string }): Promise<PickedPostgres> {
  const fromEnv = process.env.DATABASE_URL?.trim();
  if (fromEnv) {
    const url = withPassword(fromEnv);
    const problem = await pgProblem(url, 5000);
    if (problem) throw new Error(`DATABASE_URL (${redact(url)}) does not answer: ${problem}`);
    say(`Postgres: DATABASE_URL ${redact(url)}`);
    return { adminUrl: url, kind: 'env' };
  }
  // CAIRN_FORCE_EMBEDDED=1 skips the local server (to exercise the fallback on a machine that has one).
  const problem = process.env.CAIRN_FORCE_EMBEDDED === '1' ? 'skipped: CAIRN_FORCE_EMBEDDED=1' : await pgProblem(LOCAL_POSTGRES_URL, 3000);
  if (problem === null) {
    say(`Postgres: local server on ${hostPort(LOCAL_POSTGRES_URL)}`);
    return { adminUrl: LOCAL_POSTGRES_URL, kind: 'local' };
  }
  warn(`no PostgreSQL server answered on ${hostPort(LOCAL_POSTGRES_URL)} (${problem}); starting the embedded PostgreSQL.`);
  const db = await startEmbeddedPostgres(sup, { dataDir: join(opts.embeddedDir, 'postgres'), port: opts.embeddedPortFrom, quiet: opts.quiet });
  say(`Postgres: embedded PostgreSQL on 127.0.0.1:${db.port}`);
  return { adminUrl: db.url, kind: 'embedded' };
}

export interface RunDatabase {
  /** The metadata database. */
  url: string;
  name: string;
  /** The sample database next to it, as the login role cairn_sample. */
  sampleUrl: string;
  sampleName: string;
  drop(): Promise<void>;
}

/** A fresh metadata database `<prefix>_<stamp>_<rand>`, migrated, with its sample database beside it. */
export async function createRunDatabase(pg: PickedPostgres, prefix: string): Promise<RunDatabase> {
  const name = runDatabaseName(prefix);
  const url = await createDatabase(pg.adminUrl, name);
  let sampleName: string | null = null;
  const drop = async () => {
    await dropDatabase(pg.adminUrl, name);
    // The US region's database a stack made next to it (stack.ts usDatabaseUrlFor, D53).
    await dropDatabase(pg.adminUrl, `${name}_us`);
    if (sampleName) await dropDatabase(pg.adminUrl, sampleName);
  };
  try {
    const { migrate } = await import('@cairn/db/migrate');
    await migrate(url);
    const sample = await ensureSampleDatabase(url);
    sampleName = sample.database;
    return { url, name, sampleUrl: sample.url, sampleName, drop };
  } catch (err) {
    await drop().catch(() => {});
    throw err;
  }
}
