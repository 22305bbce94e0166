/**
 * The SMTP catcher of the dev and test stacks: a small SMTP server on 127.0.0.1 that accepts every
 * message (none is delivered anywhere), keeps the last ones in memory and shows them over HTTP:
 *
 *   GET /                        an inbox page for developers
 *   GET /messages                [{id, from, to, subject, date, size}], newest first (`?to=` filters by recipient)
 *   GET /messages/{id}           envelope, decoded headers, text, html, attachments (metadata)
 *   GET /messages/{id}/raw       the message as received (message/rfc822)
 *   DELETE /messages[/{id}]      forget all messages (or one)
 *
 * SMTP: EHLO/HELO, AUTH PLAIN (any credentials), MAIL FROM, RCPT TO, DATA (dot-stuffing undone), RSET,
 * NOOP, VRFY, QUIT. On purpose, recipients in the domain `reject.invalid` are refused with 550, so the
 * failure paths of a sender can be tried for real.
 *
 * In the stack it runs as a child process (`startMailCatcher`, supervised like the workers); tests may
 * start it in-process with `startSmtpCatcher`. As a script:
 *   node --import tsx scripts/lib/smtp-catcher.ts --smtp-port 8785 --http-port 8786
 */
import { randomUUID } from 'node:crypto';
import { createServer as createHttpServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import { createServer as createNetServer, type Server as NetServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { INBOX_HTML } from './smtp-catcher-inbox.ts';
import { parseMessage } from './smtp-catcher-mime.ts';
import type { Supervisor } from './procs.ts';

export const MAIL_DEFAULT_SMTP_PORT = 8785;
export const MAIL_DEFAULT_HTTP_PORT = 8786;
export const REJECTED_DOMAIN = 'reject.invalid';

const MAX_LINE = 4096;
const MAX_MESSAGE_BYTES = 25 * 1024 * 1024;
const MAX_RECIPIENTS = 100;
const IDLE_TIMEOUT_MS = 5 * 60_000;

export interface StoredMessage {
  id: string;
  /** Envelope sender (MAIL FROM; '' for the null sender). */
  from: string;
  /** Envelope recipients (RCPT TO), Bcc included. */
  to: string[];
  /** AUTH PLAIN user name, if the client authenticated. */
  auth_user: string | null;
  received_at: string;
  raw: Buffer;
}

export interface CatcherOptions {
  host?: string;
  smtpPort: number;
  httpPort: number;
  /** Messages kept (oldest dropped first; default 500). */
  limit?: number;
  /** One line per received message on stdout. */
  log?: boolean;
}

export interface RunningCatcher {
  smtpPort: number;
  httpPort: number;
  messages: StoredMessage[];
  close(): Promise<void>;
}

class MessageStore {
  readonly messages: StoredMessage[] = [];
  constructor(private readonly limit: number) {}

  add(m: StoredMessage): void {
    this.messages.push(m);
    if (this.messages.length > this.limit) this.messages.splice(0, this.messages.length - this.limit);
  }

  find(id: string): StoredMessage | undefined {
    return this.messages.find((m) => m.id === id);
  }
}

/** `<addr>` out of `FROM:<addr> SIZE=123`; null when the path is malformed. */
export function parsePath(arg: string, keyword: 'FROM' | 'TO'): string | null {
  const m = new RegExp(`^${keyword}:\\s*<([^<>\\s]*)>(?:\\s+.*)?$`, 'i').exec(arg.trim());
  if (m) return m[1]!;
  const bare = new RegExp(`^${keyword}:\\s*([^<>\\s]+)$`, 'i').exec(arg.trim());
  return bare ? bare[1]! : null;
}

type SmtpState = 'start' | 'greeted' | 'mail' | 'rcpt' | 'data' | 'auth';

/** One SMTP conversation. */
class SmtpSession {
  private state: SmtpState = 'start';
  private buffer = Buffer.alloc(0);
  private from = '';
  private to: string[] = [];
  private authUser: string | null = null;
  private data: Buffer[] = [];
  private dataSize = 0;

  constructor(
    private readonly socket: Socket,
    private readonly store: MessageStore,
    private readonly log: boolean,
  ) {
    socket.setTimeout(IDLE_TIMEOUT_MS, () => {
      this.reply('421 4.4.2 idle too long, closing');
      socket.end();
    });
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('error', () => socket.destroy());
    this.reply('220 127.0.0.1 ESMTP Cairn SMTP catcher (nothing is delivered)');
  }

  private reply(line: string): void {
    if (!this.socket.destroyed) this.socket.write(`${line}\r\n`);
  }

  private onData(chunk: Buffer): void {
    this.buffer = Buffer.concat([this.buffer, chunk]);
    for (;;) {
      const nl = this.buffer.indexOf('\n');
      if (nl === -1) break;
      const line = this.buffer.subarray(0, nl + 1);
      this.buffer = this.buffer.subarray(nl + 1);
      if (this.state === 'data') this.onDataLine(line);
      else this.onCommand(line.toString('utf8').replace(/\r?\n$/, ''));
      if (this.socket.destroyed) return;
    }
    if (this.state !== 'data' && this.buffer.length > MAX_LINE) {
      this.reply('500 5.5.2 line too long');
      this.socket.end();
    }
  }

  private onDataLine(line: Buffer): void {
    const text = line.toString('latin1');
    if (text === '.\r\n' || text === '.\n') {
      this.finishData();
      return;
    }
    const unstuffed = text.startsWith('.') ? line.subarray(1) : line;
    this.dataSize += unstuffed.length;
    if (this.dataSize <= MAX_MESSAGE_BYTES) this.data.push(unstuffed);
  }

  private finishData(): void {
    const tooBig = this.dataSize > MAX_MESSAGE_BYTES;
    if (tooBig) this.reply(`552 5.3.4 message larger than ${MAX_MESSAGE_BYTES} bytes`);
    else {
      const id = randomUUID();
      const raw = Buffer.concat(this.data);
      this.store.add({ id, from: this.from, to: this.to, auth_user: this.authUser, received_at: new Date().toISOString(), raw });
      if (this.log) console.log(`received ${id} from <${this.from}> to ${this.to.map((t) => `<${t}>`).join(', ')} (${raw.length} bytes)`);
      this.reply(`250 2.0.0 Ok: queued as ${id}`);
    }
    this.resetTransaction();
  }

  private resetTransaction(): void {
    this.state = this.state === 'start' ? 'start' : 'greeted';
    this.from = '';
    this.to = [];
    this.data = [];
    this.dataSize = 0;
  }

  private onCommand(line: string): void {
    if (this.state === 'auth') return this.finishAuth(line);
    const space = line.indexOf(' ');
    const verb = (space === -1 ? line : line.slice(0, space)).toUpperCase();
    const arg = space === -1 ? '' : line.slice(space + 1);
    switch (verb) {
      case 'EHLO':
      case 'HELO':
        return this.hello(verb, arg);
      case 'AUTH':
        return this.auth(arg);
      case 'MAIL':
        return this.mail(arg);
      case 'RCPT':
        return this.rcpt(arg);
      case 'DATA':
        return this.startData(arg);
      case 'RSET':
        this.resetTransaction();
        return this.reply('250 2.0.0 Ok');
      case 'NOOP':
        return this.reply('250 2.0.0 Ok');
      case 'VRFY':
        return this.reply('252 2.1.5 Cannot verify, but will accept');
      case 'QUIT':
        this.reply('221 2.0.0 Bye');
        this.socket.end();
        return;
      case 'STARTTLS':
        return this.reply('502 5.5.1 STARTTLS is not offered by this catcher');
      default:
        return this.reply(`500 5.5.2 unknown command ${JSON.stringify(verb.slice(0, 20))}`);
    }
  }

  private hello(verb: string, arg: string): void {
    if (!arg.trim()) return this.reply(`501 5.5.4 ${verb} needs a domain or address`);
    this.resetTransaction();
    this.state = 'greeted';
    if (verb === 'HELO') return this.reply(`250 127.0.0.1 hello ${arg.trim()}`);
    this.reply(`250-127.0.0.1 hello ${arg.trim()}`);
    this.reply(`250-SIZE ${MAX_MESSAGE_BYTES}`);
    this.reply('250-8BITMIME');
    this.reply('250-AUTH PLAIN');
    this.reply('250 ENHANCEDSTATUSCODES');
  }

  private auth(arg: string): void {
    const [mechanism, initial] = arg.trim().split(/\s+/);
    if (this.state === 'start') return this.reply('503 5.5.1 say EHLO first');
    if (mechanism?.toUpperCase() !== 'PLAIN') return this.reply('504 5.5.4 only AUTH PLAIN is offered');
    if (initial === undefined) {
      this.state = 'auth';
      return this.reply('334 ');
    }
    this.acceptPlain(initial);
  }

  private finishAuth(line: string): void {
    this.state = 'greeted';
    if (line.trim() === '*') return this.reply('501 5.7.0 authentication cancelled');
    this.acceptPlain(line.trim());
  }

  /** Any credentials pass; the user name is recorded with the messages that follow. */
  private acceptPlain(b64: string): void {
    const parts = Buffer.from(b64, 'base64').toString('utf8').split('\0');
    if (parts.length !== 3) return this.reply('501 5.5.2 malformed AUTH PLAIN response');
    this.authUser = parts[1] || parts[0] || '';
    this.reply('235 2.7.0 Authentication successful');
  }

  private mail(arg: string): void {
    if (this.state === 'start') return this.reply('503 5.5.1 say EHLO first');
    if (this.state !== 'greeted') return this.reply('503 5.5.1 nested MAIL command');
    const from = parsePath(arg, 'FROM');
    if (from === null) return this.reply('501 5.1.7 syntax: MAIL FROM:<address>');
    this.from = from;
    this.state = 'mail';
    this.reply('250 2.1.0 Ok');
  }

  private rcpt(arg: string): void {
    if (this.state !== 'mail' && this.state !== 'rcpt') return this.reply('503 5.5.1 need MAIL before RCPT');
    const to = parsePath(arg, 'TO');
    if (!to || !to.includes('@')) return this.reply('501 5.1.3 syntax: RCPT TO:<address>');
    if (to.toLowerCase().endsWith(`@${REJECTED_DOMAIN}`)) return this.reply(`550 5.1.1 <${to}>: mailbox unavailable (the catcher refuses ${REJECTED_DOMAIN})`);
    if (this.to.length >= MAX_RECIPIENTS) return this.reply('452 4.5.3 too many recipients');
    this.to.push(to);
    this.state = 'rcpt';
    this.reply('250 2.1.5 Ok');
  }

  private startData(arg: string): void {
    if (arg.trim()) return this.reply('501 5.5.4 DATA takes no argument');
    if (this.state !== 'rcpt') return this.reply('503 5.5.1 need RCPT before DATA');
    this.state = 'data';
    this.reply('354 End data with <CR><LF>.<CR><LF>');
  }
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
  res.end(JSON.stringify(body));
}

function summary(m: StoredMessage) {
  return { id: m.id, from: m.from, to: m.to, subject: parseMessage(m.raw).subject, date: m.received_at, size: m.raw.length };
}

function detail(m: StoredMessage) {
  const parsed = parseMessage(m.raw);
  return { id: m.id, envelope: { from: m.from, to: m.to }, auth_user: m.auth_user, received_at: m.received_at, size: m.raw.length, ...parsed };
}

function handleHttp(store: MessageStore, req: IncomingMessage, res: ServerResponse): void {
  const url = new URL(req.url ?? '/', 'http://catcher');
  const parts = url.pathname.split('/').filter(Boolean);
  const method = req.method ?? 'GET';
  if (parts.length === 0 && method === 'GET') {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    return void res.end(INBOX_HTML);
  }
  if (parts[0] !== 'messages' || parts.length > 3) return sendJson(res, 404, { error: 'not found' });
  if (parts.length === 1) {
    if (method === 'DELETE') {
      store.messages.length = 0;
      return void res.writeHead(204).end();
    }
    if (method !== 'GET') return sendJson(res, 405, { error: 'use GET or DELETE' });
    const to = url.searchParams.get('to')?.toLowerCase();
    const list = store.messages.filter((m) => !to || m.to.some((t) => t.toLowerCase() === to));
    return sendJson(res, 200, list.slice().reverse().map(summary));
  }
  const message = store.find(parts[1]!);
  if (!message) return sendJson(res, 404, { error: `no message ${parts[1]}` });
  if (parts.length === 3) {
    if (parts[2] !== 'raw' || method !== 'GET') return sendJson(res, 404, { error: 'not found' });
    res.writeHead(200, { 'content-type': 'message/rfc822', 'cache-control': 'no-store' });
    return void res.end(message.raw);
  }
  if (method === 'DELETE') {
    store.messages.splice(store.messages.indexOf(message), 1);
    return void res.writeHead(204).end();
  }
  if (method !== 'GET') return sendJson(res, 405, { error: 'use GET or DELETE' });
  sendJson(res, 200, detail(message));
}

function listen(server: NetServer | HttpServer, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port, host, exclusive: true }, () => {
      server.off('error', reject);
      const addr = server.address();
      resolve(typeof addr === 'object' && addr ? addr.port : port);
    });
  });
}

