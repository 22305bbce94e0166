import { cloudflareTest } from '@cloudflare/vitest-pool-workers';
import { defineConfig } from 'vitest/config';

// Tests run inside workerd against a real Postgres: DATABASE_URL names a migrated database with the
// sample shop loaded (npm test creates one per run). postgres.js needs a password in the URL.
const url = process.env.DATABASE_URL;
if (!url) throw new Error('Set DATABASE_URL to a migrated test database (npm test does this for you).');
const withPassword = url.replace(/^postgres(ql)?:\/\/([^:@/]+)@/, 'postgres://$2:postgres@');

export default defineConfig({
  plugins: [
    cloudflareTest({
      wrangler: { configPath: './wrangler.toml' },
      miniflare: {
        hyperdrives: { HYPERDRIVE: withPassword },
        bindings: {
          REGION: 'eu',
          DATA_TOKEN_SECRET: 'test-data-token-secret-eu',
          SECRET_KEY: 'test-secret-key',
          DATA_SERVER_URL: 'http://data.test',
          CAIRN_KEEP_CONNECTIONS: '1',
          RATE_LIMIT_RPS: '1000',
          RATE_LIMIT_BURST: '1000',
        },
      },
    }),
  ],
  test: { include: ['test/**/*.test.ts'], testTimeout: 30_000, hookTimeout: 60_000 },
});
