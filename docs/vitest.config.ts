import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    environment: 'node',
    include: ['test/*.test.ts'],
    // Each build test compiles MDX with esbuild; keep the 2-core machine calm.
    fileParallelism: false,
    testTimeout: 30_000,
  },
});
