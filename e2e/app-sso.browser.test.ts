/**
 * Single sign-on in Chromium against real identity providers on loopback (e2e/sso-idps.ts): an
 * organization's admin sets up OpenID Connect in Administration → Single sign-on; SAML is set up with
 * the operator CLI from the IdP's metadata. Covered: a user created just in time (role and group),
 * an e-mail outside the domains, a wrong audience, an expired token or assertion, a bad signature, a
 * replayed assertion, an IdP-initiated sign-in, a deactivated user (whose session ends and whose next
 * single sign-on is refused), and "require single sign-on"
 * refusing password sign-in and password reset with a message that says why.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { createDb } from '@cairn/db';
import { createOrganization } from '@cairn/db/seed';
import { createApiKey } from '@cairn/db/seed/api-keys';
import { newId } from '@cairn/core';
import { run } from '../scripts/cairn/main.ts';
import { apiFetch, getStack } from './harness.ts';
import { launchChromium, signInAt } from './browser-kit.ts';
import { startOidcIdp, startSamlIdp, type OidcIdp, type SamlIdp } from './sso-idps.ts';

// Ports of their own, away from the stacks' bases (8780…, and each helper's range + 0…7).
const PORT_BASE = Number(process.env.CAIRN_SSO_IDP_PORT ?? 29400);
const tag = Math.random().toString(36).slice(2, 8);
const OIDC_DOMAIN = `oidc-${tag}.test`;
const SAML_DOMAIN = `saml-${tag}.test`;
const ADMIN_PASSWORD = 'sso admin passphrase';

let browser: Browser;
let origin: string;
let db: ReturnType<typeof createDb>;
let oidc: OidcIdp;
let saml: SamlIdp;
const orgs: { oidc: string; saml: string; oidcAdmin: string; samlAdmin: string } = { oidc: '', saml: '', oidcAdmin: '', samlAdmin: '' };
let groupId = '';

async function fresh(): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width: 1300, height: 1000 } });
  return { context, page: await context.newPage() };
}

/** "Continue with single sign-on" for an address, from the sign-in page. */
async function startSso(page: Page, email: string): Promise<void> {
  await page.goto(`${origin}/app/login`);
  await page.fill('input[name="email"]', email);
  await page.click('[data-testid="sso-button"]');
}

/** The OpenID provider's own login form (devInteractions): the login is the account's e-mail. */
async function providerLogin(page: Page, email: string): Promise<void> {
  await page.waitForSelector('input[name="login"]', { timeout: 60_000 });
  await page.fill('input[name="login"]', email);
  await page.fill('input[name="password"]', 'anything');
  await page.click('button[type="submit"]');
  // The consent step, the first time a client asks for these scopes.
  const consent = page.locator('button:has-text("Continue")');
  await page.waitForURL((u) => u.origin === origin || u.pathname.includes('/interaction/'), { timeout: 60_000 });
  if (new URL(page.url()).origin !== origin && (await consent.count()) > 0) await consent.click();
  await page.waitForURL((u) => u.origin === origin, { timeout: 60_000 });
}

async function refusal(page: Page): Promise<{ reason: string | null; text: string }> {
  const box = page.locator('[data-testid="sso-error"]');
  await box.waitFor({ timeout: 60_000 });
  return { reason: await box.getAttribute('data-reason'), text: (await box.textContent()) ?? '' };
}

async function signedInAs(page: Page): Promise<string> {
  await page.waitForURL(`${origin}/app/`, { timeout: 60_000 });
  const res = await page.request.get(`${origin}/app/account`);
  expect(res.status()).toBe(200);
  return page.url();
}

beforeAll(async () => {
  const stack = getStack();
  if (!stack.app) throw new Error('The stack runs without the web app.');
  origin = new URL(stack.app).origin;
  db = createDb(stack.database_url, { max: 1 });
  const o = await createOrganization(db.db, { name: `SSO OIDC ${tag}`, adminEmail: `admin@admins-${tag}.test`, adminPassword: ADMIN_PASSWORD });
  const s = await createOrganization(db.db, { name: `SSO SAML ${tag}`, adminEmail: `admin@saml-admins-${tag}.test`, adminPassword: ADMIN_PASSWORD });
  orgs.oidc = o.organization.id;
  orgs.saml = s.organization.id;
  orgs.oidcAdmin = o.admin.email;
  orgs.samlAdmin = s.admin.email;
  groupId = newId('user_group');
  await db.sql`insert into user_groups (id, organization_id, name) values (${groupId}, ${orgs.oidc}, 'Finance readers')`;
  oidc = await startOidcIdp({ port: PORT_BASE, innerPort: PORT_BASE + 1, redirectUri: `${origin}/app/sso/oidc/callback` });
  saml = await startSamlIdp({ port: PORT_BASE + 2, appOrigin: origin });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await oidc?.close();
  await saml?.close();
  for (const id of [orgs.oidc, orgs.saml].filter(Boolean)) await db.sql`delete from organizations where id = ${id}`.catch(() => undefined);
  await db?.sql.end({ timeout: 5 });
});

