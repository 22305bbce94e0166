/**
 * Dashboard group management on the dashboard list, in Debian's Chromium, as the stack's admin: a new
 * shared group (the API's 422 on an empty name shown at the field), a dashboard put into it with the
 * card's "Groups…" dialog, rename, move up (the sort call), a personal group that the API key cannot
 * see, and deleting a group (its dashboard back under "Other dashboards"); then a viewer, who may keep
 * only personal groups.
 */
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { hashPassword, newId } from '@cairn/core';
import { apiFetch, getStack } from './harness.ts';
import { launchChromium, signInAt } from './browser-kit.ts';

let browser: Browser;
let origin: string;
let dashboardId: string;
let earlierId: string;
const stamp = Date.now();
const boardName = `Grouped board ${stamp}`;

const signIn = (page: Page, email: string, password: string) => signInAt(page, origin, email, password);

const section = (page: Page, name: string) => page.locator('[data-testid="dashboard-group"]', { has: page.locator('h2', { hasText: name }) }).first();

const groupTitles = (page: Page) => page.locator('[data-testid="dashboard-group"] h2').allTextContents();

async function createGroup(page: Page, name: string, personal: boolean) {
  await page.click('[data-testid="new-group"]');
  const form = page.locator('[data-testid="new-group-form"]');
  await form.locator('[data-testid="group-name"]').fill(name);
  if (personal) await form.locator('[data-testid="group-personal"]').check();
  await form.locator('[data-testid="group-save"]').click();
  await section(page, name).waitFor();
  await form.waitFor({ state: 'detached' });
}

beforeAll(async () => {
  const stack = getStack();
  if (!stack.app) throw new Error('The stack runs without the web app (stack.app is null).');
  origin = new URL(stack.app).origin;
  const made = await apiFetch<{ data: { id: string } }>('/dashboards', { body: { data: { type: 'dashboards', attributes: { name: boardName } } } });
  expect(made.status).toBe(201);
  dashboardId = made.body.data.id;
  // A group above the ones the test creates, so there is somewhere to move up to.
  const earlier = await apiFetch<{ data: { id: string } }>('/dashboard_groups', {
    body: { data: { type: 'dashboard_groups', attributes: { name: `Earlier group ${stamp}` } } },
  });
  expect(earlier.status).toBe(201);
  earlierId = earlier.body.data.id;
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  if (dashboardId) await apiFetch(`/dashboards/${dashboardId}`, { method: 'DELETE' });
  if (earlierId) await apiFetch(`/dashboard_groups/${earlierId}`, { method: 'DELETE' });
});

