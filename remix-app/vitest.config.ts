import { defineConfig } from 'vitest/config';

// Unit tests of the app's pure and server modules (no workerd needed); the browser tests live in e2e/.
export default defineConfig({
  test: { environment: 'node', include: ['app/**/*.test.ts'] },
});
