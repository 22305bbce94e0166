/**
 * Access to the running stack for end-to-end tests: its description (written by `npm test` or `npm start`)
 * and a fetch helper for the API workers.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { StackFile } from '../scripts/lib/stack.ts';

export type { StackFile };
type Region = keyof StackFile['regions'];

export const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));

let cached: { path: string; stack: StackFile } | null = null;

/** The stack under test: `.cairn/test-stack.json`, or the file named by CAIRN_STACK_FILE. */
export function getStack(): StackFile {
  const path = resolve(REPO_ROOT, process.env.CAIRN_STACK_FILE ?? '.cairn/test-stack.json');
  if (cached?.path === path) return cached.stack;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    throw new Error(`${path} not found: run the e2e suite through \`npm test\`, or point CAIRN_STACK_FILE at .cairn/dev.json of a running \`npm start\`.`);
  }
  const stack = JSON.parse(text) as StackFile;
  for (const region of ['eu', 'us'] as const) {
    if (typeof stack.regions?.[region]?.api !== 'string') throw new Error(`${path} has no regions.${region}.api`);
  }
  if (typeof stack.api_key !== 'string') throw new Error(`${path} has no api_key`);
  cached = { path, stack };
  return stack;
}

export interface ApiFetchOptions {
  /** The API key; default: the stack's dev key. `null` sends no Authorization header. */
  key?: string | null;
  method?: string;
  /** An object is sent as JSON; a string is sent as is (to test malformed bodies). */
  body?: unknown;
  region?: Region;
  headers?: Record<string, string>;
}

export interface ApiResponse<T = unknown> {
  status: number;
  headers: Headers;
  /** Parsed JSON, or null for an empty body. */
  body: T;
  text: string;
}

/** `fetch` against a region's API worker; parses the JSON answer (throws with the text when it is not JSON). */
export async function apiFetch<T = any>(path: string, opts: ApiFetchOptions = {}): Promise<ApiResponse<T>> {
  const stack = getStack();
  const base = stack.regions[opts.region ?? 'eu'].api;
  const headers: Record<string, string> = { accept: 'application/vnd.api+json', ...opts.headers };
  const key = opts.key === undefined ? stack.api_key : opts.key;
  if (key !== null) headers.authorization = `Api ${key}`;
  let body: string | undefined;
  if (opts.body !== undefined) {
    body = typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
    headers['content-type'] ??= 'application/vnd.api+json';
  }
  const res = await fetch(new URL(path, base), { method: opts.method ?? (body ? 'POST' : 'GET'), headers, body });
  const text = await res.text();
  let parsed: unknown = null;
  if (text) {
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new Error(`${opts.method ?? 'GET'} ${path} → ${res.status} with a body that is not JSON: ${text.slice(0, 300)}`);
    }
  }
  return { status: res.status, headers: res.headers, body: parsed as T, text };
}