describe('OpenID Connect', () => {
  it("is set up by the organization's admin in Administration → Single sign-on", async () => {
    const { context, page } = await fresh();
    try {
      await signInAt(page, origin, orgs.oidcAdmin, ADMIN_PASSWORD);
      await page.goto(`${origin}/app/administration/sso`);
      await expect(page.locator('[data-testid="sso-redirect-uri"]').textContent()).resolves.toBe(`${origin}/app/sso/oidc/callback`);
      await expect(page.locator('[data-testid="sso-metadata-url"]').textContent()).resolves.toBe(`${origin}/app/sso/saml/metadata?org=${orgs.oidc}`);
      await page.selectOption('[data-testid="sso-preset"]', 'generic');
      await page.fill('input[name="issuer"]', oidc.issuer);
      await page.fill('input[name="client_id"]', oidc.clientId);
      await page.fill('input[name="client_secret"]', oidc.clientSecret);
      await page.fill('[data-testid="sso-domains"]', OIDC_DOMAIN);
      await page.check('[data-testid="sso-jit"]');
      await page.selectOption('select[name="jit_role"]', 'viewer');
      await page.check(`input[name="jit_group_ids"][value="${groupId}"]`);
      await page.click('[data-testid="sso-save"]');
      await expect(page.locator('[data-testid="sso-admin-message"]').textContent()).resolves.toContain('Saved');
      const [row] = await db.sql`select client_secret_sealed, jit_role from sso_connections where organization_id = ${orgs.oidc}`;
      // Sealed at rest: not the secret itself.
      expect(row!.client_secret_sealed).toMatch(/^v1\./);
      expect(row!.client_secret_sealed).not.toContain(oidc.clientSecret);
      expect(row!.jit_role).toBe('viewer');
    } finally {
      await context.close();
    }
  });

  it('signs a new user in and creates them just in time, with the default role and group', async () => {
    const email = `jit-${tag}@${OIDC_DOMAIN}`;
    const { context, page } = await fresh();
    try {
      await startSso(page, email);
      await providerLogin(page, email);
      await signedInAs(page);
      const [user] = await db.sql`select id, role, firstname from users where organization_id = ${orgs.oidc} and email = ${email}`;
      expect(user).toMatchObject({ role: 'viewer', firstname: 'Oda' });
      const members = await db.sql`select 1 from user_group_members where user_group_id = ${groupId} and user_id = ${user!.id}`;
      expect(members.length).toBe(1);
    } finally {
      await context.close();
    }
  });

  it("refuses an e-mail outside the organization's domains", async () => {
    const { context, page } = await fresh();
    try {
      await startSso(page, `someone@${OIDC_DOMAIN}`);
      await providerLogin(page, `intruder@elsewhere-${tag}.test`);
      const r = await refusal(page);
      expect(r.reason).toBe('email_outside_domains');
      expect(r.text).toContain(OIDC_DOMAIN);
    } finally {
      await context.close();
    }
  });

  for (const [tamper, expected] of [
    ['audience', /another application/],
    ['expired', /expired/],
    ['signature', /signature/],
  ] as const) {
    it(`refuses an ID token with a ${tamper === 'audience' ? 'wrong audience' : tamper === 'expired' ? 'past expiry' : 'bad signature'}`, async () => {
      const { context, page } = await fresh();
      oidc.tamper = tamper;
      try {
        const email = `tamper-${tamper}-${tag}@${OIDC_DOMAIN}`;
        await startSso(page, email);
        await providerLogin(page, email);
        const r = await refusal(page);
        expect(r.reason).toBe('invalid_id_token');
        expect(r.text).toMatch(expected);
        const users = await db.sql`select 1 from users where email = ${email}`;
        expect(users.length).toBe(0);
      } finally {
        oidc.tamper = 'none';
        await context.close();
      }
    });
  }

  it('refuses a callback whose state was not started here', async () => {
    const { context, page } = await fresh();
    try {
      await page.goto(`${origin}/app/sso/oidc/callback?code=abc&state=forged-state-value`);
      expect((await refusal(page)).reason).toBe('attempt_expired');
    } finally {
      await context.close();
    }
  });
});

