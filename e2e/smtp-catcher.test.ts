/**
 * The dev stack's SMTP catcher (scripts/lib/smtp-catcher.ts), in this process on free ports: the SMTP
 * conversation over a real TCP socket (sequence rules, AUTH PLAIN, dot-stuffing, refusals, RSET), the
 * HTTP API (list, detail with decoded MIME, raw, delete), the bound on stored messages, and messages
 * made by the API worker's builder (worker-api/src/mail/message.ts) read back intact. Needs no stack.
 */
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSmtpCatcher, type RunningCatcher } from '../scripts/lib/smtp-catcher.ts';
import { buildMessage, dotStuff } from '../worker-api/src/mail/message.ts';

let catcher: RunningCatcher;
let inbox: string;

beforeAll(async () => {
  catcher = await startSmtpCatcher({ smtpPort: 0, httpPort: 0, limit: 5 });
  inbox = `http://127.0.0.1:${catcher.httpPort}`;
});
afterAll(async () => {
  await catcher?.close();
});
beforeEach(async () => {
  await fetch(`${inbox}/messages`, { method: 'DELETE' });
});

/** A line-oriented SMTP client: `send(line)` answers the server's complete (possibly multi-line) reply. */
async function smtp() {
  const socket: Socket = connect({ host: '127.0.0.1', port: catcher.smtpPort });
  let buffer = '';
  const waiters: (() => void)[] = [];
  socket.setEncoding('utf8');
  socket.on('data', (d: string) => {
    buffer += d;
    waiters.splice(0).forEach((w) => w());
  });
  const reply = async (): Promise<string> => {
    for (;;) {
      const m = /^(?:\d{3}-[^\n]*\n)*\d{3}(?: [^\n]*)?\r?\n/.exec(buffer);
      if (m) {
        buffer = buffer.slice(m[0].length);
        return m[0].trimEnd();
      }
      await new Promise<void>((resolve, reject) => {
        const t = setTimeout(() => reject(new Error(`no reply; buffer ${JSON.stringify(buffer)}`)), 3000);
        waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  };
  const send = async (line: string) => {
    socket.write(`${line}\r\n`);
    return reply();
  };
  const greeting = await reply();
  return { send, reply, raw: (text: string) => socket.write(text), greeting, close: () => socket.destroy() };
}

async function sendRaw(from: string, to: string[], data: string) {
  const c = await smtp();
  await c.send('EHLO test');
  expect(await c.send(`MAIL FROM:<${from}>`)).toMatch(/^250/);
  for (const t of to) expect(await c.send(`RCPT TO:<${t}>`)).toMatch(/^250/);
  expect(await c.send('DATA')).toMatch(/^354/);
  c.raw(data);
  const done = await c.reply();
  await c.send('QUIT');
  c.close();
  return done;
}

const getJson = async (path: string) => {
  const res = await fetch(`${inbox}${path}`);
  return { status: res.status, body: (await res.json()) as any };
};

describe('SMTP', () => {
  it('greets, lists its extensions on EHLO, and enforces the command order', async () => {
    const c = await smtp();
    expect(c.greeting).toMatch(/^220 /);
    expect(await c.send('MAIL FROM:<a@b.c>')).toMatch(/^503 /);
    const ehlo = await c.send('EHLO client.test');
    expect(ehlo.split('\r\n').map((l) => l.slice(4))).toEqual(expect.arrayContaining(['AUTH PLAIN', '8BITMIME']));
    expect(ehlo).toMatch(/^250-.*\r\n(250-.*\r\n)*250 /);
    expect(await c.send('RCPT TO:<x@y.z>')).toMatch(/^503 /);
    expect(await c.send('DATA')).toMatch(/^503 /);
    expect(await c.send('MAIL FROM:<a@b.c>')).toMatch(/^250 /);
    expect(await c.send('MAIL FROM:<a@b.c>')).toMatch(/^503 /);
    expect(await c.send('DATA')).toMatch(/^503 /);
    expect(await c.send('RCPT TO:bad')).toMatch(/^501 /);
    expect(await c.send('NOOP')).toMatch(/^250 /);
    expect(await c.send('RSET')).toMatch(/^250 /);
    expect(await c.send('RCPT TO:<x@y.z>')).toMatch(/^503 /); // RSET forgot the sender
    expect(await c.send('WHAT')).toMatch(/^500 /);
    expect(await c.send('HELO')).toMatch(/^501 /);
    expect(await c.send('QUIT')).toMatch(/^221 /);
    c.close();
  });

  it('accepts AUTH PLAIN (inline and after 334), one identity per session, and records the user', async () => {
    const c = await smtp();
    await c.send('EHLO t');
    expect(await c.send('AUTH LOGIN')).toMatch(/^504 /);
    expect(await c.send(`AUTH PLAIN ${Buffer.from('\0mailer\0secret').toString('base64')}`)).toMatch(/^235 /);
    // One identity per session (RFC 4954): a second AUTH is refused, the first stands.
    expect(await c.send('AUTH PLAIN')).toMatch(/^503 /);
    c.close();
    const c2 = await smtp();
    await c2.send('EHLO t');
    await recordsUser(c2, 'mailer');
    const c3 = await smtp();
    await c3.send('EHLO t');
    expect(await c3.send('AUTH PLAIN')).toMatch(/^334/);
    expect(await c3.send(Buffer.from('\0other\0pw').toString('base64'))).toMatch(/^235 /);
    await recordsUser(c3, 'other');
  });

  async function recordsUser(c: Awaited<ReturnType<typeof smtp>>, user: string) {
    if (user === 'mailer') expect(await c.send(`AUTH PLAIN ${Buffer.from('\0mailer\0secret').toString('base64')}`)).toMatch(/^235 /);
    await c.send('MAIL FROM:<a@b.c>');
    await c.send('RCPT TO:<x@y.z>');
    await c.send('DATA');
    c.raw('Subject: authed\r\n\r\nhi\r\n.\r\n');
    expect(await c.reply()).toMatch(/^250 /);
    c.close();
    const [m] = (await getJson('/messages')).body;
    expect((await getJson(`/messages/${m.id}`)).body.auth_user).toBe(user);
  }

  it('undoes dot-stuffing and keeps the envelope (Bcc recipients included)', async () => {
    const data = 'From: a@b.c\r\nTo: x@y.z\r\nSubject: dots\r\n\r\n..leading dot\r\n..\r\nend\r\n.\r\n';
    expect(await sendRaw('a@b.c', ['x@y.z', 'hidden@y.z'], data)).toMatch(/^250 Ok: queued as /);
    const list = (await getJson('/messages')).body;
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ from: 'a@b.c', to: ['x@y.z', 'hidden@y.z'], subject: 'dots' });
    const raw = await (await fetch(`${inbox}/messages/${list[0].id}/raw`)).text();
    expect(raw).toBe('From: a@b.c\r\nTo: x@y.z\r\nSubject: dots\r\n\r\n.leading dot\r\n.\r\nend\r\n');
    expect(list[0].size).toBe(Buffer.byteLength(raw));
    // mailparser gives text bodies with LF line ends.
    expect((await getJson(`/messages/${list[0].id}`)).body.text).toBe('.leading dot\n.\nend\n');
  });

  it('refuses recipients at reject.invalid with 550 and keeps the others', async () => {
    const c = await smtp();
    await c.send('EHLO t');
    await c.send('MAIL FROM:<a@b.c>');
    expect(await c.send('RCPT TO:<nobody@reject.invalid>')).toMatch(/^550 5\.1\.1 .*reject\.invalid/);
    expect(await c.send('RCPT TO:<ok@y.z>')).toMatch(/^250 /);
    c.close();
  });

  it('keeps only the last `limit` messages, newest first', async () => {
    for (let i = 1; i <= 7; i++) await sendRaw('a@b.c', ['x@y.z'], `Subject: n${i}\r\n\r\nbody\r\n.\r\n`);
    const list = (await getJson('/messages')).body;
    expect(list.map((m: any) => m.subject)).toEqual(['n7', 'n6', 'n5', 'n4', 'n3']);
  });
});

describe('HTTP API', () => {
  it('filters by recipient, answers 404 for unknown ids, deletes one or all, serves the inbox page', async () => {
    await sendRaw('a@b.c', ['one@y.z'], 'Subject: 1\r\n\r\nx\r\n.\r\n');
    await sendRaw('a@b.c', ['two@y.z'], 'Subject: 2\r\n\r\nx\r\n.\r\n');
    const two = (await getJson('/messages?to=TWO@y.z')).body;
    expect(two.map((m: any) => m.subject)).toEqual(['2']);
    expect((await getJson('/messages/nope')).status).toBe(404);
    expect((await getJson('/elsewhere')).status).toBe(404);
    expect((await fetch(`${inbox}/messages/${two[0].id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await getJson('/messages')).body.map((m: any) => m.subject)).toEqual(['1']);
    expect((await fetch(`${inbox}/messages`, { method: 'DELETE' })).status).toBe(204);
    expect((await getJson('/messages')).body).toEqual([]);
    const page = await fetch(`${inbox}/`);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await page.text()).toContain('Cairn mail catcher');
  });

  it('decodes what the API worker builds: encoded headers, quoted-printable, alternative bodies, base64 attachments', async () => {
    const xlsx = Uint8Array.from({ length: 5000 }, (_, i) => (i * 31) % 256);
    const built = buildMessage(
      {
        to: [{ name: 'Zoë Ünal', address: 'zoe@example.test' }],
        cc: 'carol@example.test',
        bcc: 'audit@example.test',
        subject: 'Ventes été 2026 — 東京 ✓',
        text: 'Grüße,\n.\nthe report is attached.',
        html: '<p>Grüße — <b>the report</b></p>',
        attachments: [
          { filename: 'orders.csv', content: 'id,total\n1,9.50\n' },
          { filename: 'Übersicht.xlsx', content: xlsx },
          { filename: 'chart.png', content: new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10]), contentId: 'chart' },
        ],
      },
      { from: { name: 'Cairn', address: 'no-reply@cairn.local' } },
    );
    expect(await sendRaw(built.envelope.from, built.envelope.to, dotStuff(built.raw))).toMatch(/^250 /);
    const [summary] = (await getJson('/messages')).body;
    expect(summary.to).toEqual(['zoe@example.test', 'carol@example.test', 'audit@example.test']);
    const m = (await getJson(`/messages/${summary.id}`)).body;
    expect(m.subject).toBe('Ventes été 2026 — 東京 ✓');
    expect(m.to).toBe('Zoë Ünal <zoe@example.test>');
    expect(m.cc).toBe('carol@example.test');
    expect(m.headers.some((h: any) => h.name.toLowerCase() === 'bcc')).toBe(false);
    expect(m.message_id).toBe(built.messageId);
    expect(m.text).toBe('Grüße,\n.\nthe report is attached.');
    expect(m.html).toBe('<p>Grüße — <b>the report</b></p>');
    expect(m.attachments).toEqual([
      { filename: 'chart.png', content_type: 'image/png', disposition: 'inline', content_id: 'chart', size: 8 },
      { filename: 'orders.csv', content_type: 'text/csv', disposition: 'attachment', content_id: null, size: 16 },
      {
        filename: 'Übersicht.xlsx',
        content_type: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
        disposition: 'attachment',
        content_id: null,
        size: 5000,
      },
    ]);
  });
});
