import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    environment: 'node',
    include: ['test/*.test.ts'],
    // Each build test compiles MDX with esbuild; keep the 2-core machine calm.
    fileParallelism: false,
    testTimeout: 30_000,
    // beforeAll hooks build the real pages (about a hundred, ~10 s on this machine).
    hookTimeout: 120_000,
  },
});
