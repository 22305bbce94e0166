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
 * SMTP is Nodemailer's `smtp-server` (AUTH PLAIN with any credentials, no TLS); messages are read with
 * `mailparser`, a parser written independently of Cairn's own MIME builder (worker-api/src/mail), so the
 * mail tests check what the builder writes against another reading of the standards. On purpose,
 * recipients in the domain `reject.invalid` are refused with 550, so the failure paths of a sender can
 * be tried for real.
 *
 * In the stack it runs as a child process (`startMailCatcher`, supervised like the workers); tests may
 * start it in-process with `startSmtpCatcher`. As a script:
 *   node --import tsx scripts/lib/smtp-catcher.ts --smtp-port 8785 --http-port 8786
 */
import { randomUUID } from 'node:crypto';
import { createServer as createHttpServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import libmime from 'libmime';
import { simpleParser, type AddressObject, type ParsedMail } from 'mailparser';
import { SMTPServer, type SMTPServerDataStream, type SMTPServerSession } from 'smtp-server';
import { INBOX_HTML } from './smtp-catcher-inbox.ts';
import type { Supervisor } from './procs.ts';

const MAIL_DEFAULT_SMTP_PORT = 8785;
const MAIL_DEFAULT_HTTP_PORT = 8786;
const REJECTED_DOMAIN = 'reject.invalid';

const MAX_MESSAGE_BYTES = 25 * 1024 * 1024;
const MAX_RECIPIENTS = 100;
const IDLE_TIMEOUT_MS = 5 * 60_000;

interface StoredMessage {
  id: string;
  /** Envelope sender (MAIL FROM; '' for the null sender). */
  from: string;
  /** Envelope recipients (RCPT TO), Bcc included. */
  to: string[];
  /** AUTH PLAIN user name, if the client authenticated. */
  auth_user: string | null;
  received_at: string;
  raw: Buffer;
  /** The message as mailparser reads it, in the inbox API's shape. */
  parsed: ParsedMessage;
}

interface ParsedMessage {
  /** Every header line in order, unfolded, encoded words decoded. */
  headers: { name: string; value: string }[];
  subject: string | null;
  from: string | null;
  to: string | null;
  cc: string | null;
  date: string | null;
  message_id: string | null;
  text: string | null;
  html: string | null;
  attachments: { filename: string | null; content_type: string; disposition: string | null; content_id: string | null; size: number }[];
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

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
  res.end(JSON.stringify(body));
}

function summary(m: StoredMessage) {
  return { id: m.id, from: m.from, to: m.to, subject: m.parsed.subject, date: m.received_at, size: m.raw.length };
}

function detail(m: StoredMessage) {
  return { id: m.id, envelope: { from: m.from, to: m.to }, auth_user: m.auth_user, received_at: m.received_at, size: m.raw.length, ...m.parsed };
}

function handleHttp(store: MessageStore, req: IncomingMessage, res: ServerResponse) {
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

const headerText = (value: string) => {
  try {
    return libmime.decodeWords(value);
  } catch {
    return value;
  }
};

const addressText = (a: AddressObject | AddressObject[] | undefined) => (a === undefined ? null : Array.isArray(a) ? a.map((x) => x.text).join(', ') : a.text);

/** mailparser's reading of a message, in the inbox API's shape. */
async function readMessage(raw: Buffer): Promise<ParsedMessage> {
  const mail: ParsedMail = await simpleParser(raw, { skipImageLinks: true, skipTextToHtml: true, skipTextLinks: true });
  const headers = mail.headerLines.map(({ line }) => {
    const at = line.indexOf(':');
    const name = at === -1 ? line : line.slice(0, at);
    const value =
      at === -1
        ? ''
        : line
            .slice(at + 1)
            .replace(/\r?\n[ \t]+/g, ' ')
            .trim();
    return { name, value: headerText(value) };
  });
  const raw1 = (name: string) => headers.find((h) => h.name.toLowerCase() === name)?.value ?? null;
  return {
    headers,
    subject: mail.subject ?? null,
    // As written (encoded words decoded), not re-quoted by the parser.
    from: raw1('from') ?? addressText(mail.from),
    to: raw1('to') ?? addressText(mail.to),
    cc: raw1('cc') ?? addressText(mail.cc),
    date: raw1('date'),
    message_id: mail.messageId ?? null,
    text: mail.text ?? null,
    html: typeof mail.html === 'string' ? mail.html : null,
    attachments: mail.attachments.map((a) => ({
      filename: a.filename ?? null,
      content_type: a.contentType,
      disposition: a.contentDisposition ?? null,
      content_id: a.contentId?.replace(/^<|>$/g, '') ?? null,
      size: a.size,
    })),
  };
}

/** An SMTP answer other than the default one, as smtp-server reads it off an error. */
function smtpError(code: number, message: string): Error {
  return Object.assign(new Error(message), { responseCode: code });
}

function listen(server: SMTPServer | HttpServer, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = server as HttpServer;
    s.once('error', reject);
    s.listen({ port, host, exclusive: true }, () => {
      s.off('error', reject);
      const addr = (server instanceof SMTPServer ? (server as unknown as { server: HttpServer }).server : s).address();
      resolve(typeof addr === 'object' && addr ? addr.port : port);
    });
  });
}

