/**
 * Mail for real, through the running stack: the API worker speaks SMTP (cloudflare:sockets) to the
 * stack's SMTP catcher, and the message is read back from the catcher's HTTP API. An invitation carries
 * a one-time link whose token is the one the database holds (as a hash); resending issues a new one;
 * a recipient the mail server refuses leaves the invitation in place and the answer says why.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb } from '@cairn/db';
import { apiFetch, getStack } from './harness.ts';
import { message, messagesTo } from './inbox.ts';

const ACTION = { 'content-type': 'application/json' };
const created: string[] = [];
let client: ReturnType<typeof createDb>;

const unique = (tag: string) => `mail-${tag}-${Math.random().toString(36).slice(2, 10)}`;
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

async function tokenHash(userId: string): Promise<string | null> {
  const rows = await client.sql<{ h: string | null }[]>`select invitation_token_hash as h from users where id = ${userId}`;
  return rows[0]?.h ?? null;
}

/** The invitation link of a caught message (text and HTML must agree), and its token. */
function linkOf(m: { text: string; html: string }): { link: string; token: string } {
  const found = /(https?:\/\/\S+\/app\/invitation\/((?:eu|us)_[A-Za-z0-9]{40,}))\s/.exec(m.text);
  expect(found, m.text).not.toBeNull();
  expect(m.html).toContain(`href="${found![1]}"`);
  return { link: found![1]!, token: found![2]! };
}

beforeAll(() => {
  client = createDb(getStack().database_url, { max: 1 });
});

afterAll(async () => {
  for (const id of created) await apiFetch(`/users/invite/${id}`, { method: 'DELETE' }).catch(() => undefined);
  await client?.sql.end({ timeout: 5 });
});

describe('invitation e-mails through the SMTP catcher', () => {
  it('sends the invitation with a one-time link whose token matches the stored hash', async () => {
    const stack = getStack();
    const email = `${unique('invite')}@example.test`;
    const res = await apiFetch('/users/invite', { body: { email, firstname: 'Mara' }, headers: ACTION });
    expect(res.status, res.text).toBe(201);
    created.push(res.body.data.id);
    expect(res.body.meta).toEqual({ mail: { sent: true } });

    const [summary, ...more] = await messagesTo(email);
    expect(more).toEqual([]);
    expect(summary).toMatchObject({ from: 'no-reply@cairn.local', to: [email] });
    const m = await message(summary!.id);
    expect(m.from).toBe('Cairn <no-reply@cairn.local>');
    expect(m.to).toBe(email);
    expect(m.subject).toMatch(/^You are invited to .+ on Cairn$/); // an API key invited: no person to name
    expect(m.text).toMatch(/^Hello Mara,/);
    expect(m.message_id).toMatch(/^<[0-9a-f]{32}@cairn\.local>$/);
    expect(Math.abs(Date.parse(m.date) - Date.now())).toBeLessThan(5 * 60_000);
    const { link, token } = linkOf(m);
    if (stack.docs) expect(link).toBe(`${stack.docs}app/invitation/${token}`);
    expect(await tokenHash(res.body.data.id)).toBe(sha256(token));
  });

  it('resends with a new token (the old one no longer matches) and says so in the Cairn-Mail header', async () => {
    const email = `${unique('resend')}@example.test`;
    const res = await apiFetch('/users/invite', { body: { email }, headers: ACTION });
    expect(res.status, res.text).toBe(201);
    const id = res.body.data.id as string;
    created.push(id);
    const first = linkOf(await message((await messagesTo(email))[0]!.id)).token;

    const again = await apiFetch(`/users/invite/${id}`, { method: 'POST' });
    expect(again.status, again.text).toBe(204);
    expect(again.headers.get('cairn-mail')).toBe('sent');
    const list = await messagesTo(email, 2);
    expect(list).toHaveLength(2);
    const second = linkOf(await message(list[0]!.id)).token; // newest first
    expect(second).not.toBe(first);
    expect(await tokenHash(id)).toBe(sha256(second));
  });

  it('keeps the invitation when the mail server refuses the address, and reports why in meta.mail', async () => {
    const email = `${unique('refused')}@reject.invalid`;
    const res = await apiFetch('/users/invite', { body: { email }, headers: ACTION });
    expect(res.status, res.text).toBe(201);
    created.push(res.body.data.id);
    expect(res.body.meta.mail.sent).toBe(false);
    expect(res.body.meta.mail.reason).toMatch(/550 5\.1\.1/);
    const user = await apiFetch(`/users/${res.body.data.id}`);
    expect(user.status).toBe(200);
    expect(user.body.data.attributes).toMatchObject({ email, status: 'invited' });
    // The API answered after the SMTP conversation ended: had anything been accepted, it would be here now.
    expect(await messagesTo(email, 0)).toEqual([]);

    const again = await apiFetch(`/users/invite/${res.body.data.id}`, { method: 'POST' });
    expect(again.status).toBe(204);
    expect(again.headers.get('cairn-mail')).toBe('not-sent');
    expect(again.headers.get('cairn-mail-reason')).toMatch(/550 5\.1\.1/);
  });
});