function closeServer(server: NetServer | HttpServer): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

/** Starts both servers in this process (port 0 picks a free one; the answer says which). */
export async function startSmtpCatcher(opts: CatcherOptions): Promise<RunningCatcher> {
  const host = opts.host ?? '127.0.0.1';
  const store = new MessageStore(opts.limit ?? 500);
  const sockets = new Set<Socket>();
  const smtp = createNetServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    new SmtpSession(socket, store, opts.log ?? false);
  });
  const http = createHttpServer((req, res) => {
    try {
      handleHttp(store, req, res);
    } catch (err) {
      sendJson(res, 500, { error: (err as Error).message });
    }
  });
  const smtpPort = await listen(smtp, opts.smtpPort, host);
  let httpPort: number;
  try {
    httpPort = await listen(http, opts.httpPort, host);
  } catch (err) {
    await closeServer(smtp);
    throw err;
  }
  return {
    smtpPort,
    httpPort,
    messages: store.messages,
    async close() {
      for (const s of sockets) s.destroy();
      http.closeAllConnections();
      await Promise.all([closeServer(smtp), closeServer(http)]);
    },
  };
}

export interface StackMailCatcher {
  smtpPort: number;
  httpPort: number;
  /** The inbox page / HTTP API. */
  url: string;
}

