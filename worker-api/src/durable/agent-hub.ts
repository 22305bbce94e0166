import { DurableObject } from 'cloudflare:workers';
import postgres from 'postgres';
import {
  AGENT_CLOSE_REFUSED,
  AGENT_CLOSE_REPLACED,
  AGENT_STALE_MS,
  type AgentDatasource,
  type FailureKind,
  type FromAgent,
  type ToAgent,
} from '@cairn/core/agent-protocol';
import type { Env } from '../env.ts';

/** What the object keeps on each accepted socket (it survives hibernation). */
interface Attachment {
  row: string;
  name: string;
  address: string | null;
  version: string | null;
  connectedAt: number;
}

/** A frame of a running query as the run's reader receives it. */
export type QueryFrame = Extract<FromAgent, { t: 'columns' | 'rows' | 'done' | 'error' }>;

interface PendingQuery {
  ws: WebSocket;
  frames: QueryFrame[];
  wake: (() => void) | null;
  ended: boolean;
}

interface PendingCall {
  ws: WebSocket;
  parts: string[];
  resolve: (v: CallAnswer) => void;
}

export type CallAnswer = { ok: true; value: unknown } | { ok: false; kind: FailureKind; message: string };
export type StartAnswer = { ok: true; id: string } | { ok: false; kind: FailureKind; message: string };

export interface AgentState {
  connected: boolean;
  name: string | null;
}

/** How often the alarm looks for an agent whose pings stopped (half-open connections). */
const CHECK_MS = 5_000;
/** Longest wait of one `next` call for a frame (the reader calls again). */
const NEXT_WAIT_MS = 15_000;
/** Longest wait for the answer of a connection test or a schema read. */
const CALL_WAIT_MS = 120_000;

/**
 * One per datasource agent (`agent::<datasource_agents.id>`): holds the agent's one WebSocket
 * (hibernatable: the object may sleep between messages, the socket stays open) and carries the
 * executions, connection tests and schema reads of the datasources that use the agent.
 *
 * The agent pings every few seconds; the runtime answers those pings without waking the object, and
 * an alarm checks their timestamps, so `connected` turns false within AGENT_STALE_MS + CHECK_MS of an
 * agent that went silent, and at once when its connection closes. `connected`, `version`, `address`
 * and `active_queries` are written to the agent's row as they change.
 *
 * A query is started with `start` and read with `next` (one call per batch of frames): the object
 * acknowledges a `rows` frame to the agent when `next` hands it out, so the agent never has more
 * than a small window of frames ahead of the reader. Queries live in memory only: when the socket
 * closes they end with an error saying so, and if the object itself restarts the reader is told the
 * query was lost.
 */
export class AgentHub extends DurableObject<Env> {
  private queries = new Map<string, PendingQuery>();
  private calls = new Map<string, PendingCall>();
  private sql: postgres.Sql | null = null;
  private lastActive = -1;

  private db(): postgres.Sql {
    return (this.sql ??= postgres(this.env.HYPERDRIVE.connectionString, {
      max: 1,
      fetch_types: false,
      idle_timeout: 30,
      onnotice: () => {},
      connection: { application_name: 'cairn-agent-hub' },
    }));
  }

  private async record(row: string, set: { connected?: boolean; version?: string | null; address?: string | null; active_queries?: number }) {
    const sql = this.db();
    await sql`update datasource_agents set ${sql(set as Record<string, unknown>)} where id = ${row}`.catch((err) =>
      console.error(`agent-hub: recording the state of ${row} failed`, err),
    );
  }

  private socket(): WebSocket | null {
    return this.ctx.getWebSockets()[0] ?? null;
  }

  private attachment(ws: WebSocket): Attachment {
    return ws.deserializeAttachment() as Attachment;
  }

