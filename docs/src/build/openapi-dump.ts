/**
 * Prints the API's OpenAPI document (JSON) on stdout: `node --import tsx docs/src/build/openapi-dump.ts`.
 * Run by build/openapi.ts in a child process, so the worker's modules never load into the docs build.
 *
 * worker-api's modules import workerd's built-in `cloudflare:workers` and `cloudflare:sockets`, which
 * Node does not have. Only `GET /openapi.json` is asked for, which touches none of them, so those
 * imports are answered with inert stand-ins (a module hook registered before the app is imported).
 */
import { register } from 'node:module';

const STUB = `
export class DurableObject { constructor(ctx, env) { this.ctx = ctx; this.env = env; } }
export class WorkerEntrypoint { constructor(ctx, env) { this.ctx = ctx; this.env = env; } }
export class RpcTarget {}
export class WorkflowEntrypoint {}
export const env = {};
export function connect() { throw new Error('cloudflare:sockets is not available while the docs are built'); }
`;

const HOOKS = `
export async function resolve(specifier, context, next) {
  if (specifier.startsWith('cloudflare:')) {
    return { url: 'data:text/javascript,' + encodeURIComponent(${JSON.stringify(STUB)}), shortCircuit: true };
  }
  return next(specifier, context);
}
`;

register(`data:text/javascript,${encodeURIComponent(HOOKS)}`);

const app = new URL('../../../worker-api/src/app.ts', import.meta.url).href;
const { createApp } = (await import(app)) as {
  createApp: () => { request: (path: string, init: object, env: object) => Promise<Response> };
};
const res = await createApp().request('/openapi.json', {}, { REGION: 'eu' });
const text = await res.text();
if (res.status !== 200) {
  process.stderr.write(`GET /openapi.json answered ${res.status}: ${text.slice(0, 500)}\n`);
  process.exit(1);
}
process.stdout.write(text);
