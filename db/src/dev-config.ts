import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (two levels above `db/src`). */
export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** Written by `npm start`: URLs, the dev database and the demo credentials. */
export const DEV_JSON_PATH = resolve(REPO_ROOT, '.cairn/dev.json');

/** Reads `.cairn/dev.json`; null when it does not exist. Throws a readable error when it is not JSON. */
export function readDevJson(path = DEV_JSON_PATH): Record<string, unknown> | null {
  return readJsonObject(path, 'delete it or fix it');
}

/** Reads a JSON object file; null when the file does not exist; a readable error when it is not an object. */
export function readJsonObject(path: string, remedy: string): Record<string, unknown> | null {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  try {
    const value: unknown = JSON.parse(text);
    if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    /* reported below */
  }
  throw new Error(`${path} is not a JSON object; ${remedy}.`);
}

/**
 * The database the operator tools talk to: `DATABASE_URL`, else `database_url` from `.cairn/dev.json`.
 * Throws an error that says what to do when neither is set.
 */
export function resolveDatabaseUrl(env: NodeJS.ProcessEnv = process.env, devJsonPath = DEV_JSON_PATH): string {
  const fromEnv = env.DATABASE_URL?.trim();
  if (fromEnv) return fromEnv;
  const dev = readDevJson(devJsonPath);
  const fromFile = dev?.database_url;
  if (typeof fromFile === 'string' && fromFile.trim()) return fromFile.trim();
  throw new Error(
    'No database configured: set DATABASE_URL (for example postgres://postgres:postgres@127.0.0.1:5432/cairn) ' +
      `or run \`npm start\` once so that ${devJsonPath} holds a database_url.`,
  );
}

/** Hides the password of a connection string for messages. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(unparseable database URL)';
  }
}
