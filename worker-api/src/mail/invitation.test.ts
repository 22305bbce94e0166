/**
 * Mail configuration and what callers learn when mail cannot go out: without SMTP_HOST (the test
 * config has none) the invitation is still recorded and the answer says the e-mail was not sent
 * (meta.mail on invite, Cairn-Mail headers on resend); a mail server that does not answer is a reason,
 * never a success. Delivery through a real SMTP server: e2e/mail.stack.test.ts.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { users } from '@cairn/db';
import { createMailer, mailConfig, mailMeta, NO_SMTP_REASON } from './mailer.ts';
import { call, db, makeKey, makeOrg } from '../../test/fixtures.ts';
import { expectJsonApiDocument } from '../../test/jsonapi-schema.ts';

let orgId: string;
let key: string;
const email = (tag: string) => `${tag}-${Math.random().toString(36).slice(2, 10)}@example.test`;

beforeAll(async () => {
  orgId = (await makeOrg('mail')).organization.id;
  key = await makeKey(orgId);
});

describe('mail configuration', () => {
  it('needs SMTP_HOST; picks the port from SMTP_SECURE; rejects unusable values', () => {
    expect(mailConfig({})).toEqual({ reason: NO_SMTP_REASON });
    expect(mailConfig({ SMTP_HOST: 'smtp.example.com' })).toMatchObject({
      config: { port: 25, secure: 'off', timeoutMs: 15_000, from: { name: 'Cairn', address: 'no-reply@cairn.local' } },
    });
    expect(mailConfig({ SMTP_HOST: 'h', SMTP_SECURE: 'STARTTLS' })).toMatchObject({ config: { port: 587, secure: 'starttls' } });
    expect(mailConfig({ SMTP_HOST: 'h', SMTP_SECURE: 'tls', SMTP_PORT: '2465', MAIL_FROM: 'Ops <ops@acme.test>' })).toMatchObject({
      config: { port: 2465, secure: 'tls', from: { name: 'Ops', address: 'ops@acme.test' } },
    });
    expect(mailConfig({ SMTP_HOST: 'h', SMTP_SECURE: 'ssl' })).toEqual({ reason: expect.stringMatching(/SMTP_SECURE must be off, starttls or tls/) });
    expect(mailConfig({ SMTP_HOST: 'h', SMTP_PORT: '99999' })).toEqual({ reason: expect.stringMatching(/SMTP_PORT must be a port/) });
    expect(mailConfig({ SMTP_HOST: 'h', MAIL_FROM: 'not an address' })).toEqual({ reason: expect.stringMatching(/MAIL_FROM is not usable/) });
  });

  it('answers sent: false with the reason when there is no mail server', async () => {
    const res = await createMailer({}).sendMail({ to: 'a@example.com', subject: 's', text: 't' });
    expect(res).toEqual({ sent: false, reason: NO_SMTP_REASON });
    expect(mailMeta(res)).toEqual({ sent: false, reason: NO_SMTP_REASON });
  });

  it('answers sent: false when the mail server does not accept the connection', async () => {
    // Nothing listens on port 9 (discard) of this machine.
    const res = await createMailer({ SMTP_HOST: '127.0.0.1', SMTP_PORT: '9', SMTP_TIMEOUT_MS: '3000' }).sendMail({
      to: 'a@example.com',
      subject: 's',
      text: 't',
    });
    expect(res.sent).toBe(false);
    expect(!res.sent && res.reason).toMatch(/127\.0\.0\.1:9/);
  });

  it('answers sent: false for a bad recipient before connecting anywhere', async () => {
    const res = await createMailer({ SMTP_HOST: '127.0.0.1', SMTP_PORT: '9' }).sendMail({ to: 'not-an-address', subject: 's', text: 't' });
    expect(res).toEqual({ sent: false, reason: expect.stringMatching(/"not-an-address" is not an e-mail address/) });
  });
});

describe('invitation e-mails without a mail server', () => {
  it('records the invitation and says in meta.mail that the e-mail was not sent', async () => {
    const address = email('invitee');
    const res = await call('/users/invite', { key, method: 'POST', body: { email: address } });
    expect(res.status).toBe(201);
    expectJsonApiDocument(res.json);
    expect(res.json.meta.mail).toEqual({ sent: false, reason: NO_SMTP_REASON });
    expect(res.json.data.attributes).toMatchObject({ email: address, status: 'invited' });
    const [row] = await db()
      .select()
      .from(users)
      .where(and(eq(users.id, res.json.data.id), eq(users.organization_id, orgId)));
    expect(row!.invitation_token_hash).toMatch(/^[0-9a-f]{64}$/);

    const resend = await call(`/users/invite/${res.json.data.id}`, { key, method: 'POST' });
    expect(resend.status).toBe(204);
    expect(resend.headers.get('cairn-mail')).toBe('not-sent');
    expect(resend.headers.get('cairn-mail-reason')).toBe(NO_SMTP_REASON);
    const [after] = await db().select().from(users).where(eq(users.id, res.json.data.id));
    expect(after!.invitation_token_hash).not.toBe(row!.invitation_token_hash);

    const revoke = await call(`/users/invite/${res.json.data.id}`, { key, method: 'DELETE' });
    expect(revoke.status).toBe(204);
    expect(revoke.headers.get('cairn-mail')).toBeNull();
  });
});
