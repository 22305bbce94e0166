/**
 * Administration in Chromium: an admin invites someone and the invitation page (reached through the
 * e-mail the stack's SMTP catcher caught) activates them; an API key is created and its secret shown
 * once; organization settings; a viewer is refused every administration page; sign-in throttling and
 * cross-site form posts are refused.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { createDb } from '@cairn/db';
import { apiFetch, getStack } from './harness.ts';
import { insertTestUser, launchChromium, signInAt } from './browser-kit.ts';

let browser: Browser;
let origin: string;
let adminState: Awaited<ReturnType<BrowserContext['storageState']>>;
let db: ReturnType<typeof createDb>;
const cleanup: string[] = [];

const unique = (tag: string) => `${tag}-${Math.random().toString(36).slice(2, 10)}`;

async function newPage(state?: typeof adminState): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
  const context = await browser.newContext({ viewport: { width: 1400, height: 1000 }, ...(state ? { storageState: state } : {}) });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  return { context, page, errors };
}

/** Signs in through the sign-in page (browser-kit: a first sign-in may meet a cold app worker). */
const signIn = (page: Page, email: string, password: string) => signInAt(page, origin, email, password);

/** A user who can sign in right away (written to the database as an accepted invitation would leave it). */
async function makeUser(role: 'viewer' | 'analyst'): Promise<{ email: string; password: string; id: string }> {
  const password = 'viewer passphrase 42';
  const user = await insertTestUser(db.sql, getStack().organization_id, { tag: role, password, firstname: 'Vera', lastname: 'Viewer', role });
  cleanup.push(user.id);
  return { ...user, password };
}

