/**
 * POST /dashboards/{id}/share with notify_new_users: the users who gain access are found by comparing
 * who can see the dashboard before and after, and each is sent a notice. The test pool has no mail
 * server, so every notice is reported as not sent with the reason (delivery through a real SMTP
 * server: e2e/share-mail.stack.test.ts); who counts as new is what is checked here.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { newId } from '@cairn/core';
import { userGroupMembers, userGroups, users } from '@cairn/db';
import { call, db, jsonApi, makeKey, makeOrg, makeUser, only } from '../../../test/fixtures.ts';
import { usersWhoSee } from './share.ts';
import { dashboardSharedMessage } from '../../mail/dashboard-shared.ts';

let org: string;
let key: string;
let viewer: { id: string; email: string; session: string };
let analyst: { id: string; email: string; session: string };
let grouped: { id: string; email: string; session: string };
let gone: { id: string; email: string; session: string };
let admin: { id: string; email: string; session: string };
let group: string;
let ownerAdmin: string;

beforeAll(async () => {
  const o = await makeOrg('share-notify');
  org = o.organization.id;
  key = await makeKey(org);
  viewer = await makeUser(org, 'viewer');
  analyst = await makeUser(org, 'analyst');
  grouped = await makeUser(org, 'viewer');
  gone = await makeUser(org, 'viewer');
  admin = await makeUser(org, 'admin');
  await db().update(users).set({ deactivated_at: new Date() }).where(eq(users.id, gone.id));
  group = newId('user_group');
  await db().insert(userGroups).values({ id: group, organization_id: org, name: 'Finance' });
  await db()
    .insert(userGroupMembers)
    .values([
      { organization_id: org, user_group_id: group, user_id: grouped.id },
      { organization_id: org, user_group_id: group, user_id: gone.id },
    ]);
  ownerAdmin = o.admin.id;
});

async function freshDashboard() {
  const made = await jsonApi('/dashboards', 'POST', { type: 'dashboards', attributes: { name: `Shared ${Math.random().toString(36).slice(2, 8)}` } }, key);
  expect(made.status).toBe(201);
  return made.json.data.id as string;
}
const share = (id: string, body: unknown, k = key) => call(`/dashboards/${id}/share`, { key: k, method: 'POST', body });
const notified = (res: { json: any }) => res.json.meta?.notify_new_users;
const ids = (res: { json: any }) => (notified(res).not_sent as { user_id: string }[]).map((n) => n.user_id).sort();

describe('notify_new_users', () => {
  it('counts exactly the users who gain access, share after share', async () => {
    const id = await freshDashboard();
    const analysts = await share(id, { share_mode: 'all_analysts', notify_new_users: true });
    expect(analysts.status).toBe(200);
    expect(notified(analysts)).toMatchObject({ new_users: 1, sent: 0 });
    expect(ids(analysts)).toEqual([analyst.id]);
    expect(notified(analysts).not_sent[0].reason).toMatch(/SMTP_HOST/);

    // all_users adds the active viewers; the analyst already saw it; the deactivated one never counts.
    const everyone = await share(id, { share_mode: 'all_users', notify_new_users: true });
    expect(ids(everyone)).toEqual([viewer.id, grouped.id].sort());

    // Narrowing gains nobody.
    const narrowed = await share(id, { share_mode: 'custom', user_group_ids: [group], notify_new_users: true });
    expect(notified(narrowed)).toEqual({ new_users: 0, sent: 0, not_sent: [] });

    // From private to a custom group: its active members only.
    await share(id, { share_mode: 'none' });
    const custom = await share(id, { share_mode: 'custom', user_group_ids: [group], notify_new_users: true });
    expect(ids(custom)).toEqual([grouped.id]);

    // A built-in group alias stands for its members by rule.
    await share(id, { share_mode: 'none' });
    const alias = await share(id, { share_mode: 'custom', user_group_ids: ['all_analysts'], notify_new_users: true });
    expect(ids(alias)).toEqual([analyst.id]);
  });

  it('without notify_new_users (or false) nothing is sent and the answer has no notice', async () => {
    const id = await freshDashboard();
    const quiet = await share(id, { share_mode: 'all_users' });
    expect(quiet.status).toBe(200);
    expect(quiet.json.meta?.notify_new_users).toBeUndefined();
    await share(id, { share_mode: 'none' });
    const off = await share(id, { share_mode: 'all_users', notify_new_users: false });
    expect(off.json.meta?.notify_new_users).toBeUndefined();
  });

  it('admins and the creator are never new; the visibility rule matches what users are shown', async () => {
    const made = await jsonApi('/dashboards', 'POST', { type: 'dashboards', attributes: { name: 'Mine' } }, { session: analyst.session });
    expect(made.status).toBe(201);
    const id = made.json.data.id as string;
    const before = (await usersWhoSee(db(), org, id)).map((u) => u.id).sort();
    expect(before).toEqual([analyst.id, admin.id, ownerAdmin].sort());
    const res = await share(id, { share_mode: 'all_users', notify_new_users: true });
    expect(ids(res)).toEqual([viewer.id, grouped.id].sort());
    // Each user counted as seeing it can open it; the deactivated one is out either way.
    for (const u of [viewer, grouped]) expect((await call(`/dashboards/${id}`, { session: u.session })).status).toBe(200);
  });

  it('refuses bad input and missing permissions before anything changes or is sent', async () => {
    const id = await freshDashboard();
    const bad = await share(id, { share_mode: 'all_users', notify_new_users: 'yes' });
    expect(bad.status).toBe(422);
    expect(bad.json.errors[0].source.pointer).toBe('/notify_new_users');
    const viewOnly = await makeKey(org, only('view_dashboards'));
    expect((await share(id, { share_mode: 'all_users', notify_new_users: true }, viewOnly)).status).toBe(403);
    const other = await makeKey((await makeOrg('share-notify-other')).organization.id);
    expect((await share(id, { share_mode: 'all_users', notify_new_users: true }, other)).status).toBe(404);
    const still = await call(`/dashboards/${id}`, { key });
    expect(still.json.data.attributes.share_mode).toBe('none');
  });
});

describe('the notice', () => {
  it('names who shared which dashboard, with the link in text and HTML, escaped', () => {
    const m = dashboardSharedMessage({
      to: 'a@example.test',
      firstname: 'Ada',
      sharer: 'Grace <Hopper>',
      dashboard: 'Sales & "Margins"',
      organization: 'Acme',
      link: 'https://app.example.test/app/dashboards/dsh_1',
    });
    expect(m.subject).toBe('Grace <Hopper> shared "Sales & "Margins"" with you');
    expect(m.text).toContain('Hello Ada,');
    expect(m.text).toContain('https://app.example.test/app/dashboards/dsh_1');
    expect(m.html).toContain('href="https://app.example.test/app/dashboards/dsh_1"');
    expect(m.html).toContain('Grace &lt;Hopper&gt; shared the dashboard &quot;Sales &amp; &quot;Margins&quot;&quot;');
    const noLink = dashboardSharedMessage({ to: 'a@example.test', sharer: null, dashboard: 'D', organization: 'Acme', link: null });
    expect(noLink.text).toContain('An administrator shared the dashboard "D"');
    expect(noLink.html).not.toContain('href=');
  });
});
