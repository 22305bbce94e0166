// workerd's built-in module, imported by socket.ts only when it runs inside workerd. Declared here so
// that core type-checks with Node's types; the workers' own programs take workerd's declaration.
declare module 'cloudflare:sockets' {
  export const connect: unknown;
}