/**
 * The catcher as a supervised child process of the stack (stopped with the workers). Waits for the
 * "listening" line, so it never reports a stranger's port as its own.
 */
export async function startMailCatcher(
  sup: Supervisor,
  opts: { smtpPort: number; httpPort: number; quiet?: boolean; repoRoot: string },
): Promise<StackMailCatcher> {
  const script = join(opts.repoRoot, 'scripts/lib/smtp-catcher.ts');
  const child = sup.spawn('mail', process.execPath, ['--import', 'tsx', script, '--smtp-port', String(opts.smtpPort), '--http-port', String(opts.httpPort)], {
    quiet: opts.quiet,
    cwd: opts.repoRoot,
  });
  const deadline = Date.now() + 30_000;
  while (!child.tail.some((l) => l.startsWith('listening: smtp'))) {
    if (!child.running) throw new Error(`the SMTP catcher did not start. ${child.describeExit()}`);
    if (Date.now() > deadline) throw new Error('the SMTP catcher did not start listening within 30 s');
    await new Promise((r) => setTimeout(r, 50));
  }
  return { smtpPort: opts.smtpPort, httpPort: opts.httpPort, url: `http://127.0.0.1:${opts.httpPort}` };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      'smtp-port': { type: 'string', default: String(MAIL_DEFAULT_SMTP_PORT) },
      'http-port': { type: 'string', default: String(MAIL_DEFAULT_HTTP_PORT) },
      host: { type: 'string', default: '127.0.0.1' },
      limit: { type: 'string', default: '500' },
    },
    strict: true,
  });
  const catcher = await startSmtpCatcher({
    host: values.host,
    smtpPort: Number(values['smtp-port']),
    httpPort: Number(values['http-port']),
    limit: Number(values.limit),
    log: true,
  });
  console.log(`listening: smtp ${values.host}:${catcher.smtpPort}, inbox http://${values.host}:${catcher.httpPort}/`);
  const stop = () => void catcher.close().then(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err: unknown) => {
    console.error(`smtp catcher: ${(err as Error).message}`);
    process.exit(1);
  });
}
