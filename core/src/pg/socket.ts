/**
 * The socket postgres.js gets inside workerd (its `socket` option), in place of its own polyfill.
 * postgres.js 3.4.9's polyfill leaves rejected promises unhandled when a connection fails or is
 * closed, and when TLS fails during the handshake it reconnects without end (the socket closes
 * without an error). This one opens the TCP connection itself, negotiates SSL itself when the
 * datasource requires it (SSLRequest: 'S' → STARTTLS, 'N' → a clear error), reports every failure
 * once as 'error' then 'close', and hands postgres.js a connected socket.
 *
 * workerd always verifies server certificates, so `verify_ssl: false` cannot relax that here.
 */

/** The part of a cloudflare:sockets socket used here (declared here: Node-typed code imports this file too). */
interface CfSocket {
  readonly readable: ReadableStream<Uint8Array>;
  readonly writable: WritableStream<Uint8Array>;
  readonly opened: Promise<unknown>;
  readonly closed: Promise<void>;
  close(): Promise<void>;
  startTls(options?: { expectedServerHostname?: string }): CfSocket;
}
type Connect = (address: { hostname: string; port: number }, options?: { secureTransport?: 'off' | 'on' | 'starttls'; allowHalfOpen?: boolean }) => CfSocket;

import type { Tappable, WireTap } from './wire.ts';

type Listener = (...args: unknown[]) => void;
type Wrapped = Listener & { listener?: Listener };

/** True inside workerd (Cloudflare Workers); Node uses postgres.js's own sockets. */
export const inWorkerd = () => (globalThis as { navigator?: { userAgent?: string } }).navigator?.userAgent === 'Cloudflare-Workers';

const SSL_REQUEST = new Uint8Array([0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f]);

/** postgres.js reads with Buffer methods; workerd's nodejs_compat has Buffer as a global. */
const NodeBuffer = (globalThis as unknown as { Buffer: { from(b: ArrayBufferLike, offset: number, length: number): Uint8Array } }).Buffer;

export class SslRefused extends Error {
  constructor() {
    super('the server does not accept SSL connections, but the datasource requires SSL');
  }
}

function within<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | null = null;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error('the connection timed out'), { code: 'CONNECT_TIMEOUT' })), ms);
  });
  return Promise.race([p, timeout]).finally(() => {
    if (timer !== null) clearTimeout(timer);
  });
}

/**
 * Opens a connection for postgres.js: TCP, and TLS after an accepted SSLRequest when `ssl` is set. The
 * certificate is checked against `serverName` (default `host`), so a caller may dial an address it
 * resolved and checked itself and still verify the name.
 */
export async function openPgSocket(host: string, port: number, ssl: boolean, timeoutMs: number, serverName = host): Promise<PgSocket> {
  // Imported here: the module exists only in workerd (Node runs never get here).
  const { connect } = (await import('cloudflare:sockets')) as unknown as { connect: Connect };
  const tcp = connect({ hostname: host, port }, { secureTransport: ssl ? 'starttls' : 'off', allowHalfOpen: false });
  tcp.closed.catch(() => {});
  try {
    await within(tcp.opened, timeoutMs);
    if (!ssl) return new PgSocket(tcp);
    const writer = tcp.writable.getWriter();
    await writer.write(SSL_REQUEST);
    writer.releaseLock();
    const reader = tcp.readable.getReader();
    const { value } = await within(reader.read(), timeoutMs);
    reader.releaseLock();
    if (value?.[0] !== 0x53) throw new SslRefused();
    const secure = tcp.startTls({ expectedServerHostname: serverName });
    secure.closed.catch(() => {});
    await within(secure.opened, timeoutMs);
    return new PgSocket(secure);
  } catch (err) {
    tcp.close().catch(() => {});
    throw err;
  }
}

/** Host, port and whether to negotiate SSL, from a Postgres connection string. */
export function endpointOf(url: string): { host: string; port: number; ssl: boolean } {
  const u = new URL(url);
  const mode = u.searchParams.get('sslmode') ?? u.searchParams.get('ssl');
  return {
    host: decodeURIComponent(u.hostname).replace(/^\[|\]$/g, ''),
    port: Number(u.port || 5432),
    ssl: mode !== null && !['disable', 'allow', 'prefer', 'false'].includes(mode),
  };
}

/**
 * postgres.js options for a client of `url` whose connection runs on Cairn's own socket inside
 * workerd (so a statement can be read or written on the wire directly, see wire.ts), and the open
 * socket of its connection when a statement is about to use it: `ready(open)` runs `open` (a first
 * statement through postgres.js, which (re)connects) when there is none. Outside workerd: no options,
 * and never a socket (postgres.js uses its own).
 */
