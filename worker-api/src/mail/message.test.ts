/**
 * The message builder and its encodings (pure): headers, RFC 2047 words, quoted-printable, base64
 * lines, multipart structure and boundaries, Bcc only in the envelope, dot-stuffing, addresses.
 */
import { describe, expect, it } from 'vitest';
import { parseMailbox, parseMailboxes } from './address.ts';
import { base64Lines, encodedWords, foldHeader, headerText, quotedPrintable, rfc5322Date } from './encode.ts';
import { buildMessage, dotStuff, guessContentType, senderOf, type MailMessage } from './message.ts';
import { invitationLink, invitationMessage } from './invitation.ts';

const from = { name: 'Cairn', address: 'no-reply@cairn.local' };
const DATE = new Date(Date.UTC(2026, 0, 7, 9, 5, 3));

function counter() {
  let n = 0;
  return () => `b${++n}`;
}

function build(mail: Partial<MailMessage>) {
  return buildMessage({ to: 'ada@example.com', subject: 'Hi', ...mail }, { from, date: DATE, messageId: '<m1@cairn.local>', boundary: counter() });
}

const utf8 = new TextDecoder();
const b64decode = (s: string) => utf8.decode(Uint8Array.from(atob(s.replace(/\s+/g, '')), (c) => c.charCodeAt(0)));
const bytesOf = (b64: string) => Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
/** RFC 2047 B words → text (a run of adjacent words is one byte sequence). */
const decodeWords = (v: string) =>
  v.replace(/=\?UTF-8\?B\?[^?]*\?=(?:\s+=\?UTF-8\?B\?[^?]*\?=)*/g, (run) => {
    const bytes = run.split(/\s+/).flatMap((w) => [...bytesOf(w.slice(10, -2))]);
    return utf8.decode(new Uint8Array(bytes));
  });
const qpDecode = (s: string) => {
  const joined = s.replace(/=\r\n/g, '');
  const bytes: number[] = [];
  for (let i = 0; i < joined.length; i++) {
    if (joined[i] === '=') {
      bytes.push(parseInt(joined.slice(i + 1, i + 3), 16));
      i += 2;
    } else bytes.push(joined.charCodeAt(i));
  }
  return utf8.decode(new Uint8Array(bytes));
};
const headerBlock = (raw: string) => raw.slice(0, raw.indexOf('\r\n\r\n'));
const unfold = (h: string) => h.replace(/\r\n(?=[ \t])/g, '');
const header = (raw: string, name: string) =>
  unfold(headerBlock(raw))
    .split('\r\n')
    .find((l) => l.toLowerCase().startsWith(`${name.toLowerCase()}:`))
    ?.slice(name.length + 1)
    .trim();

