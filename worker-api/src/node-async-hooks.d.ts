// workerd provides node:async_hooks under nodejs_compat; these are the parts the API worker uses
// (@types/node would clash with @cloudflare/workers-types).
declare module 'node:async_hooks' {
  export class AsyncLocalStorage<T> {
    getStore(): T | undefined;
    run<R>(store: T, fn: () => R): R;
  }
}
