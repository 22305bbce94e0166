import { cloudflareTest } from '@cloudflare/vitest-pool-workers';
import { defineConfig } from 'vitest/config';
import { sampleDatabaseUrl } from './db/src/sample-shop/setup.ts';

/**
 * The vitest config of both workers: tests run inside workerd against a real Postgres. DATABASE_URL
 * names a migrated metadata database (npm test creates one per run).
 * postgres.js needs a password in the URL even where the server trusts local connections.
 * SAMPLE_DATABASE_URL names its sample database (D32: the shop, as the login role cairn_sample); unset,
 * it is the one next to DATABASE_URL (`<name>_sample`), which scripts/dev-db.ts and npm test make.
 */
/**
 * Dependencies pre-bundled once per run (vite's dependency optimizer, in workerd's `ssr` environment): each
 * test file's fresh workerd then fetches a handful of modules instead of every file of hono, zod and
 * drizzle over the pool's socket. Node built-ins stay imports (workerd provides them). Anything else
 * (mysql2, a package new to the workers) is served file by file as before; list a heavy ESM one here.
 */
const PREBUNDLED = [
  'hono',
  'hono/cors',
  'hono/http-exception',
  'hono/router/trie-router',
  '@hono/zod-openapi',
  '@hono/zod-validator',
  'zod',
  'drizzle-orm',
  'drizzle-orm/pg-core',
  'drizzle-orm/postgres-js',
  'drizzle-orm/pg-proxy',
  'postgres',
  'jose',
  'aws4fetch',
];

export function workersTestConfig(bindings: Record<string, string> = {}) {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error('Set DATABASE_URL to a migrated test database (npm test does this for you).');
  const withPassword = url.replace(/^postgres(ql)?:\/\/([^:@/]+)@/, 'postgres://$2:postgres@');
  const sampleUrl = process.env.SAMPLE_DATABASE_URL?.trim() || sampleDatabaseUrl(withPassword);
  return defineConfig({
    plugins: [
      cloudflareTest({
        wrangler: { configPath: './wrangler.toml' },
        miniflare: {
          hyperdrives: { HYPERDRIVE: withPassword, SAMPLE_DB: sampleUrl },
          bindings: {
            REGION: 'eu',
            DATA_TOKEN_SECRET: 'test-data-token-secret-eu',
            CAIRN_KEEP_CONNECTIONS: '1',
            ...bindings,
          },
        },
      }),
    ],
    test: {
      include: ['test/**/*.test.ts'],
      testTimeout: 30_000,
      hookTimeout: 60_000,
      deps: { optimizer: { ssr: { enabled: true, include: PREBUNDLED, rolldownOptions: { external: [/^node:/] } } } },
    },
  });
}