describe('SAML 2.0', () => {
  it('is set up with the operator CLI from the IdP metadata, which prints the fixed addresses', async () => {
    const lines: string[] = [];
    const previous = process.env.DATABASE_URL;
    process.env.DATABASE_URL = getStack().database_url;
    try {
      const code = await run(
        [
          'sso',
          'configure',
          '--org',
          orgs.saml,
          '--protocol',
          'saml',
          '--metadata-url',
          saml.metadataUrl,
          '--domains',
          SAML_DOMAIN,
          '--require',
          '--app-url',
          origin,
        ],
        (l = '') => lines.push(l),
        (l) => lines.push(l),
      );
      expect(code, lines.join('\n')).toBe(0);
    } finally {
      if (previous === undefined) delete process.env.DATABASE_URL;
      else process.env.DATABASE_URL = previous;
    }
    const out = lines.join('\n');
    expect(out).toContain(`${origin}/app/sso/oidc/callback`);
    expect(out).toContain(`${origin}/app/sso/saml/acs`);
    expect(out).toContain(`${origin}/app/sso/saml/metadata?org=${orgs.saml}`);
    const [row] = await db.sql`select issuer, sso_url, require_sso from sso_connections where organization_id = ${orgs.saml}`;
    expect(row).toMatchObject({ issuer: saml.entityId, sso_url: `${saml.metadataUrl.replace('/metadata', '/sso')}`, require_sso: true });
    const meta = await fetch(`${origin}/app/sso/saml/metadata?org=${orgs.saml}`);
    expect(meta.status).toBe(200);
    const xml = await meta.text();
    expect(xml).toContain(`entityID="${origin}/app/sso/saml/metadata?org=${orgs.saml}"`);
    expect(xml).toContain(`Location="${origin}/app/sso/saml/acs"`);
  });

  it('signs an invited user in (SP-initiated), and refuses the same assertion posted again', async () => {
    const email = `sam-${tag}@${SAML_DOMAIN}`;
    await db.sql`insert into users (id, organization_id, email, role, invitation_accepted_at) values (${newId('user')}, ${orgs.saml}, ${email}, 'analyst', now())`;
    const { context, page } = await fresh();
    try {
      saml.user = email;
      await startSso(page, email);
      await signedInAs(page);
      await page.goto(saml.replayUrl);
      const r = await refusal(page);
      expect(r.reason).toBe('replayed');
    } finally {
      await context.close();
    }
  });

  it('signs in from the identity provider (IdP-initiated); deactivating the user ends that session', async () => {
    const email = `ida-${tag}@${SAML_DOMAIN}`;
    const userId = newId('user');
    await db.sql`insert into users (id, organization_id, email, role, invitation_accepted_at) values (${userId}, ${orgs.saml}, ${email}, 'viewer', now())`;
    const { context, page } = await fresh();
    try {
      await page.goto(saml.initiateUrl(orgs.saml, email));
      await signedInAs(page);
      // An administrator deactivates the user (through the API); the browser's session ends with it.
      const key = (await createApiKey(db.db, { organizationId: orgs.saml, name: 'sso e2e', grants: [{ permission: 'manage_users', resources: null }] })).secret;
      const off = await apiFetch(`/users/${userId}/deactivate`, { key, method: 'POST' });
      expect(off.status, off.text).toBe(204);
      await page.goto(`${origin}/app/`);
      await page.waitForURL((u) => u.pathname === '/app/login', { timeout: 60_000 });
    } finally {
      await context.close();
    }
  });

  for (const [tamper, reason] of [
    ['audience', 'wrong_audience'],
    ['expired', 'expired'],
    ['signature', 'bad_signature'],
  ] as const) {
    it(`refuses an assertion with ${tamper === 'audience' ? 'another audience' : tamper === 'expired' ? 'a past NotOnOrAfter' : 'a signature by another key'}`, async () => {
      const email = `sam-${tag}@${SAML_DOMAIN}`;
      const { context, page } = await fresh();
      saml.tamper = tamper;
      try {
        saml.user = email;
        await startSso(page, email);
        expect((await refusal(page)).reason).toBe(reason);
      } finally {
        saml.tamper = 'none';
        await context.close();
      }
    });
  }

  it('refuses a deactivated user and an address without an account (no JIT)', async () => {
    const gone = `gone-${tag}@${SAML_DOMAIN}`;
    await db.sql`insert into users (id, organization_id, email, role, invitation_accepted_at, deactivated_at) values (${newId('user')}, ${orgs.saml}, ${gone}, 'viewer', now(), now())`;
    const { context, page } = await fresh();
    try {
      saml.user = gone;
      await startSso(page, gone);
      expect((await refusal(page)).reason).toBe('user_deactivated');
      saml.user = `nobody-${tag}@${SAML_DOMAIN}`;
      await startSso(page, saml.user);
      expect((await refusal(page)).reason).toBe('no_account');
    } finally {
      await context.close();
    }
  });

  it('with single sign-on required, refuses password sign-in and password reset and says why', async () => {
    const { context, page } = await fresh();
    try {
      for (const email of [`sam-${tag}@${SAML_DOMAIN}`, orgs.samlAdmin]) {
        await page.goto(`${origin}/app/login`);
        await page.fill('input[name="email"]', email);
        await page.fill('input[name="password"]', ADMIN_PASSWORD);
        await page.click('button[type="submit"][value="password"]');
        await expect(page.locator('[data-testid="login-error"]').textContent()).resolves.toContain('requires single sign-on');
      }
      await page.goto(`${origin}/app/forgot-password`);
      await page.fill('input[name="email"]', `sam-${tag}@${SAML_DOMAIN}`);
      await page.click('button[type="submit"]');
      await expect(page.locator('[data-testid="forgot-error"]').textContent()).resolves.toContain('requires single sign-on');
    } finally {
      await context.close();
    }
  });
});
