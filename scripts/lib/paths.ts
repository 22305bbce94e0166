import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

/** The repository root (scripts/lib is two levels below it). */
export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url)).replace(/\/$/, '');
export const WRANGLER_BIN = join(REPO_ROOT, 'node_modules/wrangler/bin/wrangler.js');
export const VITEST_BIN = join(REPO_ROOT, 'node_modules/vitest/vitest.mjs');
