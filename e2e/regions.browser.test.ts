/**
 * Two regions on two databases (D53): an organization made in the US region's database is served by the
 * US API only; the EU API (whose database has never heard of it) refuses its key and session with 403
 * wrong_region naming the US server; the web app signs its admin in to the US when the region is chosen,
 * and every page then comes from the US API.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { createDb } from '@cairn/db';
import { createOrganization } from '@cairn/db/seed/organization';
import { createApiKey } from '@cairn/db/seed/api-keys';
import { PERMISSIONS, randomString } from '@cairn/core';
import { getStack } from './harness.ts';
import { launchChromium } from './browser-kit.ts';

let browser: Browser | undefined;
let usDb: ReturnType<typeof createDb>;
let euDb: ReturnType<typeof createDb>;
let usOrg: Awaited<ReturnType<typeof createOrganization>>;
let usKey: string;
const email = `us-admin-${randomString(8).toLowerCase()}@example.test`;
const password = 'a long us password';

beforeAll(async () => {
  const stack = getStack();
  expect(stack.regions.us.database_url, 'each region has its own database').not.toBe(stack.regions.eu.database_url);
  usDb = createDb(stack.regions.us.database_url, { max: 1 });
  euDb = createDb(stack.regions.eu.database_url, { max: 1 });
  usOrg = await createOrganization(usDb.db, { name: `US org ${randomString(4)}`, region: 'us', adminEmail: email, adminPassword: password });
  usKey = (
    await createApiKey(usDb.db, {
      organizationId: usOrg.organization.id,
      name: 'e2e',
      grants: PERMISSIONS.map((permission) => ({ permission, resources: null })),
    })
  ).secret;
});

afterAll(async () => {
  await browser?.close();
  await usDb?.sql.end({ timeout: 5 });
  await euDb?.sql.end({ timeout: 5 });
});

const get = (base: string, path: string, auth: string) => fetch(`${base}${path}`, { headers: { authorization: auth } });

describe('an organization of the US database', () => {
  it('is nowhere in the EU database', async () => {
    const rows = await euDb.sql`select id from organizations where id = ${usOrg.organization.id}`;
    expect(rows).toHaveLength(0);
    expect(usKey).toMatch(/^cairn_us_/);
  });

  it('its key works on the US API and is sent there by the EU API', async () => {
    const { regions } = getStack();
    const us = await get(regions.us.api, '/dashboards', `Api ${usKey}`);
    expect(us.status).toBe(200);
    const eu = await get(regions.eu.api, '/dashboards', `Api ${usKey}`);
    expect(eu.status).toBe(403);
    const err = ((await eu.json()) as any).errors[0];
    expect(err.code).toBe('wrong_region');
    expect(err.detail).toContain(regions.us.api);
    expect(err.meta).toMatchObject({ region: 'us', api_base_url: regions.us.api, data_base_url: regions.us.data });
  });

  it('its admin signs in with the region chosen; the EU sign-in does not know the address', async () => {
    const { regions } = getStack();
    const signIn = (base: string) =>
      fetch(`${base}/auth/sessions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email, password }),
      });
    expect((await signIn(regions.eu.api)).status).toBe(401);
    const ok = await signIn(regions.us.api);
    expect(ok.status).toBe(201);
    const session = ((await ok.json()) as { token: string }).token;
    expect(session).toMatch(/^us_/);
    expect((await get(regions.us.api, '/auth/session', `Session ${session}`)).status).toBe(200);
    const eu = await get(regions.eu.api, '/auth/session', `Session ${session}`);
    expect(eu.status).toBe(403);
    expect(((await eu.json()) as any).errors[0].detail).toContain(regions.us.api);
  });

  it('the web app signs the admin in to the US and shows the US organization', async () => {
    const stack = getStack();
    if (!stack.app) return;
    const origin = new URL(stack.app).origin;
    browser = await launchChromium();
    const context = await browser.newContext();
    const page = await context.newPage();
    // A cold app worker on a busy machine: a generous first wait.
    page.setDefaultTimeout(90_000);
    page.setDefaultNavigationTimeout(90_000);
    await page.goto(`${origin}/app/login`);
    await page.fill('input[name="email"]', email);
    await page.fill('input[name="password"]', password);
    await page.selectOption('[data-testid="login-region"]', 'us');
    await page.click('button[type="submit"]');
    await page.waitForURL(`${origin}/app/`);
    // Client-side navigation: the URL changes before the page's content arrives.
    await page.getByText(usOrg.sampleDashboard.name).first().waitFor();
    const cookies = await context.cookies();
    expect(cookies.find((c) => c.name === 'cairn_region')?.value).toBe('us');
    // The next visit offers the US first.
    await page.goto(`${origin}/app/login`);
    expect(await page.locator('[data-testid="login-region"]').inputValue()).toBe('us');
    await context.close();
  });
});
