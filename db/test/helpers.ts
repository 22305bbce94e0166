/** Per-file test databases: each test file creates `cairn_test_db_<random>` on the server of DATABASE_URL. */
import postgres from 'postgres';
import { randomBytes } from 'node:crypto';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { migrate } from '../src/migrate.ts';
import { sampleDatabaseName } from '../src/sample-shop/setup.ts';

const SERVER_URL = process.env.DATABASE_URL ?? 'postgres://postgres:postgres@127.0.0.1:5432/postgres';

export interface TestDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

/**
 * Creates an empty database (migrated unless `migrate: false`); `drop()` removes it and its sample
 * database `<name>_sample` if a test made one (ensureSampleDatabase), closing their sessions.
 */
export async function createTestDatabase(opts: { migrate?: boolean } = {}): Promise<TestDatabase> {
  const name = `cairn_test_db_${randomBytes(6).toString('hex')}`;
  const admin = postgres(SERVER_URL, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end({ timeout: 5 });
  }
  const url = withDatabase(SERVER_URL, name);
  if (opts.migrate !== false) await migrate(url);
  return {
    name,
    url,
    async drop() {
      const a = postgres(SERVER_URL, { max: 1, onnotice: () => {} });
      try {
        await a.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await a.unsafe(`DROP DATABASE IF EXISTS ${sampleDatabaseName(name)} WITH (FORCE)`);
      } finally {
        await a.end({ timeout: 5 });
      }
    },
  };
}

/** Replaces every `{...}` placeholder of report SQL by TRUE, as an unset filter compiles. */
export function placeholdersToTrue(sqlText: string): string {
  return sqlText.replace(/\{[^{}]*\}/g, 'TRUE');
}

/**
 * Runs `text` the way the sample datasource does: connected to the sample database as the login role
 * cairn_sample (its URL from ensureSampleDatabase), in a read-only transaction.
 */
export async function runAsSampleReader(sampleUrl: string, text: string, values: string[] = []): Promise<postgres.Row[]> {
  const sql = postgres(sampleUrl, { max: 1, onnotice: () => {} });
  try {
    return (await sql.begin('read only', (tx) => tx.unsafe(text, values))) as postgres.Row[];
  } finally {
    await sql.end({ timeout: 5 });
  }
}

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TSX = fileURLToPath(new URL('../../node_modules/.bin/tsx', import.meta.url));

/**
 * Runs `npm run cairn -- <args>` (scripts/cairn.ts) as the operator would. DATABASE_URL points at a
 * server that does not answer unless `env` names a database, so a command that should not need one
 * shows it.
 */
/**
 * For a describe block of CLI runs: each run starts tsx (compiling the CLI on the fly), seconds apiece
 * on a busy two-core machine (npm test runs the workspace suites beside the stack and e2e), and a test
 * makes several; vitest's 30 s per test was too short there.
 */
export const CLI_TIMEOUT = { timeout: 120_000 };

export function runCairn(args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(TSX, ['scripts/cairn.ts', ...args], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: 'postgres://postgres:postgres@127.0.0.1:1/none', ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