describe('headers', () => {
  it('writes From, To, Cc, Subject, Date, Message-ID and MIME-Version; Bcc only in the envelope', () => {
    const m = build({ to: ['ada@example.com', 'Bob B <bob@example.com>'], cc: 'carol@example.com', bcc: 'dave@example.com, ADA@example.com', text: 'x' });
    expect(header(m.raw, 'From')).toBe('Cairn <no-reply@cairn.local>');
    expect(header(m.raw, 'To')).toBe('ada@example.com, Bob B <bob@example.com>');
    expect(header(m.raw, 'Cc')).toBe('carol@example.com');
    expect(header(m.raw, 'Subject')).toBe('Hi');
    expect(header(m.raw, 'Date')).toBe('Wed, 07 Jan 2026 09:05:03 +0000');
    expect(header(m.raw, 'Message-ID')).toBe('<m1@cairn.local>');
    expect(header(m.raw, 'MIME-Version')).toBe('1.0');
    expect(m.raw.toLowerCase()).not.toContain('bcc');
    expect(m.raw).not.toContain('dave@example.com');
    // Every recipient once (ADA@ is the same mailbox as ada@), Bcc included.
    expect(m.envelope).toEqual({ from: 'no-reply@cairn.local', to: ['ada@example.com', 'bob@example.com', 'carol@example.com', 'dave@example.com'] });
  });

  it('says "undisclosed-recipients" when there are only Bcc recipients, and refuses a message for nobody', () => {
    expect(header(build({ to: undefined, bcc: 'x@example.com' }).raw, 'To')).toBe('undisclosed-recipients:;');
    expect(() => build({ to: [] })).toThrow(/no recipient/);
  });

  it('encodes non-ASCII subjects and names as UTF-8 words of at most 75 characters', () => {
    const subject = 'Rapport hebdomadaire – ventes été 2026: 東京 と Zürich '.repeat(3).trim();
    const m = build({ subject, to: { name: 'Zoë Ünal', address: 'zoe@example.com' } });
    const raw = header(m.raw, 'Subject')!;
    expect(raw).toMatch(/^=\?UTF-8\?B\?/);
    for (const word of raw.split(' ')) expect(word.length).toBeLessThanOrEqual(75);
    expect(decodeWords(raw)).toBe(subject);
    expect(decodeWords(header(m.raw, 'To')!)).toBe('Zoë Ünal <zoe@example.com>');
    // Folded lines stay within 78 characters.
    for (const line of headerBlock(m.raw).split('\r\n')) expect(line.length).toBeLessThanOrEqual(78);
  });

  it('never splits a multi-byte character across encoded words', () => {
    const text = '€'.repeat(40); // 3 bytes each: 120 bytes, 12 per word of 36 bytes
    const words = encodedWords(text);
    expect(words).toHaveLength(4);
    for (const w of words) expect(b64decode(w.slice(10, -2))).toMatch(/^€+$/);
  });

  it('folds a long ASCII subject at spaces without changing it, and encodes one that looks like an encoded word', () => {
    const subject = Array.from({ length: 30 }, (_, i) => `word${i}`).join(' ');
    const folded = foldHeader('Subject', headerText(subject));
    expect(folded.split('\r\n').length).toBeGreaterThan(1);
    for (const line of folded.split('\r\n')) expect(line.length).toBeLessThanOrEqual(76);
    expect(unfold(folded)).toBe(`Subject: ${subject}`);
    expect(headerText('=?UTF-8?B?eA==?= literally')[0]).toMatch(/^=\?UTF-8\?B\?/);
  });

  it('turns line breaks in a subject into spaces (no header injection)', () => {
    const m = build({ subject: 'Hello\r\nBcc: victim@example.com' });
    expect(header(m.raw, 'Subject')).toBe('Hello Bcc: victim@example.com');
    expect(
      headerBlock(m.raw)
        .split('\r\n')
        .some((l) => l.startsWith('Bcc:')),
    ).toBe(false);
  });

  it('quotes display names with specials and escapes quotes', () => {
    const m = build({ to: { name: 'Smith, John "JJ"', address: 'john@example.com' } });
    expect(header(m.raw, 'To')).toBe('"Smith, John \\"JJ\\"" <john@example.com>');
  });

  it('formats dates per RFC 5322 in UTC', () => {
    expect(rfc5322Date(new Date(Date.UTC(2024, 1, 29, 23, 59, 59)))).toBe('Thu, 29 Feb 2024 23:59:59 +0000');
  });
});

describe('addresses', () => {
  it('parses "Name <addr>", quoted names, lists with commas in quotes, and rejects what could break a header or command', () => {
    expect(parseMailbox('Cairn <no-reply@cairn.local>')).toEqual({ name: 'Cairn', address: 'no-reply@cairn.local' });
    expect(parseMailboxes('"Doe, Jane" <jane@example.com>, bob@example.com ,')).toEqual([
      { name: 'Doe, Jane', address: 'jane@example.com' },
      { address: 'bob@example.com' },
    ]);
    for (const bad of [
      'no-at-sign',
      'a b@example.com',
      'a@example.com\r\nRCPT TO:<x@y.z>',
      'a@exa mple.com',
      '<a@b.c>>',
      'a..b@example.com',
      'jürgen@example.com',
    ]) {
      expect(() => parseMailbox(bad), bad).toThrow(/not an e-mail address/);
    }
    expect(() => build({ to: 'x@example.com>\r\nDATA' })).toThrow();
  });

  it('takes MAIL_FROM or falls back to Cairn <no-reply@cairn.local>', () => {
    expect(senderOf(undefined)).toEqual({ name: 'Cairn', address: 'no-reply@cairn.local' });
    expect(senderOf('Reports <reports@acme.test>')).toEqual({ name: 'Reports', address: 'reports@acme.test' });
  });
});

