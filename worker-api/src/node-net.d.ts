// workerd provides node:net under nodejs_compat (mysql2 uses it); the part the MySQL connector uses
// to dial a checked address (@types/node would clash with @cloudflare/workers-types).
declare module 'node:net' {
  interface Socket {
    setNoDelay(noDelay?: boolean): Socket;
  }
  function connect(port: number, host: string): Socket;
  const net: { connect: typeof connect };
  export default net;
  export { connect };
}
