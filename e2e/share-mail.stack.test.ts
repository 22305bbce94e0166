/**
 * notify_new_users for real: `POST /dashboards/{id}/share` e-mails the users who gain access, through
 * the stack's SMTP catcher, read back from its inbox. Users who could already see the dashboard get
 * nothing; a recipient the mail server refuses is reported in meta.notify_new_users, and the share stays.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb } from '@cairn/db';
import { newId } from '@cairn/core';
import { apiFetch, getStack } from './harness.ts';
import { message, messagesTo } from './inbox.ts';

const ACTION = { 'content-type': 'application/json' };
let client: ReturnType<typeof createDb>;
const userIds: string[] = [];
const dashboards: string[] = [];
const tag = Math.random().toString(36).slice(2, 10);

/** An active user of the stack's organization, inserted as an accepted member would be. */
async function activeUser(role: 'viewer' | 'analyst', domain = 'example.test') {
  const id = newId('user');
  const email = `share-${role}-${tag}-${Math.random().toString(36).slice(2, 6)}@${domain}`;
  await client.sql`insert into users (id, organization_id, email, role, firstname, lastname)
    values (${id}, ${getStack().organization_id}, ${email}, ${role}, ${'Sam'}, ${role})`;
  userIds.push(id);
  return { id, email };
}

beforeAll(() => {
  client = createDb(getStack().database_url, { max: 1 });
});

afterAll(async () => {
  for (const id of dashboards) await apiFetch(`/dashboards/${id}`, { method: 'DELETE' }).catch(() => undefined);
  if (userIds.length) await client.sql`delete from users where id = any(${userIds})`.catch(() => undefined);
  await client?.sql.end({ timeout: 5 });
});

describe('share notices through the SMTP catcher', () => {
  it('mails exactly the users who gain access, with a link to the dashboard', async () => {
    const viewer = await activeUser('viewer');
    const analyst = await activeUser('analyst');
    const name = `Shared board ${tag}`;
    const made = await apiFetch('/dashboards', {
      body: { data: { type: 'dashboards', attributes: { name } } },
      headers: { 'content-type': 'application/vnd.api+json' },
    });
    expect(made.status, made.text).toBe(201);
    const id = made.body.data.id as string;
    dashboards.push(id);

    const analysts = await apiFetch(`/dashboards/${id}/share`, { body: { share_mode: 'all_analysts', notify_new_users: true }, headers: ACTION });
    expect(analysts.status, analysts.text).toBe(200);
    const first = analysts.body.meta.notify_new_users;
    // Analysts at reject.invalid made by the refusal test below (on a stack used before) are refused; no one else.
    expect(first.sent + first.not_sent.length, JSON.stringify(first)).toBe(first.new_users);
    expect(
      first.not_sent.filter((n: { reason: string }) => !n.reason.includes('@reject.invalid>')),
      JSON.stringify(first),
    ).toEqual([]);
    const [note, ...more] = await messagesTo(analyst.email);
    expect(more).toEqual([]);
    const m = await message(note!.id);
    expect(m.to).toBe(analyst.email);
    expect(m.subject).toBe(`Someone shared "${name}" with you`); // an API key shared: no person to name
    expect(m.text).toMatch(/^Hello Sam,/);
    const link = /(https?:\/\/\S+\/app\/dashboards\/\S+)\s/.exec(m.text)?.[1];
    expect(link, m.text).toMatch(new RegExp(`/app/dashboards/${id}$`));
    expect(m.html).toContain(`href="${link}"`);
    const stack = getStack();
    if (stack.app) expect(link).toBe(`${new URL(stack.app).origin}/app/dashboards/${id}`);
    expect(await messagesTo(viewer.email, 0)).toEqual([]);

    // Widening to all users reaches the viewer; the analyst, who already had access, gets nothing new.
    const everyone = await apiFetch(`/dashboards/${id}/share`, { body: { share_mode: 'all_users', notify_new_users: true }, headers: ACTION });
    expect(everyone.status, everyone.text).toBe(200);
    expect((await messagesTo(viewer.email)).length).toBe(1);
    expect((await messagesTo(analyst.email, 0)).length).toBe(1);

    // Without notify_new_users nobody is mailed.
    await apiFetch(`/dashboards/${id}/share`, { body: { share_mode: 'none' }, headers: ACTION });
    const quiet = await apiFetch(`/dashboards/${id}/share`, { body: { share_mode: 'all_users' }, headers: ACTION });
    expect(quiet.body.meta?.notify_new_users).toBeUndefined();
    await new Promise((r) => setTimeout(r, 500));
    expect((await messagesTo(viewer.email, 0)).length).toBe(1);
  });

  it('reports a refused recipient and keeps the share', async () => {
    const refused = await activeUser('analyst', 'reject.invalid');
    const made = await apiFetch('/dashboards', {
      body: { data: { type: 'dashboards', attributes: { name: `Refused ${tag}` } } },
      headers: { 'content-type': 'application/vnd.api+json' },
    });
    const id = made.body.data.id as string;
    dashboards.push(id);
    const res = await apiFetch(`/dashboards/${id}/share`, { body: { share_mode: 'all_analysts', notify_new_users: true }, headers: ACTION });
    expect(res.status, res.text).toBe(200);
    const notice = res.body.meta.notify_new_users;
    const mine = notice.not_sent.find((n: { user_id: string }) => n.user_id === refused.id);
    expect(mine.reason).toMatch(/550 5\.1\.1/);
    expect(res.body.data.attributes.share_mode).toBe('all_analysts');
    expect(await messagesTo(refused.email, 0)).toEqual([]);
  });
});