describe('bodies', () => {
  it('sends ASCII text as 7bit, single part', () => {
    const m = build({ text: 'Hello\nworld' });
    expect(header(m.raw, 'Content-Type')).toBe('text/plain; charset=utf-8');
    expect(header(m.raw, 'Content-Transfer-Encoding')).toBe('7bit');
    expect(m.raw.endsWith('\r\n\r\nHello\r\nworld\r\n')).toBe(true);
  });

  it('sends non-ASCII text as quoted-printable, lines within 76 characters, and decodes back', () => {
    const text = `Grüße aus Köln — ${'naïve café '.repeat(12)}\nline two ends with a space \nthree=3`;
    const qp = quotedPrintable(text);
    for (const line of qp.split('\r\n')) expect(line.length).toBeLessThanOrEqual(76);
    expect(qp).toContain('=C3=BC'); // ü
    expect(qp).toContain('space=20'); // trailing space encoded
    expect(qp).toContain('three=3D3');
    expect(qpDecode(qp)).toBe(text.replace(/\n/g, '\r\n'));
    const m = build({ text });
    expect(header(m.raw, 'Content-Transfer-Encoding')).toBe('quoted-printable');
  });

  it('never splits an =XX triplet at a soft break', () => {
    const qp = quotedPrintable(`${'a'.repeat(73)}é`);
    expect(qp.split('\r\n')).toEqual([`${'a'.repeat(73)}=`, '=C3=A9']);
  });

  it('puts text and HTML in multipart/alternative, text first', () => {
    const m = build({ text: 'plain', html: '<p>rich</p>' });
    expect(header(m.raw, 'Content-Type')).toBe('multipart/alternative; boundary="b1"');
    const body = m.raw.slice(m.raw.indexOf('\r\n\r\n') + 4);
    const parts = body.split('--b1');
    expect(parts).toHaveLength(4); // preamble, text, html, "--" closing
    expect(parts[1]).toContain('Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 7bit\r\n\r\nplain\r\n');
    expect(parts[2]).toContain('Content-Type: text/html; charset=utf-8\r\nContent-Transfer-Encoding: 7bit\r\n\r\n<p>rich</p>\r\n');
    expect(parts[3]).toBe('--\r\n');
  });

  it('adds attachments as multipart/mixed in base64 lines of 76 characters, with RFC 2231 names when not ASCII', () => {
    const bytes = Uint8Array.from({ length: 1000 }, (_, i) => (i * 7) % 256);
    const m = build({
      text: 'see attached',
      html: '<p>see attached</p>',
      attachments: [
        { filename: 'orders.csv', content: 'id,total\n1,9.5\n' },
        { filename: 'Übersicht 2026.xlsx', content: bytes },
      ],
    });
    expect(header(m.raw, 'Content-Type')).toBe('multipart/mixed; boundary="b2"');
    const body = m.raw.slice(m.raw.indexOf('\r\n\r\n') + 4);
    const top = body.split('--b2');
    expect(top).toHaveLength(5); // preamble, alternative, csv, xlsx, closing
    expect(top[1]).toContain('Content-Type: multipart/alternative; boundary="b1"');
    const csv = top[2]!;
    expect(unfold(csv)).toContain('Content-Type: text/csv; name="orders.csv"');
    expect(unfold(csv)).toContain('Content-Disposition: attachment; filename="orders.csv"');
    expect(b64decode(csv.slice(csv.indexOf('\r\n\r\n') + 4))).toBe('id,total\n1,9.5\n');
    const xlsx = top[3]!;
    expect(unfold(xlsx)).toContain('Content-Type: application/vnd.openxmlformats-officedocument.spreadsheetml.sheet;');
    expect(unfold(xlsx)).toContain("filename*=UTF-8''%C3%9Cbersicht%202026.xlsx");
    const lines = xlsx
      .slice(xlsx.indexOf('\r\n\r\n') + 4)
      .replace(/\r\n$/, '')
      .split('\r\n');
    expect(lines.slice(0, -1).every((l) => l.length === 76)).toBe(true);
    expect(lines.at(-1)!.length).toBeLessThanOrEqual(76);
    const back = Uint8Array.from(atob(lines.join('')), (c) => c.charCodeAt(0));
    expect([...back]).toEqual([...bytes]);
  });

  it('puts inline images (Content-ID) in multipart/related with the HTML', () => {
    const m = build({
      text: 't',
      html: '<img src="cid:chart1">',
      attachments: [{ filename: 'chart.png', content: new Uint8Array([137, 80, 78, 71]), contentId: 'chart1' }],
    });
    expect(header(m.raw, 'Content-Type')).toBe('multipart/alternative; boundary="b2"');
    expect(m.raw).toContain('Content-Type: multipart/related; boundary="b1"; type="text/html"');
    expect(m.raw).toContain('Content-ID: <chart1>');
    expect(unfold(m.raw)).toContain('Content-Disposition: inline; filename="chart.png"');
  });

  it('picks a boundary that does not occur in the content', () => {
    const m = buildMessage(
      { to: 'a@example.com', subject: 's', text: 'a line\r\n--b1\r\nthat looks like a boundary', html: '<p>x</p>' },
      { from, date: DATE, boundary: () => 'b1' },
    );
    const boundary = /boundary="([^"]+)"/.exec(m.raw)![1]!;
    expect(boundary).not.toBe('b1');
    expect(m.raw.split(`--${boundary}`)).toHaveLength(4);
  });

  it('makes a random Message-ID at the sender domain and random boundaries by default', () => {
    const a = buildMessage({ to: 'a@example.com', subject: 's', text: 't', html: 'h' }, { from });
    const b = buildMessage({ to: 'a@example.com', subject: 's', text: 't', html: 'h' }, { from });
    expect(a.messageId).toMatch(/^<[0-9a-f]{32}@cairn\.local>$/);
    expect(a.messageId).not.toBe(b.messageId);
    expect(/boundary="([^"]+)"/.exec(a.raw)![1]).not.toBe(/boundary="([^"]+)"/.exec(b.raw)![1]);
  });

  it('guesses content types from extensions', () => {
    expect(guessContentType('a.PDF')).toBe('application/pdf');
    expect(guessContentType('noext')).toBe('application/octet-stream');
  });

  it('wraps base64 at 76 columns', () => {
    expect(base64Lines(new Uint8Array(57))).toHaveLength(76); // 57 bytes = exactly one line
    expect(
      base64Lines(new Uint8Array(58))
        .split('\r\n')
        .map((l) => l.length),
    ).toEqual([76, 4]);
  });
});

