/**
 * The SMTP client dialogue (RFC 5321) over a byte stream: greeting, EHLO (HELO when refused), STARTTLS,
 * AUTH PLAIN, MAIL FROM, RCPT TO per recipient, DATA and QUIT. Every reply's code is checked against the
 * codes that step allows; every wait has a timeout. The stream comes from `cloudflare:sockets` in the
 * worker (mailer.ts); this file does not open it, so the dialogue itself can be driven by any stream.
 */
import { bytesToBase64 } from './encode.ts';

/** A connected stream (the shape of a `cloudflare:sockets` Socket). */
export interface SmtpStream {
  readable: ReadableStream<Uint8Array>;
  writable: WritableStream<Uint8Array>;
  close(): Promise<void>;
  /** STARTTLS: a new stream over the same connection, encrypted (needs the connection opened for it). */
  startTls?(): SmtpStream;
}

export interface SmtpReply {
  code: number;
  lines: string[];
}

export class SmtpError extends Error {
  constructor(
    message: string,
    /** The server's reply code, when the server said no. */
    readonly code?: number,
  ) {
    super(message);
  }
}

export interface DialogueOptions {
  /** Name said in EHLO. */
  heloName: string;
  /** 'starttls': upgrade before anything else is said (fails when the server does not offer it). */
  startTls: boolean;
  /** The stream is encrypted from the start (implicit TLS). */
  encrypted: boolean;
  /** The server is this machine (credentials may then go over a plain connection). */
  loopback: boolean;
  user?: string;
  password?: string;
  /** Longest wait for one reply (ms). */
  timeoutMs: number;
}

export interface Envelope {
  from: string;
  to: string[];
}

export interface Delivery {
  accepted: string[];
  rejected: { address: string; reason: string }[];
  /** The server's answer to the end of DATA (usually names its queue id). */
  response: string;
}

/** `250 ok` / `250-a`…`250 z`: one complete reply from the front of `buffer`, or null if it is not all there. */
export function takeReply(buffer: string): { reply: SmtpReply; rest: string } | null {
  const lines: string[] = [];
  let pos = 0;
  for (;;) {
    const nl = buffer.indexOf('\n', pos);
    if (nl === -1) return null;
    const line = buffer.slice(pos, nl).replace(/\r$/, '');
    pos = nl + 1;
    const m = /^(\d{3})([ -]?)(.*)$/.exec(line);
    if (!m) throw new SmtpError(`the server sent something that is not an SMTP reply: ${JSON.stringify(line.slice(0, 120))}`);
    lines.push(m[3]!);
    if (m[2] !== '-') return { reply: { code: Number(m[1]), lines }, rest: buffer.slice(pos) };
  }
}

const replyText = (r: SmtpReply) => `${r.code} ${r.lines.join(' ').trim()}`.trim();

/** One conversation: reads replies with timeouts and sends commands. */
class SmtpConversation {
  private reader: ReadableStreamDefaultReader<Uint8Array>;
  private writer: WritableStreamDefaultWriter<Uint8Array>;
  private buffer = '';
  private decoder = new TextDecoder();
  private readonly encoder = new TextEncoder();

  constructor(
    private stream: SmtpStream,
    private readonly timeoutMs: number,
  ) {
    this.reader = stream.readable.getReader();
    this.writer = stream.writable.getWriter();
  }

  /** The next reply; `what` names the step in the error messages. */
  async read(what: string, timeoutMs = this.timeoutMs): Promise<SmtpReply> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const taken = takeReply(this.buffer);
      if (taken) {
        this.buffer = taken.rest;
        return taken.reply;
      }
      const left = deadline - Date.now();
      if (left <= 0) throw new SmtpError(`no reply to ${what} within ${Math.round(timeoutMs / 1000)} s`);
      const chunk = await this.readChunk(left, what, timeoutMs);
      if (chunk.done) throw new SmtpError(`the server closed the connection while waiting for the reply to ${what}`);
      this.buffer += this.decoder.decode(chunk.value, { stream: true });
      if (this.buffer.length > 64 * 1024) throw new SmtpError(`the reply to ${what} is too long`);
    }
  }

  private async readChunk(leftMs: number, what: string, timeoutMs: number) {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new SmtpError(`no reply to ${what} within ${Math.round(timeoutMs / 1000)} s`)), leftMs);
    });
    try {
      return await Promise.race([this.reader.read(), timeout]);
    } finally {
      if (timer !== undefined) clearTimeout(timer);
    }
  }

  async write(text: string): Promise<void> {
    await this.writer.write(this.encoder.encode(text));
  }

  /** Sends a command line and reads its reply; a code outside `ok` is an SmtpError quoting the server. */
  async command(line: string, ok: number[], what = line.split(' ')[0]!): Promise<SmtpReply> {
    await this.write(`${line}\r\n`);
    const reply = await this.read(what);
    if (!ok.includes(reply.code)) throw new SmtpError(`the server refused ${what}: ${replyText(reply)}`, reply.code);
    return reply;
  }

  /** Swaps the stream for its TLS upgrade (after the server's 220 to STARTTLS). */
  upgrade(): void {
    if (!this.stream.startTls) throw new SmtpError('this connection cannot be upgraded to TLS');
    this.reader.releaseLock();
    this.writer.releaseLock();
    this.stream = this.stream.startTls();
    this.reader = this.stream.readable.getReader();
    this.writer = this.stream.writable.getWriter();
    this.buffer = '';
    this.decoder = new TextDecoder();
  }

  async close(): Promise<void> {
    try {
      this.reader.releaseLock();
      this.writer.releaseLock();
    } catch {
      /* a read may still be pending after a timeout; closing the stream ends it */
    }
    await this.stream.close().catch(() => undefined);
  }
}

