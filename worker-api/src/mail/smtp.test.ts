/**
 * The SMTP client dialogue (src/mail/smtp.ts) against a scripted peer in the same isolate: reply parsing,
 * the order of commands, reply-code checks, refused recipients, HELO fallback, AUTH rules and timeouts.
 * Talking to a real SMTP server over a socket is covered end to end (e2e/mail.stack.test.ts: the API
 * worker sends through the stack's SMTP catcher).
 */
import { describe, expect, it } from 'vitest';
import { deliver, takeReply, type DialogueOptions, type SmtpStream } from './smtp.ts';

/** Answers each command line the client sends with `answer(line)` (null = stay silent). */
function scriptedServer(answer: (line: string, state: { inData: boolean }) => string | null, greeting: string | null = '220 test ready') {
  const toClient = new TransformStream<Uint8Array, Uint8Array>();
  const out = toClient.writable.getWriter();
  const enc = new TextEncoder();
  const dec = new TextDecoder();
  const seen: string[] = [];
  let data = '';
  const state = { inData: false };
  let buffer = '';
  const send = (text: string | null) => {
    if (text !== null) void out.write(enc.encode(text.endsWith('\r\n') ? text : `${text}\r\n`));
  };
  const fromClient = new WritableStream<Uint8Array>({
    write(chunk) {
      buffer += dec.decode(chunk, { stream: true });
      let nl: number;
      while ((nl = buffer.indexOf('\r\n')) !== -1) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 2);
        if (state.inData) {
          data += `${line}\r\n`;
          if (line === '.') {
            state.inData = false;
            send(answer('.', state));
          }
          continue;
        }
        seen.push(line);
        send(answer(line, state));
      }
    },
  });
  send(greeting);
  const stream: SmtpStream = { readable: toClient.readable, writable: fromClient, close: async () => void out.close().catch(() => {}) };
  return { stream, seen, data: () => data };
}

/** A well-behaved server: EHLO with extensions, everything accepted; `overrides` change single answers. */
function happy(overrides: Record<string, string | null> = {}) {
  return scriptedServer((line, state) => {
    const verb = line.split(/[ :]/)[0]!.toUpperCase();
    for (const [prefix, reply] of Object.entries(overrides)) if (line.startsWith(prefix)) return reply;
    switch (verb) {
      case 'EHLO':
        return '250-test greets you\r\n250-SIZE 1000000\r\n250-AUTH LOGIN PLAIN\r\n250 8BITMIME';
      case 'DATA':
        state.inData = true;
        return '354 go ahead';
      case '.':
        return '250 2.0.0 queued as ABC';
      case 'QUIT':
        return '221 bye';
      default:
        return '250 ok';
    }
  });
}

const opts = (o: Partial<DialogueOptions> = {}): DialogueOptions => ({
  heloName: 'cairn.local',
  startTls: false,
  encrypted: false,
  loopback: true,
  timeoutMs: 2000,
  ...o,
});
const envelope = { from: 'no-reply@cairn.local', to: ['a@example.com', 'b@example.com'] };
const DATA = 'Subject: x\r\n\r\n..dot\r\n.\r\n';

describe('SMTP replies', () => {
  it('reads single and multi-line replies and leaves the rest in the buffer', () => {
    expect(takeReply('250 ok\r\n354 go')).toEqual({ reply: { code: 250, lines: ['ok'] }, rest: '354 go' });
    expect(takeReply('250-a\r\n250-SIZE 10\r\n250 END\r\n')!.reply).toEqual({ code: 250, lines: ['a', 'SIZE 10', 'END'] });
    expect(takeReply('250-a\r\n250 b')).toBeNull(); // last line not complete yet
    expect(takeReply('220\r\n')!.reply).toEqual({ code: 220, lines: [''] });
    expect(() => takeReply('hello there\r\n')).toThrow(/not an SMTP reply/);
  });
});