/** The invitation link of the newest message to `address` in the stack's SMTP catcher. */
async function invitationLink(address: string): Promise<string> {
  const inbox = getStack().mail?.inbox;
  if (!inbox) throw new Error('The stack runs without the SMTP catcher (stack.mail.inbox).');
  const deadline = Date.now() + 15_000;
  for (;;) {
    const list = (await (await fetch(`${inbox}/messages?to=${encodeURIComponent(address)}`)).json()) as { id: string }[];
    if (list.length) {
      const m = (await (await fetch(`${inbox}/messages/${list[0]!.id}`)).json()) as { text: string };
      const found = /(https?:\/\/\S+\/app\/invitation\/(?:(?:eu|us)_)?[A-Za-z0-9]+)/.exec(m.text);
      if (!found) throw new Error(`no invitation link in: ${m.text}`);
      return found[1]!;
    }
    if (Date.now() > deadline) throw new Error(`no message to ${address}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

beforeAll(async () => {
  const stack = getStack();
  if (!stack.app) throw new Error('The stack runs without the web app.');
  origin = new URL(stack.app).origin;
  db = createDb(stack.database_url, { max: 1 });
  browser = await launchChromium();
  const { context, page } = await newPage();
  await signIn(page, stack.admin.email, stack.admin.password);
  adminState = await context.storageState();
  await context.close();
});

afterAll(async () => {
  await browser?.close();
  for (const id of cleanup) await db.sql`delete from users where id = ${id}`.catch(() => undefined);
  await db?.sql.end({ timeout: 5 });
});

describe('administration', () => {
  it('an admin invites a user, who accepts through the e-mailed link and lands signed in', async () => {
    const { context, page, errors } = await newPage(adminState);
    const email = `${unique('invitee')}@example.test`;
    try {
      await page.goto(`${origin}/app/administration/users`);
      await page.fill('[data-testid="invite-email"]', email);
      await page.selectOption('[data-testid="invite-role"]', 'analyst');
      await page.click('[data-testid="invite-submit"]');
      await expect(page.locator('[data-testid="invite-result"]').textContent()).resolves.toContain(email);
      const row = page.locator(`[data-testid="user-${email}"]`);
      await row.waitFor();
      expect(await row.getAttribute('data-status')).toBe('invited');
      const id = (await db.sql<{ id: string }[]>`select id from users where lower(email) = ${email}`)[0]!.id;
      cleanup.push(id);

      const link = await invitationLink(email);
      expect(new URL(link).pathname).toMatch(/^\/app\/invitation\/(eu|us)_[A-Za-z0-9]{40,}$/);
      const invitee = await newPage();
      try {
        await invitee.page.goto(`${origin}${new URL(link).pathname}`);
        expect(await invitee.page.inputValue('[data-testid="invitation-email"]')).toBe(email);
        await invitee.page.fill('input[name="firstname"]', 'Iris');
        await invitee.page.fill('input[name="lastname"]', 'Invitee');
        // Mismatched passwords are caught before the API is asked; a short one by the API's rule.
        await invitee.page.fill('input[name="password"]', 'a fine passphrase');
        await invitee.page.fill('input[name="password_again"]', 'another passphrase');
        await invitee.page.click('button[type="submit"]');
        await expect(invitee.page.locator('[data-testid="invitation-error"]').textContent()).resolves.toContain('not the same');
        await invitee.page.fill('input[name="password"]', 'a fine passphrase');
        await invitee.page.fill('input[name="password_again"]', 'a fine passphrase');
        await invitee.page.click('button[type="submit"]');
        await invitee.page.waitForURL(`${origin}/app/`);
        expect(await invitee.page.locator('.user-chip__name').textContent()).toBe('Iris Invitee');
        const cookie = (await invitee.context.cookies(origin)).find((c) => c.name === 'cairn_session');
        expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax' });
        // The link works once.
        await invitee.page.goto(`${origin}${new URL(link).pathname}`);
        expect(await invitee.page.locator('[data-testid="invitation-problem"]').count()).toBe(1);
      } finally {
        await invitee.context.close();
      }
      await page.reload();
      expect(await page.locator(`[data-testid="user-${email}"]`).getAttribute('data-status')).toBe('active');
      expect(await page.locator(`[data-testid="user-${email}"] [data-testid="user-role"]`).textContent()).toBe('analyst');
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('an admin creates an API key and sees its secret exactly once; disabling and deleting take effect at once', async () => {
    const { context, page, errors } = await newPage(adminState);
    const name = unique('etl');
    try {
      await page.goto(`${origin}/app/administration/api-keys`);
      await page.fill('[data-testid="key-name"]', name);
      await page.check('[data-testid="perm-view_dashboards"]');
      await page.click('[data-testid="key-create"]');
      const secretEl = page.locator('[data-testid="new-key-secret"]');
      await secretEl.waitFor();
      const secret = (await secretEl.textContent())!.trim();
      expect(secret).toMatch(/^cairn_eu_[0-9A-Za-z]{12}_[0-9A-Za-z]{40}$/);
      expect(await page.locator('[data-testid="copy-key"]').count()).toBe(1);
      const row = page.locator(`[data-testid="key-${name}"]`);
      await row.waitFor();
      expect(await row.textContent()).toContain('View Dashboards');

      // The key works with the permission it was given, and only that one.
      expect((await apiFetch('/dashboards', { key: secret })).status).toBe(200);
      expect((await apiFetch('/users', { key: secret })).status).toBe(403);

      // Never shown again: not after a reload, not in the page's data.
      await page.reload();
      expect(await page.content()).not.toContain(secret);
      expect(await page.locator('[data-testid="new-key"]').count()).toBe(0);

      await page.locator(`[data-testid="key-${name}"] button`, { hasText: 'Disable' }).click();
      await page.locator(`[data-testid="key-${name}"] [data-testid="key-status"]`, { hasText: 'disabled' }).waitFor();
      const off = await apiFetch('/dashboards', { key: secret });
      expect(off.status).toBe(401);
      expect(off.body.errors[0].code).toBe('api_key_disabled');

      await page.locator(`[data-testid="key-${name}"] button`, { hasText: 'Delete' }).click();
      await page.locator(`[data-testid="key-${name}"] button`, { hasText: 'Delete key' }).click();
      await page.locator(`[data-testid="key-${name}"]`).waitFor({ state: 'detached' });
      expect((await apiFetch('/dashboards', { key: secret })).status).toBe(401);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('deactivates and reactivates users, showing the seat rule’s refusal next to the row', async () => {
    const analyst = await makeUser('analyst');
    const orgId = getStack().organization_id;
    const { seats } = (await db.sql<{ seats: number }[]>`select plan_analyst_seats as seats from organizations where id = ${orgId}`)[0]!;
    const { context, page } = await newPage(adminState);
    const row = () => page.locator(`[data-testid="user-${analyst.email}"]`);
    try {
      await page.goto(`${origin}/app/administration/users`);
      await row().locator('button', { hasText: 'Deactivate' }).click();
      await row().locator('button', { hasText: 'Deactivate' }).last().click();
      await page.waitForFunction(
        (email) => document.querySelector(`[data-testid="user-${email}"]`)?.getAttribute('data-status') === 'deactivated',
        analyst.email,
      );
      // Deactivated users cannot sign in.
      const signIn = await fetch(`${getStack().regions.eu.api}/auth/sessions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: analyst.email, password: analyst.password }),
      });
      expect(signIn.status).toBe(401);

      // Every seat taken: reactivating as analyst is refused with the API's message, as viewer it works.
      const { used } = (
        await db.sql<{ used: number }[]>`select count(*)::int as used from users where organization_id = ${orgId}
        and role in ('analyst', 'admin') and deactivated_at is null`
      )[0]!;
      await db.sql`update organizations set plan_analyst_seats = ${used} where id = ${orgId}`;
      await row().locator('select').selectOption('analyst');
      await row().locator('button', { hasText: 'Reactivate' }).click();
      await expect(row().locator('.row-error').textContent()).resolves.toContain('analyst seats');
      expect(await row().getAttribute('data-status')).toBe('deactivated');
      await row().locator('select').selectOption('viewer');
      await row().locator('button', { hasText: 'Reactivate' }).click();
      await page.waitForFunction((email) => document.querySelector(`[data-testid="user-${email}"]`)?.getAttribute('data-status') === 'active', analyst.email);
      expect(await row().locator('[data-testid="user-role"]').textContent()).toBe('viewer');
      // And making the viewer an analyst again needs a seat too.
      await row().locator('select').selectOption('analyst');
      await row().locator('button', { hasText: 'Change role' }).click();
      await expect(row().locator('.row-error').textContent()).resolves.toContain('analyst seats');
    } finally {
      await db.sql`update organizations set plan_analyst_seats = ${seats} where id = ${orgId}`;
      await context.close();
    }
  });

  it('shows organization settings with seats and the legal section, and saves the time zone', async () => {
    const { context, page } = await newPage(adminState);
    try {
      // No limits unless the operator sets one: the counts alone, then "used of limit" once set.
      const orgId = getStack().organization_id;
      const limits = (
        await db.sql<
          { seats: number | null; ds: number | null }[]
        >`select plan_analyst_seats as seats, plan_datasources as ds from organizations where id = ${orgId}`
      )[0]!;
      await db.sql`update organizations set plan_analyst_seats = null, plan_datasources = null where id = ${orgId}`;
      await page.goto(`${origin}/app/administration/organization`);
      expect(await page.locator('[data-testid="seats"]').textContent()).toMatch(/^Analysts and admins\d+$/);
      expect(await page.locator('[data-testid="datasources"]').textContent()).toMatch(/^Datasources\d+$/);
      await db.sql`update organizations set plan_analyst_seats = 40, plan_datasources = 30 where id = ${orgId}`;
      await page.reload();
      expect(await page.locator('[data-testid="seats"]').textContent()).toMatch(/\d+ of 40/);
      expect(await page.locator('[data-testid="datasources"]').textContent()).toMatch(/\d+ of 30/);
      await db.sql`update organizations set plan_analyst_seats = ${limits.seats}, plan_datasources = ${limits.ds} where id = ${orgId}`;
      const legal = await page.locator('section.legal').textContent();
      expect(legal).toContain('24 hours');
      expect(legal).toContain('30 days');
      expect(legal).toContain('Sub-processors');
      // The time zone is picked from the searchable list (no free text, so no unknown zone to refuse).
      const current = () => page.locator('[data-testid="time_zone-value"]').textContent();
      const pick = async (zone: string) => {
        await page.fill('[data-testid="time_zone-search"]', zone.split('/').pop()!.replace(/_/g, ' '));
        await page.click(`[data-testid="zone-choice-${zone}"]`);
        expect(await current()).toBe(zone);
      };
      const before = (await current())!;
      await page.fill('[data-testid="time_zone-search"]', 'Nowhere Special');
      await expect(page.getByText('No time zone matches').textContent()).resolves.toContain('Nowhere Special');
      await pick('Europe/Berlin');
      await page.click('button[type="submit"]:has-text("Save")');
      await page.locator('[data-testid="organization-saved"]').waitFor();
      await page.reload();
      expect(await current()).toBe('Europe/Berlin');
      if (before !== 'Europe/Berlin') {
        await pick(before);
        await page.click('button[type="submit"]:has-text("Save")');
        await page.locator('[data-testid="organization-saved"]').waitFor();
      }
    } finally {
      await context.close();
    }
  });

  it('a viewer cannot reach administration: the API’s 403 is shown as a clear page', async () => {
    const viewer = await makeUser('viewer');
    const { context, page } = await newPage();
    try {
      await signIn(page, viewer.email, viewer.password);
      expect(await page.locator('nav[aria-label="App"]').textContent()).not.toContain('Organization');
      for (const path of ['organization', 'users', 'groups', 'api-keys']) {
        const res = await page.goto(`${origin}/app/administration/${path}`);
        expect(res?.status(), path).toBe(403);
        expect(await page.locator('main.error-page h1').textContent(), path).toContain('access');
        expect(await page.locator('.admin-nav').count(), path).toBe(0);
      }
      // Nor can it change anything by posting: the API refuses, the page says why.
      const post = await page.request.post(`${origin}/app/administration/api-keys`, {
        form: { intent: 'create', name: 'sneaky', perm_view_dashboards: 'on' },
        headers: { Origin: origin },
      });
      expect(post.status()).toBe(422);
      expect(await post.text()).toContain('admin');
    } finally {
      await context.close();
    }
  });

  it('refuses cross-site form posts before any action runs', async () => {
    const { context } = await newPage(adminState);
    try {
      const res = await context.request.post(`${origin}/app/administration/users`, {
        form: { intent: 'invite', email: 'csrf@example.test' },
        headers: { Origin: 'https://evil.example' },
      });
      expect(res.status()).toBe(403);
      expect(await res.text()).toContain('Request refused');
      // A browser that sends no Origin but says the request is cross-site (fetch from Node: Playwright's
      // request client writes its own browser headers).
      const cookie = (await context.cookies(origin)).find((c) => c.name === 'cairn_session')!;
      const post = () =>
        fetch(`${origin}/app/logout`, {
          method: 'POST',
          redirect: 'manual',
          headers: { Cookie: `${cookie.name}=${cookie.value}`, 'Sec-Fetch-Site': 'cross-site' },
        });
      let site = await post();
      // wrangler dev answers a POST that meets a restarting runtime with its own 503 ("Your worker restarted
      // mid-request"; it retries only GET and HEAD): that is the local proxy, not Cairn, so ask once more.
      if (site.status === 503 && (await site.clone().text()).includes('restarted mid-request')) site = await post();
      expect(site.status, await site.clone().text()).toBe(403);
      // The session was not ended.
      const still = await fetch(`${origin}/app/`, { redirect: 'manual', headers: { Cookie: `${cookie.name}=${cookie.value}` } });
      expect(still.status).toBe(200);
      const rows = await db.sql`select 1 from users where email = 'csrf@example.test'`;
      expect(rows.length).toBe(0);
    } finally {
      await context.close();
    }
  });

  it('says so when sign-in is throttled', async () => {
    const { context, page } = await newPage();
    const email = `${unique('nobody')}@example.test`;
    try {
      // Ten wrong attempts are allowed per e-mail address, then one every 30 s.
      for (let i = 0; i < 10; i++) {
        const r = await context.request.post(`${origin}/app/login`, { form: { email, password: `wrong ${i}`, next: '/app/' }, headers: { Origin: origin } });
        expect(r.status()).toBe(401);
      }
      await page.goto(`${origin}/app/login`);
      await page.fill('input[name="email"]', email);
      await page.fill('input[name="password"]', 'still wrong');
      await page.click('button[type="submit"]');
      const error = page.locator('[data-testid="login-error"]');
      await error.waitFor();
      expect(await error.textContent()).toMatch(/Too many sign-in attempts; try again in \d+ s/);
    } finally {
      await context.close();
    }
  });
});
