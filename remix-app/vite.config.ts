import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { cloudflare } from '@cloudflare/vite-plugin';
import { reactRouter } from '@react-router/dev/vite';
import { defineConfig } from 'vite';

// The docs runtime belongs to @cairn/docs. Until that workspace ships `src/runtime.ts`, the app builds
// against a local stand-in with the same interface (see app/lib/docs-fallback.server.ts).
const docsRuntime = fileURLToPath(new URL('../docs/src/runtime.ts', import.meta.url));
const docsFallback = fileURLToPath(new URL('./app/lib/docs-fallback.server.ts', import.meta.url));

export default defineConfig({
  plugins: [cloudflare({ viteEnvironment: { name: 'ssr' } }), reactRouter()],
  resolve: {
    alias: existsSync(docsRuntime) ? [] : [{ find: '@cairn/docs/runtime', replacement: docsFallback }],
  },
});
