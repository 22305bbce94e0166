import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { cloudflare } from '@cloudflare/vite-plugin';
import { reactRouter } from '@react-router/dev/vite';
import { defineConfig, type Plugin } from 'vite';

// The docs runtime belongs to @cairn/docs. Until that workspace ships `src/runtime.ts`, the app builds
// against a local stand-in with the same interface (see app/lib/docs-fallback.server.ts).
const docsRuntime = fileURLToPath(new URL('../docs/src/runtime.ts', import.meta.url));
const docsFallback = fileURLToPath(new URL('./app/lib/docs-fallback.server.ts', import.meta.url));

/** React's modules and their preact/compat stand-ins (ARCHITECTURE.md D24). */
const PREACT_COMPAT: Record<string, string> = {
  react: 'preact/compat',
  'react-dom': 'preact/compat',
  'react-dom/client': 'preact/compat/client',
  'react/jsx-runtime': 'preact/compat/jsx-runtime',
  'react/jsx-dev-runtime': 'preact/compat/jsx-dev-runtime',
};

/**
 * The browser build runs on preact/compat instead of React (≈ 50 KB gzipped less on every page); the
 * server still renders with React, whose HTML Preact hydrates. Only `vite build`: the dev server keeps
 * React (its dependency optimizer would not see this resolver and would load both libraries).
 */
function preactInTheBrowser(): Plugin {
  return {
    name: 'cairn:preact-compat-client',
    enforce: 'pre',
    apply: 'build',
    applyToEnvironment: (env) => env.name === 'client',
    // Read by app/lib/preact-client.ts: where hydrating with Preact differs (the root, the entry).
    config: () => ({ environments: { client: { define: { 'import.meta.env.CAIRN_PREACT': 'true' } } } }),
    async resolveId(source, importer, options) {
      const target = PREACT_COMPAT[source];
      if (!target) return null;
      return this.resolve(target, importer, { ...options, skipSelf: true });
    },
  };
}

/**
 * Off by default (ARCHITECTURE.md D24): with Preact a docs page loads ~70 KB of gzipped JS instead of
 * ~128 KB and every browser test passes with it (the report editor's hang is fixed), but Preact
 * hydrates a docs page in one task (~150 ms here; React hydrates in slices), which costs Lighthouse's
 * mobile score more than the bytes save. `CAIRN_PREACT=1 npm run build` turns it on.
 */
const PREACT = process.env.CAIRN_PREACT === '1';

export default defineConfig({
  plugins: [...(PREACT ? [preactInTheBrowser()] : []), cloudflare({ viteEnvironment: { name: 'ssr' } }), reactRouter()],
  resolve: {
    alias: existsSync(docsRuntime) ? [] : [{ find: '@cairn/docs/runtime', replacement: docsFallback }],
  },
});