  /** The WebSocket upgrade, forwarded by the connect route once it has checked the agent's secret. */
  override async fetch(request: Request): Promise<Response> {
    const row = request.headers.get('x-cairn-agent-row');
    if (!row || request.headers.get('upgrade')?.toLowerCase() !== 'websocket') return new Response('expected a WebSocket upgrade', { status: 426 });
    // One connection per agent: a newer one replaces the old (a restarted agent whose old socket is half open).
    for (const old of this.ctx.getWebSockets()) {
      this.lost(old, 'The agent reconnected while the query was running; the query was abandoned.');
      old.close(AGENT_CLOSE_REPLACED, 'replaced by a newer connection');
    }
    const pair = new WebSocketPair();
    const [client, server] = [pair[0], pair[1]];
    this.ctx.acceptWebSocket(server);
    const attachment: Attachment = {
      row,
      name: request.headers.get('x-cairn-agent-name') ?? 'agent',
      address: request.headers.get('x-cairn-agent-address'),
      version: null,
      connectedAt: Date.now(),
    };
    server.serializeAttachment(attachment);
    this.ctx.setWebSocketAutoResponse(new WebSocketRequestResponsePair('ping', 'pong'));
    await this.ctx.storage.put('row', row);
    await this.ctx.storage.setAlarm(Date.now() + CHECK_MS);
    this.lastActive = 0;
    await this.record(row, { connected: true, active_queries: 0, ...(attachment.address ? { address: attachment.address } : {}) });
    return new Response(null, { status: 101, webSocket: client });
  }

  override async webSocketMessage(ws: WebSocket, message: string | ArrayBuffer): Promise<void> {
    if (typeof message !== 'string') return;
    let msg: FromAgent;
    try {
      msg = JSON.parse(message) as FromAgent;
    } catch {
      return;
    }
    const a = this.attachment(ws);
    switch (msg.t) {
      case 'hello': {
        const address = a.address ?? (msg.address || null);
        ws.serializeAttachment({ ...a, version: msg.version, address } satisfies Attachment);
        await this.record(a.row, { connected: true, version: String(msg.version).slice(0, 100), address: address?.slice(0, 200) ?? null });
        return;
      }
      case 'status':
        if (msg.active_queries !== this.lastActive) {
          this.lastActive = msg.active_queries;
          await this.record(a.row, { active_queries: Math.max(0, Math.floor(msg.active_queries)) });
        }
        return;
      case 'reply': {
        const call = this.calls.get(msg.id);
        if (!call) return;
        call.parts.push(msg.part);
        if (msg.more) return;
        this.calls.delete(msg.id);
        try {
          call.resolve({ ok: true, value: JSON.parse(call.parts.join('')) });
        } catch {
          call.resolve({ ok: false, kind: 'connection_error', message: 'The agent sent an answer that is not JSON.' });
        }
        return;
      }
      case 'error': {
        const call = this.calls.get(msg.id);
        if (call) {
          this.calls.delete(msg.id);
          call.resolve({ ok: false, kind: msg.kind, message: msg.message });
          return;
        }
        this.push(msg.id, msg);
        return;
      }
      case 'columns':
      case 'rows':
      case 'done':
        this.push(msg.id, msg);
        return;
    }
  }

  private push(id: string, frame: QueryFrame) {
    const q = this.queries.get(id);
    if (!q || q.ended) return;
    q.frames.push(frame);
    if (frame.t === 'done' || frame.t === 'error') q.ended = true;
    q.wake?.();
  }

  override async webSocketClose(ws: WebSocket, code: number): Promise<void> {
    await this.gone(ws, code === AGENT_CLOSE_REPLACED);
  }

  override async webSocketError(ws: WebSocket): Promise<void> {
    await this.gone(ws, false);
  }

  /** Ends what ran on a socket that closed, and records the agent as disconnected (unless a newer socket replaced it). */
  private async gone(ws: WebSocket, replaced: boolean) {
    const a = this.attachment(ws);
    this.lost(ws, `The agent "${a.name}" disconnected while the query was running.`);
    try {
      ws.close(1000, 'closed');
    } catch {
      // already closed
    }
    const others = this.ctx.getWebSockets().filter((s) => s !== ws && s.readyState === WebSocket.OPEN);
    if (!replaced && others.length === 0) await this.record(a.row, { connected: false, active_queries: 0 });
  }

  private lost(ws: WebSocket, message: string) {
    for (const [id, q] of this.queries) {
      if (q.ws === ws) this.push(id, { t: 'error', id, kind: 'connection_error', message });
    }
    for (const [id, call] of this.calls) {
      if (call.ws !== ws) continue;
      this.calls.delete(id);
      call.resolve({ ok: false, kind: 'connection_error', message: message.replace('the query was running', 'it answered') });
    }
  }

