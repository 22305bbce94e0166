// The part of ssh2 (no bundled types; @types/ssh2 would pull in @types/node, which clashes with
// @cloudflare/workers-types) that the SSH tunnel uses (engine/connectors/ssh-tunnel.ts).
declare module 'ssh2' {
  interface Duplex {
    write(chunk: unknown, cb?: (err?: Error | null) => void): boolean;
    end(chunk?: unknown): unknown;
    destroy(err?: Error): unknown;
    on(event: string, fn: (...args: any[]) => void): this;
    once(event: string, fn: (...args: any[]) => void): this;
    removeListener(event: string, fn: (...args: any[]) => void): this;
    pause(): this;
    resume(): this;
  }
  export interface ClientChannel extends Duplex {}
  export interface ConnectConfig {
    sock?: unknown;
    host?: string;
    port?: number;
    username: string;
    privateKey: string;
    readyTimeout?: number;
    keepaliveInterval?: number;
    hostVerifier?: (key: unknown) => boolean;
  }
  export class Client {
    on(event: 'ready', fn: () => void): this;
    on(event: 'error', fn: (err: Error & { level?: string; code?: string }) => void): this;
    on(event: 'close' | 'end', fn: () => void): this;
    connect(config: ConnectConfig): this;
    forwardOut(
      srcIP: string,
      srcPort: number,
      dstIP: string,
      dstPort: number,
      cb: (err: (Error & { reason?: number }) | undefined, channel: ClientChannel) => void,
    ): this;
    end(): this;
  }
}