export function ownSocket(
  url: string,
  timeoutMs: number,
): {
  options: { ssl?: false; socket?: () => Promise<PgSocket> };
  ready: (open: () => PromiseLike<unknown>) => Promise<PgSocket | null>;
} {
  if (!inWorkerd()) return { options: {}, ready: async () => null };
  let socket: PgSocket | null = null;
  const isOpen = () => socket !== null && socket.readyState === 'open';
  return {
    options: {
      ssl: false,
      socket: async () => {
        const { host, port, ssl } = endpointOf(url);
        return (socket = await openPgSocket(host, port, ssl, timeoutMs));
      },
    },
    ready: async (open) => {
      if (!isOpen()) await open();
      return isOpen() ? socket : null;
    },
  };
}

/**
 * The part of a Node socket that postgres.js uses: events, write, end, destroy, readyState. It can
 * also be borrowed for one statement (`tap`, see wire.ts): while tapped, what the server sends goes
 * to the tap instead of postgres.js.
 */
export class PgSocket implements Tappable {
  readyState: 'open' | 'closed' = 'open';
  private tapped: WireTap | null = null;
  private readonly listeners = new Map<string, Wrapped[]>();
  private readonly writer: WritableStreamDefaultWriter<Uint8Array>;
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;

  constructor(private readonly socket: CfSocket) {
    this.writer = socket.writable.getWriter();
    this.reader = socket.readable.getReader();
    this.writer.closed.catch(() => {});
    this.reader.closed.catch(() => {});
    void this.pump();
  }

  on(event: string, fn: Listener): this {
    const list = this.listeners.get(event) ?? [];
    list.push(fn);
    this.listeners.set(event, list);
    return this;
  }

  once(event: string, fn: Listener): this {
    const wrapped: Wrapped = (...args) => {
      this.removeListener(event, fn);
      fn(...args);
    };
    wrapped.listener = fn;
    return this.on(event, wrapped);
  }

  removeListener(event: string, fn: Listener): this {
    const list = this.listeners.get(event);
    if (list)
      this.listeners.set(
        event,
        list.filter((l) => l !== fn && l.listener !== fn),
      );
    return this;
  }

  removeAllListeners(event?: string): this {
    if (event) this.listeners.delete(event);
    else this.listeners.clear();
    return this;
  }

  private emit(event: string, ...args: unknown[]): void {
    for (const fn of [...(this.listeners.get(event) ?? [])]) fn(...args);
  }

  tap(tap: WireTap): void {
    this.tapped = tap;
  }

  untap(rest: Uint8Array | null): void {
    this.tapped = null;
    if (rest?.length) this.emit('data', NodeBuffer.from(rest.buffer, rest.byteOffset, rest.byteLength));
  }

  send(bytes: Uint8Array): Promise<void> {
    if (this.readyState !== 'open') return Promise.reject(new Error('the connection is closed'));
    return this.writer.write(bytes);
  }

  write(data: Uint8Array, cb?: () => void): boolean {
    if (this.readyState !== 'open') return false;
    this.writer.write(data).then(
      () => cb?.(),
      (err) => this.fail(err),
    );
    return true;
  }

  end(data?: Uint8Array): void {
    if (data && this.readyState === 'open') this.write(data, () => this.close());
    else this.close();
  }

  destroy(): void {
    this.close();
  }

  private close(): void {
    if (this.readyState === 'closed') return;
    this.readyState = 'closed';
    this.socket.close().catch(() => {});
  }

  private fail(err: unknown): void {
    if (this.readyState === 'closed') return;
    this.emit('error', err);
    this.close();
  }

  private async pump(): Promise<void> {
    try {
      for (;;) {
        const { done, value } = await this.reader.read();
        if (done) break;
        const tap = this.tapped;
        if (tap) {
          const wait = tap.data(value);
          if (wait) await wait;
          continue;
        }
        this.emit('data', NodeBuffer.from(value.buffer, value.byteOffset, value.byteLength));
      }
    } catch (err) {
      // Closing from this side cancels the read: that is not an error.
      if (this.tapped) this.tapped.closed(err);
      else if (this.readyState === 'open') this.emit('error', err);
    } finally {
      this.readyState = 'closed';
      this.tapped?.closed(null);
      this.tapped = null;
      this.emit('close');
    }
  }
}