  /** Writes off an agent whose pings stopped; re-arms while a socket is open. */
  override async alarm(): Promise<void> {
    const now = Date.now();
    for (const ws of this.ctx.getWebSockets()) {
      const a = this.attachment(ws);
      const pinged = this.ctx.getWebSocketAutoResponseTimestamp(ws)?.getTime() ?? 0;
      if (now - Math.max(pinged, a.connectedAt) > AGENT_STALE_MS) await this.gone(ws, false);
    }
    if (this.ctx.getWebSockets().length) {
      await this.ctx.storage.setAlarm(now + CHECK_MS);
    } else {
      const row = await this.ctx.storage.get<string>('row');
      if (row) await this.record(row, { connected: false, active_queries: 0 });
    }
  }

  private send(ws: WebSocket, msg: ToAgent) {
    ws.send(JSON.stringify(msg));
  }

  async state(): Promise<AgentState> {
    const ws = this.socket();
    return { connected: ws !== null && ws.readyState === WebSocket.OPEN, name: ws ? this.attachment(ws).name : null };
  }

  /** Sends a query to the agent; read its frames with `next`. */
  async start(req: { ds: AgentDatasource; text: string; values: unknown[]; timeoutMs: number; timeZone: string; label: string }): Promise<StartAnswer> {
    const ws = this.socket();
    if (!ws || ws.readyState !== WebSocket.OPEN) return { ok: false, kind: 'connection_error', message: `The agent ${req.label} is not connected.` };
    const id = crypto.randomUUID();
    this.queries.set(id, { ws, frames: [], wake: null, ended: false });
    this.send(ws, { t: 'run', id, ds: req.ds, text: req.text, values: req.values, timeout_ms: req.timeoutMs, time_zone: req.timeZone });
    return { ok: true, id };
  }

  /** The query's next frames (waits for at least one, or NEXT_WAIT_MS); acknowledges the rows it hands out. */
  async next(id: string): Promise<QueryFrame[]> {
    const q = this.queries.get(id);
    if (!q) {
      return [
        {
          t: 'error',
          id,
          kind: 'connection_error',
          message: "The agent's connection was reset while the query ran (the server holding it restarted); the query was lost.",
        },
      ];
    }
    if (!q.frames.length) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => resolve(), NEXT_WAIT_MS);
        q.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      q.wake = null;
    }
    const frames = q.frames;
    q.frames = [];
    for (const f of frames) {
      if (f.t === 'rows' && q.ws.readyState === WebSocket.OPEN) this.send(q.ws, { t: 'ack', id, seq: f.seq });
    }
    if (q.ended && !q.frames.length) this.queries.delete(id);
    return frames;
  }

  /** Asks the agent to cancel the query in its database (it answers with an error frame `cancelled`). */
  async cancel(id: string): Promise<boolean> {
    const q = this.queries.get(id);
    if (!q || q.ended || q.ws.readyState !== WebSocket.OPEN) return false;
    this.send(q.ws, { t: 'cancel', id });
    return true;
  }

  /** A connection test or a schema read through the agent. */
  async call(kind: 'test' | 'schema', ds: AgentDatasource, label: string, opts: Record<string, unknown> = {}): Promise<CallAnswer> {
    const ws = this.socket();
    if (!ws || ws.readyState !== WebSocket.OPEN) return { ok: false, kind: 'connection_error', message: `The agent ${label} is not connected.` };
    const id = crypto.randomUUID();
    return new Promise<CallAnswer>((resolve) => {
      const timer = setTimeout(() => {
        this.calls.delete(id);
        resolve({ ok: false, kind: 'connection_error', message: `The agent ${label} did not answer within ${CALL_WAIT_MS / 1000} s.` });
      }, CALL_WAIT_MS);
      this.calls.set(id, {
        ws,
        parts: [],
        resolve: (v) => {
          clearTimeout(timer);
          resolve(v);
        },
      });
      this.send(ws, kind === 'test' ? { t: 'test', id, ds } : { t: 'schema', id, ds, opts });
    });
  }

  /** Closes the agent's connection for good (the agent was disabled or deleted): the agent exits. */
  async refuse(reason: string): Promise<void> {
    for (const ws of this.ctx.getWebSockets()) {
      this.lost(ws, reason);
      ws.close(AGENT_CLOSE_REFUSED, reason.slice(0, 120));
    }
    const row = await this.ctx.storage.get<string>('row');
    if (row) await this.record(row, { connected: false, active_queries: 0 });
  }
}