describe('dot-stuffing', () => {
  it('doubles a leading dot on every line and ends with CRLF . CRLF', () => {
    expect(dotStuff('.first\r\nmid.dle\r\n.\r\n..two\r\nlast')).toBe('..first\r\nmid.dle\r\n..\r\n...two\r\nlast\r\n.\r\n');
    expect(dotStuff('ends\r\n')).toBe('ends\r\n.\r\n');
  });

  it('keeps a message whose text line is a single dot intact through the builder', () => {
    const m = build({ text: 'before\n.\nafter' });
    expect(dotStuff(m.raw)).toContain('\r\nbefore\r\n..\r\nafter\r\n.\r\n');
  });
});

describe('invitation e-mail', () => {
  it('links to /app/invitation/{token} under APP_URL, escapes the HTML, names the inviter and the role', () => {
    expect(invitationLink('http://127.0.0.1:8780/', 'Tok3n')).toBe('http://127.0.0.1:8780/app/invitation/Tok3n');
    expect(invitationLink(undefined, 'x')).toBeNull();
    const msg = invitationMessage({
      to: 'new@example.com',
      firstname: 'Ana',
      inviter: 'Bob <Admin>',
      organization: 'Acme & Co',
      role: 'analyst',
      link: 'https://cairn.example/app/invitation/abc',
    });
    expect(msg.subject).toBe('Bob <Admin> invited you to Acme & Co on Cairn');
    expect(msg.text).toContain('Hello Ana,');
    expect(msg.text).toContain('as an analyst');
    expect(msg.text).toContain('\nhttps://cairn.example/app/invitation/abc\n');
    expect(msg.html).toContain('Bob &lt;Admin&gt; invited you to join Acme &amp; Co');
    expect(msg.html).toContain('href="https://cairn.example/app/invitation/abc"');
    const byKey = invitationMessage({ to: 'x@example.com', inviter: null, organization: 'Acme', role: 'viewer', link: 'l' });
    expect(byKey.subject).toBe('You are invited to Acme on Cairn');
    expect(byKey.text).toMatch(/^Hello,\n\nAn administrator invited you/);
  });
});