/** Starts both servers in this process (port 0 picks a free one; the answer says which). */
export async function startSmtpCatcher(opts: CatcherOptions): Promise<RunningCatcher> {
  const host = opts.host ?? '127.0.0.1';
  const store = new MessageStore(opts.limit ?? 500);
  const smtp = new SMTPServer({
    banner: 'Cairn SMTP catcher (nothing is delivered)',
    disabledCommands: ['STARTTLS'],
    authMethods: ['PLAIN'],
    authOptional: true,
    allowInsecureAuth: true,
    size: MAX_MESSAGE_BYTES,
    socketTimeout: IDLE_TIMEOUT_MS,
    closeTimeout: 1000,
    logger: false,
    onAuth(auth, _session, callback) {
      callback(null, { user: auth.username });
    },
    onRcptTo(address, session, callback) {
      if (address.address.toLowerCase().endsWith(`@${REJECTED_DOMAIN}`)) {
        return callback(smtpError(550, `5.1.1 <${address.address}>: mailbox unavailable (the catcher refuses ${REJECTED_DOMAIN})`));
      }
      if (session.envelope.rcptTo.length >= MAX_RECIPIENTS) return callback(smtpError(452, '4.5.3 too many recipients'));
      callback();
    },
    onData(stream: SMTPServerDataStream, session: SMTPServerSession, callback) {
      const parts: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => parts.push(chunk));
      stream.on('end', () => {
        if (stream.sizeExceeded) return callback(smtpError(552, '5.3.4 message exceeds the 25 MB limit'));
        const raw = Buffer.concat(parts);
        const id = randomUUID();
        readMessage(raw)
          .then((parsed) => {
            const from = session.envelope.mailFrom === false ? '' : session.envelope.mailFrom.address;
            const to = session.envelope.rcptTo.map((r) => r.address);
            store.add({ id, from, to, auth_user: (session.user as string | undefined) ?? null, received_at: new Date().toISOString(), raw, parsed });
            if (opts.log) console.log(`mail: ${from || '<>'} → ${to.join(', ')} (${raw.length} bytes)`);
            callback(null, `Ok: queued as ${id}`);
          })
          .catch((err: unknown) => callback(smtpError(451, `could not read the message: ${(err as Error).message}`)));
      });
    },
  });
  smtp.on('error', () => {});
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
    await new Promise<void>((r) => smtp.close(() => r()));
    throw err;
  }
  return {
    smtpPort,
    httpPort,
    messages: store.messages,
    async close() {
      http.closeAllConnections();
      await Promise.all([new Promise<void>((r) => smtp.close(() => r())), new Promise<void>((r) => http.close(() => r()))]);
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
