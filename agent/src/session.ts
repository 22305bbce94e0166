import { hostname } from 'node:os';
import WebSocket from 'ws';
import {
  AGENT_CLOSE_REFUSED,
  AGENT_CONNECT_PATH,
  AGENT_FRAME_BYTES,
  AGENT_PING_MS,
  AGENT_WINDOW,
  type AgentCell,
  type FromAgent,
  type ToAgent,
} from '@cairn/core/agent-protocol';
import { DRIVERS } from './drivers/index.ts';
import { AgentFailure, messageOf, type ResultOut } from './drivers/driver.ts';

export interface AgentOptions {
  server: string;
  agentId: string;
  secret: string;
  version: string;
  log: (line: string) => void;
}

/** How a connection ended: refused (do not retry: exit non-zero) or lost (reconnect). */
export type SessionEnd = { refused: true; message: string } | { refused: false; message: string; lastedMs: number };

interface Running {
  abort: AbortController;
  sent: number;
  acked: number;
  wake: (() => void) | null;
}

/** Reply parts (characters; a WebSocket message of the Workers runtime is at most 1 MiB). */
const REPLY_PART = 256 * 1024;

function connectUrl(server: string): string {
  const url = new URL(AGENT_CONNECT_PATH, server.endsWith('/') ? server : `${server}/`);
  url.protocol = url.protocol === 'https:' ? 'wss:' : url.protocol === 'http:' ? 'ws:' : url.protocol;
  return url.toString();
}

/**
 * One connection to Cairn: hello, pings, and the requests of the agent's Durable Object. Resolves when
 * the connection ends. Queries still running then are cancelled in their databases.
 */
export function session(opts: AgentOptions, onOpen: () => void): Promise<SessionEnd> {
  return new Promise((resolve) => {
    const started = Date.now();
    const running = new Map<string, Running>();
    let ended = false;
    const end = (e: SessionEnd) => {
      if (ended) return;
      ended = true;
      clearInterval(pinger);
      for (const r of running.values()) r.abort.abort();
      resolve(e);
    };
    const ws = new WebSocket(connectUrl(opts.server), {
      headers: { authorization: `Agent ${opts.agentId}:${opts.secret}`, 'user-agent': `cairn-agent/${opts.version}` },
      handshakeTimeout: 15_000,
    });
    let pinger: ReturnType<typeof setInterval> | undefined;
    const send = (msg: FromAgent) => {
      if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(msg));
    };
    const status = () => send({ t: 'status', active_queries: running.size });

    ws.on('unexpected-response', (_req, res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => {
        let detail = body.slice(0, 300);
        try {
          detail = (JSON.parse(body) as { errors?: { detail?: string }[] }).errors?.[0]?.detail ?? detail;
        } catch {
          // not JSON: keep the text
        }
        const status = res.statusCode ?? 0;
        if (status === 401 || status === 403) end({ refused: true, message: `Cairn refused the agent (${status}): ${detail}` });
        else end({ refused: false, message: `Cairn answered ${status}: ${detail}`, lastedMs: 0 });
        ws.terminate();
      });
    });
    ws.on('open', () => {
      onOpen();
      send({ t: 'hello', version: opts.version, address: hostname(), drivers: Object.keys(DRIVERS) });
      pinger = setInterval(() => ws.readyState === WebSocket.OPEN && ws.send('ping'), AGENT_PING_MS);
    });
    ws.on('close', (code, reason) => {
      const why = reason.toString() || `code ${code}`;
      if (code === AGENT_CLOSE_REFUSED) end({ refused: true, message: `Cairn closed the connection: ${why}` });
      else end({ refused: false, message: `connection closed (${why})`, lastedMs: Date.now() - started });
    });
    ws.on('error', (err) => end({ refused: false, message: messageOf(err), lastedMs: Date.now() - started }));
    ws.on('message', (data, isBinary) => {
      if (isBinary) return;
      const text = data.toString();
      if (text === 'pong') return;
      let msg: ToAgent;
      try {
        msg = JSON.parse(text) as ToAgent;
      } catch {
        return;
      }
      switch (msg.t) {
        case 'ack': {
          const r = running.get(msg.id);
          if (r) {
            r.acked = Math.max(r.acked, msg.seq + 1);
            r.wake?.();
          }
          return;
        }
        case 'cancel':
          running.get(msg.id)?.abort.abort();
          return;
        case 'run':
          void runQuery(msg);
          return;
        case 'test':
        case 'schema':
          void answer(msg);
          return;
      }
    });

    async function answer(msg: Extract<ToAgent, { t: 'test' | 'schema' }>) {
      const driver = DRIVERS[msg.ds.database_type];
      try {
        if (!driver) throw new AgentFailure('connection_error', `This agent has no driver for "${msg.ds.database_type}".`);
        const value = msg.t === 'test' ? await driver.test(msg.ds) : await driver.schema(msg.ds, msg.opts);
        const text = JSON.stringify(value);
        for (let at = 0; at < text.length || at === 0; at += REPLY_PART) {
          send({ t: 'reply', id: msg.id, part: text.slice(at, at + REPLY_PART), more: at + REPLY_PART < text.length });
        }
      } catch (err) {
        const f = err instanceof AgentFailure ? err : new AgentFailure('query_error', messageOf(err));
        send({ t: 'error', id: msg.id, kind: f.kind, message: f.message });
      }
    }

    async function runQuery(msg: Extract<ToAgent, { t: 'run' }>) {
      const r: Running = { abort: new AbortController(), sent: 0, acked: 0, wake: null };
      running.set(msg.id, r);
      status();
      let batch: AgentCell[][] = [];
      let bytes = 0;
      let flushing: Promise<void> = Promise.resolve();
      /** Sends the batch, then waits while AGENT_WINDOW frames are unacknowledged. */
      const flush = () => {
        const rows = batch;
        batch = [];
        bytes = 0;
        flushing = flushing.then(async () => {
          send({ t: 'rows', id: msg.id, seq: r.sent++, rows });
          while (r.sent - r.acked >= AGENT_WINDOW && !r.abort.signal.aborted && !ended) {
            await new Promise<void>((wake) => (r.wake = wake));
            r.wake = null;
          }
        });
        return flushing;
      };
      const out: ResultOut = {
        columns: (columns) => send({ t: 'columns', id: msg.id, columns }),
        row(cells) {
          batch.push(cells);
          bytes += JSON.stringify(cells).length + 1;
          if (bytes < AGENT_FRAME_BYTES) return true;
          void flush();
          return r.sent + 1 - r.acked < AGENT_WINDOW;
        },
        drained: () => flushing,
      };
      try {
        const driver = DRIVERS[msg.ds.database_type];
        if (!driver) throw new AgentFailure('connection_error', `This agent has no driver for "${msg.ds.database_type}".`);
        await driver.run(msg.ds, { text: msg.text, values: msg.values, timeoutMs: msg.timeout_ms, timeZone: msg.time_zone }, out, r.abort.signal);
        if (batch.length) void flush();
        await flushing;
        send({ t: 'done', id: msg.id });
      } catch (err) {
        const f = err instanceof AgentFailure ? err : new AgentFailure('query_error', messageOf(err));
        send({ t: 'error', id: msg.id, kind: f.kind, message: f.message });
      } finally {
        running.delete(msg.id);
        r.wake?.();
        status();
      }
    }
  });
}