describe('dashboard groups in the app', () => {
  it('creates, fills, renames, sorts and deletes groups; personal groups stay away from API keys', async () => {
    const stack = getStack();
    const context = await browser.newContext({ viewport: { width: 1440, height: 1000 } });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('dialog', (d) => void d.accept());
    try {
      await signIn(page, stack.admin.email, stack.admin.password);
      const shared = `Team picks ${stamp}`;

      // The API's 422 on an empty name shows at the name field.
      await page.click('[data-testid="new-group"]');
      await page.locator('[data-testid="new-group-form"] [data-testid="group-save"]').click();
      await expect(page.locator('[data-testid="group-name-error"]').textContent()).resolves.toMatch(/\S/);
      await page.locator('[data-testid="new-group-form"] button', { hasText: 'Cancel' }).click();

      await createGroup(page, shared, false);
      expect(await section(page, shared).locator('[data-testid="group-personal-badge"]').count()).toBe(0);

      // Put the dashboard into the group with the card's dialog.
      const card = page.locator('.dashboard-tile', { hasText: boardName }).first();
      await card.hover();
      await card.locator('[data-testid="dashboard-card-groups"]').click();
      const dialog = card.locator('[data-testid="dashboard-groups-dialog"]');
      await dialog.locator('label', { hasText: shared }).locator('input[type="checkbox"]').check();
      await dialog.locator('[data-testid="dashboard-groups-save"]').click();
      await section(page, shared).locator('.dashboard-card', { hasText: boardName }).waitFor();
      await dialog.waitFor({ state: 'detached' });
      const other = page.locator('[data-testid="dashboard-group"]', { has: page.locator('h2', { hasText: 'Other dashboards' }) });
      expect(await other.locator('.dashboard-card', { hasText: boardName }).count()).toBe(0);

      // Rename and describe.
      const renamed = `Team favourites ${stamp}`;
      await section(page, shared).locator('[data-testid="group-edit"]').click();
      const edit = page.locator('[data-testid="group-edit-form"]');
      await edit.locator('[data-testid="group-name"]').fill(renamed);
      await edit.locator('[data-testid="group-description"]').fill('The boards we open every day');
      await edit.locator('[data-testid="group-save"]').click();
      await section(page, renamed).waitFor();
      await expect(section(page, renamed).locator('.dashboard-group__desc').textContent()).resolves.toBe('The boards we open every day');

      // New groups go last; Move up puts it before the one above, through the sort call.
      let titles = await groupTitles(page);
      const at = titles.findIndex((t) => t.startsWith(renamed));
      expect(at).toBeGreaterThan(0);
      const above = titles[at - 1]!;
      await section(page, renamed).locator('[data-testid="group-move-up"]').click();
      await page.waitForFunction(
        ([a, b]) => {
          const t = [...document.querySelectorAll('[data-testid="dashboard-group"] h2')].map((h) => h.textContent ?? '');
          return t.findIndex((x) => x.startsWith(a!)) === t.indexOf(b!) - 1;
        },
        [renamed, above],
      );
      const listed = await apiFetch<{ data: { id: string; attributes: { name: string } }[] }>('/dashboard_groups?page[size]=200');
      const names = listed.body.data.map((g) => g.attributes.name);
      expect(names.indexOf(renamed)).toBeLessThan(names.findIndex((n) => above.startsWith(n)));

      // A personal group: marked in the list, invisible to the API key.
      const mine = `My corner ${stamp}`;
      await createGroup(page, mine, true);
      await section(page, mine).locator('[data-testid="group-personal-badge"]').waitFor();
      const byKey = await apiFetch<{ data: { attributes: { name: string } }[] }>('/dashboard_groups?page[size]=200');
      expect(byKey.status).toBe(200);
      expect(byKey.body.data.map((g) => g.attributes.name)).not.toContain(mine);
      expect(byKey.body.data.map((g) => g.attributes.name)).toContain(renamed);

      // Delete both groups (confirmed): the dashboard stays, back under "Other dashboards".
      await section(page, renamed).locator('[data-testid="group-delete"]').click();
      await other.locator('.dashboard-card', { hasText: boardName }).waitFor();
      titles = await groupTitles(page);
      expect(titles.some((t) => t.startsWith(renamed))).toBe(false);
      await section(page, mine).locator('[data-testid="group-delete"]').click();
      await section(page, mine).waitFor({ state: 'detached' });
      expect((await apiFetch(`/dashboards/${dashboardId}`)).status).toBe(200);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  }, 60_000);

  it('lets a viewer keep personal groups but not change shared ones', async () => {
    const stack = getStack();
    const sql = postgres(stack.database_url, { max: 1, onnotice: () => {} });
    const viewer = { email: `viewer-${stamp}@groups.test`, password: 'viewer-password-42', id: newId('user') };
    try {
      await sql`insert into users (id, organization_id, email, firstname, lastname, role, password_hash)
        values (${viewer.id}, ${stack.organization_id}, ${viewer.email}, 'Vic', 'Viewer', 'viewer', ${await hashPassword(viewer.password)})`;
    } finally {
      await sql.end({ timeout: 5 });
    }
    const context = await browser.newContext({ viewport: { width: 1440, height: 1000 } });
    const page = await context.newPage();
    try {
      await signIn(page, viewer.email, viewer.password);
      const earlier = section(page, `Earlier group ${stamp}`);
      await earlier.waitFor();
      expect(await earlier.locator('[data-testid="group-edit"], [data-testid="group-delete"], [data-testid="group-move-up"]').count()).toBe(0);
      // No group the viewer may change yet: no "Groups…" on the cards.
      expect(await page.locator('[data-testid="dashboard-card-groups"]').count()).toBe(0);

      await page.click('[data-testid="new-group"]');
      const form = page.locator('[data-testid="new-group-form"]');
      expect(await form.locator('[data-testid="group-personal"]').count()).toBe(0);
      const mine = `Viewer corner ${stamp}`;
      await form.locator('[data-testid="group-name"]').fill(mine);
      await form.locator('[data-testid="group-save"]').click();
      await section(page, mine).locator('[data-testid="group-personal-badge"]').waitFor();
      expect(await section(page, mine).locator('[data-testid="group-move-up"]').count()).toBe(0);

      // Its own group is the only one offered on a card.
      const card = page.locator('.dashboard-tile').first();
      await card.hover();
      await card.locator('[data-testid="dashboard-card-groups"]').click();
      const offered = await card.locator('[data-testid="dashboard-groups-dialog"] label').allTextContents();
      expect(offered).toEqual([expect.stringContaining(mine)]);
      await card.locator('[data-testid="dashboard-group-check"]').check();
      await card.locator('[data-testid="dashboard-groups-save"]').click();
      await section(page, mine).locator('.dashboard-card').first().waitFor();
      const byKey = await apiFetch<{ data: { attributes: { name: string } }[] }>('/dashboard_groups?page[size]=200');
      expect(byKey.body.data.map((g) => g.attributes.name)).not.toContain(mine);
    } finally {
      await context.close();
    }
  }, 30_000);
});