describe('SMTP dialogue', () => {
  it('says EHLO, MAIL FROM with SIZE, RCPT TO per recipient, DATA, then QUIT; the data arrives as given', async () => {
    const server = happy();
    const res = await deliver(server.stream, opts(), envelope, DATA);
    expect(server.seen).toEqual([
      'EHLO cairn.local',
      `MAIL FROM:<no-reply@cairn.local> SIZE=${new TextEncoder().encode(DATA).length}`,
      'RCPT TO:<a@example.com>',
      'RCPT TO:<b@example.com>',
      'DATA',
      'QUIT',
    ]);
    expect(server.data()).toBe(DATA);
    expect(res).toEqual({ accepted: envelope.to, rejected: [], response: '250 2.0.0 queued as ABC' });
  });

  it('reports a refused recipient and still sends to the others', async () => {
    const server = happy({ 'RCPT TO:<b@': '550 5.1.1 no such user' });
    const res = await deliver(server.stream, opts(), envelope, DATA);
    expect(res.accepted).toEqual(['a@example.com']);
    expect(res.rejected).toEqual([{ address: 'b@example.com', reason: '550 5.1.1 no such user' }]);
  });

  it('sends nothing when every recipient is refused', async () => {
    const server = happy({ 'RCPT TO:': '550 5.1.1 no such user' });
    await expect(deliver(server.stream, opts(), envelope, DATA)).rejects.toThrow(/refused every recipient: <a@example.com> 550 5.1.1 no such user/);
    expect(server.seen).not.toContain('DATA');
    expect(server.seen).toContain('RSET');
  });

  it('checks every reply code: a refused sender, a refused message, a server that does not greet', async () => {
    await expect(deliver(happy({ 'MAIL FROM': '553 5.7.1 sender not allowed' }).stream, opts(), envelope, DATA)).rejects.toMatchObject({
      message: expect.stringMatching(/refused MAIL FROM: 553 5.7.1 sender not allowed/),
      code: 553,
    });
    await expect(deliver(happy({ '.': '554 5.7.1 spam' }).stream, opts(), envelope, DATA)).rejects.toMatchObject({
      message: expect.stringMatching(/refused the message: 554 5.7.1 spam/),
      code: 554,
    });
    const busy = scriptedServer(() => null, '421 4.3.2 too busy');
    await expect(deliver(busy.stream, opts(), envelope, DATA)).rejects.toThrow(/did not greet: 421 4.3.2 too busy/);
  });

  it('falls back to HELO when EHLO is not understood', async () => {
    const server = happy({ EHLO: '502 5.5.2 what?' });
    await deliver(server.stream, opts(), envelope, DATA);
    expect(server.seen.slice(0, 3)).toEqual(['EHLO cairn.local', 'HELO cairn.local', 'MAIL FROM:<no-reply@cairn.local>']);
  });

  it('authenticates with AUTH PLAIN, but never sends a password in clear to another machine', async () => {
    const server = happy({ 'AUTH PLAIN': '235 2.7.0 ok' });
    await deliver(server.stream, opts({ user: 'mailer', password: 'pässword' }), envelope, DATA);
    const auth = server.seen.find((l) => l.startsWith('AUTH PLAIN '))!;
    const decoded = new TextDecoder().decode(Uint8Array.from(atob(auth.slice(11)), (c) => c.charCodeAt(0)));
    expect(decoded).toBe('\0mailer\0pässword');

    const remote = happy();
    await expect(deliver(remote.stream, opts({ user: 'mailer', password: 'x', loopback: false }), envelope, DATA)).rejects.toThrow(
      /refusing to send the SMTP password over an unencrypted connection/,
    );
    expect(remote.seen.some((l) => l.startsWith('AUTH'))).toBe(false);

    const wrong = happy({ 'AUTH PLAIN': '535 5.7.8 bad credentials' });
    await expect(deliver(wrong.stream, opts({ user: 'mailer', password: 'x' }), envelope, DATA)).rejects.toThrow(/refused AUTH PLAIN: 535/);
  });

  it('refuses STARTTLS when the server does not offer it', async () => {
    const server = happy();
    await expect(deliver(server.stream, opts({ startTls: true }), envelope, DATA)).rejects.toThrow(/does not offer STARTTLS/);
  });

  it('refuses a message larger than the SIZE the server announced', async () => {
    await expect(deliver(happy().stream, opts(), envelope, `${'x'.repeat(1_000_001)}\r\n.\r\n`)).rejects.toThrow(/larger than the server accepts/);
  });

  it('gives up when a reply does not come in time', async () => {
    const server = happy({ '.': null });
    const t0 = Date.now();
    await expect(deliver(server.stream, opts({ timeoutMs: 200 }), envelope, DATA)).rejects.toThrow(/no reply to the end of DATA within/);
    expect(Date.now() - t0).toBeLessThan(3000);
  });

  it('says so when the server hangs up', async () => {
    const server = scriptedServer(() => null);
    const res = deliver(server.stream, opts(), envelope, DATA);
    await server.stream.close();
    await expect(res).rejects.toThrow(/closed the connection/);
  });
});