/** EHLO's keywords (`SIZE 1000`, `AUTH PLAIN LOGIN` → map of upper-case keyword to its parameters). */
function extensions(reply: SmtpReply): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of reply.lines.slice(1)) {
    const [keyword, ...params] = line.trim().split(/\s+/);
    if (keyword) out.set(keyword.toUpperCase(), params.join(' ').toUpperCase());
  }
  return out;
}

async function hello(conv: SmtpConversation, name: string): Promise<Map<string, string>> {
  await conv.write(`EHLO ${name}\r\n`);
  const reply = await conv.read('EHLO');
  if (reply.code === 250) return extensions(reply);
  if (reply.code < 500) throw new SmtpError(`the server refused EHLO: ${replyText(reply)}`, reply.code);
  await conv.command(`HELO ${name}`, [250]);
  return new Map();
}

function plainCredentials(user: string, password: string): string {
  return bytesToBase64(new TextEncoder().encode(`\0${user}\0${password}`));
}

/** Greeting, EHLO, optional STARTTLS and AUTH: ready for MAIL FROM; returns the server's extensions. */
async function openSession(conv: SmtpConversation, opts: DialogueOptions): Promise<Map<string, string>> {
  const greeting = await conv.read('the greeting');
  if (greeting.code !== 220) throw new SmtpError(`the server did not greet: ${replyText(greeting)}`, greeting.code);
  let ext = await hello(conv, opts.heloName);
  if (opts.startTls) {
    if (!ext.has('STARTTLS')) throw new SmtpError('the server does not offer STARTTLS (SMTP_SECURE=starttls)');
    await conv.command('STARTTLS', [220]);
    conv.upgrade();
    ext = await hello(conv, opts.heloName);
  }
  if (opts.user) {
    if (!opts.encrypted && !opts.startTls && !opts.loopback) {
      throw new SmtpError('refusing to send the SMTP password over an unencrypted connection; set SMTP_SECURE to starttls or tls');
    }
    if (!(ext.get('AUTH') ?? '').split(' ').includes('PLAIN')) throw new SmtpError('the server does not offer AUTH PLAIN');
    await conv.command(`AUTH PLAIN ${plainCredentials(opts.user, opts.password ?? '')}`, [235], 'AUTH PLAIN');
  }
  return ext;
}

/**
 * One message to its recipients. Recipients the server refuses are reported in `rejected`; if it refuses
 * all of them, nothing is sent and this throws. `data` is the dot-stuffed DATA content (ending ".\r\n").
 */
export async function deliver(stream: SmtpStream, opts: DialogueOptions, envelope: Envelope, data: string): Promise<Delivery> {
  const conv = new SmtpConversation(stream, opts.timeoutMs);
  try {
    const ext = await openSession(conv, opts);
    const size = Number(ext.get('SIZE') ?? 0);
    const bytes = new TextEncoder().encode(data).length;
    if (size > 0 && bytes > size) throw new SmtpError(`the message (${bytes} bytes) is larger than the server accepts (${size})`);
    await conv.command(`MAIL FROM:<${envelope.from}>${ext.has('SIZE') ? ` SIZE=${bytes}` : ''}`, [250], 'MAIL FROM');
    const accepted: string[] = [];
    const rejected: Delivery['rejected'] = [];
    for (const to of envelope.to) {
      await conv.write(`RCPT TO:<${to}>\r\n`);
      const reply = await conv.read(`RCPT TO <${to}>`);
      if (reply.code === 250 || reply.code === 251) accepted.push(to);
      else rejected.push({ address: to, reason: replyText(reply) });
    }
    if (!accepted.length) {
      await conv.command('RSET', [250]).catch(() => undefined);
      throw new SmtpError(
        `the server refused every recipient: ${rejected.map((r) => `<${r.address}> ${r.reason}`).join('; ')}`,
        Number(rejected[0]?.reason.slice(0, 3)),
      );
    }
    await conv.command('DATA', [354]);
    await conv.write(data);
    const done = await conv.read('the end of DATA', opts.timeoutMs * 2);
    if (done.code !== 250) throw new SmtpError(`the server refused the message: ${replyText(done)}`, done.code);
    // The message is accepted; a failing QUIT changes nothing.
    await conv.command('QUIT', [221]).catch(() => undefined);
    return { accepted, rejected, response: replyText(done) };
  } finally {
    await conv.close();
  }
}
