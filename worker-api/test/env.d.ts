/// <reference types="vite/client" />
type CairnApiEnv = import('../src/env.ts').Env;
declare namespace Cloudflare {
  interface Env extends CairnApiEnv {}
}
