import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/**
 * End-to-end tests against a running stack (`npm test` starts one and writes .cairn/test-stack.json;
 * against `npm start`'s stack: CAIRN_STACK_FILE=.cairn/dev.json npx vitest run --config e2e/vitest.config.ts).
 */
const skipBrowser = process.env.CAIRN_SKIP_BROWSER === '1';

export default defineConfig({
  root: fileURLToPath(new URL('..', import.meta.url)),
  test: {
    environment: 'node',
    include: ['e2e/**/*.test.ts'],
    exclude: ['**/node_modules/**', ...(skipBrowser ? ['e2e/**/*.browser.test.ts'] : [])],
    fileParallelism: false,
    // npm test runs e2e beside the workspace suites on two cores: a browser step may take tens of seconds.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    teardownTimeout: 30_000,
  },
});
