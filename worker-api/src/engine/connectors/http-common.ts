import { ConnectorError, NOTHING_ANSWERS, cancelled, messageOf, timedOut } from './errors.ts';
import type { RunGuard } from './run-guard.ts';

/**
 * Pieces the connectors that speak HTTP share (ClickHouse's HTTP interface, the Trino/Presto client
 * protocol). They run on the Workers runtime's `fetch`; tests hand in a substitute `fetch` that
 * replays recorded exchanges (Trino, Presto) or let it reach a real server (ClickHouse).
 */
export type Fetcher = (input: string, init?: RequestInit) => Promise<Response>;

/** `Basic …` for a user and password (UTF-8, as browsers send it). */
export function basicAuth(user: string, password = ''): string {
  const bytes = new TextEncoder().encode(`${user}:${password}`);
  let bin = '';
  for (const b of bytes) bin += String.fromCharCode(b);
  return `Basic ${btoa(bin)}`;
}

/** The base URL of a server: https when the datasource requires SSL. */
export function baseUrl(host: string, port: number, ssl: boolean): string {
  const h = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  return `${ssl ? 'https' : 'http'}://${h}:${port}`;
}

/** A fetch that failed before any answer: the network's words, named after the server. */
export function unreachable(label: string, err: unknown): ConnectorError {
  const message = messageOf(err);
  const plain = /network connection lost|fetch failed|ECONNREFUSED|connect/i.test(message) && !/TLS|SSL|certificate/i.test(message) ? NOTHING_ANSWERS : message;
  return new ConnectorError('connection_error', `Could not connect to ${label}: ${plain}`);
}

/**
 * Splits a byte stream into lines (LF), handing out each complete line as a view of the buffer: the
 * view is valid only until the next call of `next()` (which may move or replace the buffer).
 */
/** What a failed HTTP run is reported as: the sink's own error, the guard's stop, or a lost connection. */
export function runFailure(err: unknown, guard: RunGuard, timeoutMs: number, label: string): unknown {
  if (guard.sinkError !== undefined && err === guard.sinkError) return err;
  if (guard.timedOut) return timedOut(timeoutMs);
  if (guard.cancelled) return cancelled();
  if (err instanceof ConnectorError) return err.kind === 'timed_out' ? timedOut(timeoutMs) : err;
  return new ConnectorError('connection_error', `Lost the connection to ${label}: ${(err as Error)?.message ?? String(err)}`);
}

/** test_connection's answer for a failed probe: a refusal is thrown on, anything else is the server's own words. */
export function connectionTestFailure(err: unknown, label: string): { status: 'error'; error_message: string; server_version: null } {
  if (err instanceof ConnectorError && err.kind === 'refused') throw err;
  const message =
    err instanceof ConnectorError && err.kind === 'connection_error' ? err.message : `Could not connect to ${label}: ${(err as Error)?.message ?? String(err)}`;
  return { status: 'error', error_message: message, server_version: null };
}

export class LineReader {
  private buf = new Uint8Array(64 * 1024);
  private start = 0;
  private end = 0;
  private done = false;

  constructor(private readonly reader: ReadableStreamDefaultReader<Uint8Array>) {}

  /** The next line without its LF; at the end of the stream the unterminated rest (`partial`), then null. */
  async next(): Promise<{ line: Uint8Array; partial: boolean } | null> {
    for (;;) {
      const nl = this.buf.subarray(this.start, this.end).indexOf(0x0a);
      if (nl >= 0) {
        const line = this.buf.subarray(this.start, this.start + nl);
        this.start += nl + 1;
        return { line, partial: false };
      }
      if (this.done) {
        if (this.start === this.end) return null;
        const line = this.buf.subarray(this.start, this.end);
        this.start = this.end;
        return { line, partial: true };
      }
      const { value, done } = await this.reader.read();
      if (done) {
        this.done = true;
        continue;
      }
      this.append(value);
    }
  }

  private append(chunk: Uint8Array): void {
    const kept = this.end - this.start;
    if (kept + chunk.length > this.buf.length) {
      let cap = this.buf.length;
      while (cap < kept + chunk.length) cap *= 2;
      const next = new Uint8Array(cap);
      next.set(this.buf.subarray(this.start, this.end));
      this.buf = next;
    } else if (this.start > 0) {
      this.buf.copyWithin(0, this.start, this.end);
    }
    this.start = 0;
    this.end = kept;
    this.buf.set(chunk, this.end);
    this.end += chunk.length;
  }

  cancel(): void {
    this.reader.cancel().catch(() => {});
  }
}
