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
 * ~119 KB (D29) and every browser test passes with it (the report editor's hang is fixed), but Preact
 * hydrates a docs page in one task (~150 ms here; React hydrates in slices), which costs Lighthouse's
 * mobile score more than the bytes save. `CAIRN_PREACT=1 npm run build` turns it on.
 */
const PREACT = process.env.CAIRN_PREACT === '1';

/**
 * How the browser build is cut into files (ARCHITECTURE.md D29). Left alone, the bundler gives a docs
 * page fifteen scripts, most of them under 2 KB; each file compresses on its own, so the small ones
 * cost more than their code. Two groups instead:
 * - the client entry's chunk takes what every page runs: React, react-dom, React Router, the entry and
 *   the root route with its small modules (error page, logo, storage, theme boot, preload helper);
 * - `docs`: the docs frame and page code every docs page runs. The lazily loaded parts (search modal,
 *   mobile sidebar, mermaid) stay out of it, so they still load only when used.
 * Route modules captured by a group leave a one-line file behind that re-exports from it.
 */
const EVERY_PAGE = [
  /node_modules[\\/](react|react-dom|react-router|scheduler|preact)[\\/]/,
  /app[\\/](entry\.client|root)\.tsx$/,
  /app[\\/](components[\\/](ErrorPage|Logo)\.tsx|lib[\\/](use-dismiss|docs-storage)\.ts|state[\\/]theme-boot\.ts)$/,
  /vite[\\/]preload-helper/,
];
const DOCS_PAGE = /app[\\/](components[\\/]docs[\\/]|lib[\\/]docs-routing\.ts$|routes[\\/]docs(\.layout)?\.tsx$)/;
const DOCS_LAZY = /components[\\/]docs[\\/](search[\\/](?!index\.tsx)|navbar[\\/]MobileSidebar|mermaid[\\/])/;
const CHUNK_GROUPS = [
  { name: 'framework', test: (id: string) => EVERY_PAGE.some((re) => re.test(id)), priority: 20 },
  { name: 'docs', test: (id: string) => DOCS_PAGE.test(id) && !DOCS_LAZY.test(id), priority: 10 },
];

export default defineConfig({
  environments: { client: { build: { rolldownOptions: { output: { codeSplitting: { groups: CHUNK_GROUPS } } } } } },
  plugins: [...(PREACT ? [preactInTheBrowser()] : []), cloudflare({ viteEnvironment: { name: 'ssr' } }), reactRouter()],
  resolve: {
    alias: existsSync(docsRuntime) ? [] : [{ find: '@cairn/docs/runtime', replacement: docsFallback }],
  },
});
