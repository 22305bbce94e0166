/** Builds the web app (and with it the docs) when its build output is missing or older than its sources. */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { linePrefix } from './log.ts';
import { REPO_ROOT } from './paths.ts';

export const APP_WRANGLER_JSON = join(REPO_ROOT, 'remix-app/build/server/wrangler.json');

/** Folders and files whose changes make the build stale (the app imports core and the docs). */
const SOURCES = ['remix-app', 'docs', 'core/src'];
const SKIP = new Set(['node_modules', 'build', '.react-router', '.wrangler', 'dist', '.turbo']);

/** The newest file or folder under `path` (skipping dependencies and outputs), with its mtime. */
function newest(path: string): { path: string; mtimeMs: number } {
  let st;
  try {
    st = statSync(path);
  } catch {
    return { path, mtimeMs: 0 };
  }
  let found = { path, mtimeMs: st.mtimeMs }; // a deleted file changes the folder's mtime
  if (!st.isDirectory()) return found;
  for (const entry of readdirSync(path)) {
    if (SKIP.has(entry)) continue;
    const inner = newest(join(path, entry));
    if (inner.mtimeMs > found.mtimeMs) found = inner;
  }
  return found;
}

/** Why the app needs a build (naming the newest changed path), or null when the output is current. */
export function appBuildReason(): string | null {
  if (!existsSync(APP_WRANGLER_JSON)) return 'no build output yet';
  const built = statSync(APP_WRANGLER_JSON).mtimeMs;
  for (const src of SOURCES) {
    const changed = newest(join(REPO_ROOT, src));
    if (changed.mtimeMs > built) return `${relative(REPO_ROOT, changed.path)} changed since the last build`;
  }
  return null;
}

/** Runs `npm run build -w @cairn/remix-app`, output prefixed; rejects with the tail of the output on failure. */
export function buildApp(opts: { quiet?: boolean; signal?: AbortSignal } = {}): Promise<void> {
  const prefix = linePrefix();
  return new Promise((resolve, reject) => {
    const proc = spawn('npm', ['run', 'build', '-w', '@cairn/remix-app'], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, WRANGLER_SEND_METRICS: 'false', CLOUDFLARE_CF_FETCH_ENABLED: 'false' },
      signal: opts.signal,
    });
    const tail: string[] = [];
    const onData = (buf: Buffer) => {
      for (const line of buf.toString().split('\n')) {
        if (!line.trim()) continue;
        tail.push(line);
        if (tail.length > 40) tail.shift();
        if (!opts.quiet) process.stdout.write(`${prefix}[app-build] ${line}\n`);
      }
    };
    proc.stdout.on('data', onData);
    proc.stderr.on('data', onData);
    proc.on('error', reject);
    proc.on('exit', (code, signal) => {
      if (code === 0 && existsSync(APP_WRANGLER_JSON)) resolve();
      else if (code === 0) reject(new Error(`the app build succeeded but ${APP_WRANGLER_JSON} is missing`));
      else reject(new Error(`the app build failed (${signal ?? `exit code ${code}`}):\n    ${tail.slice(-20).join('\n    ')}`));
    });
  });
}
