/**
 * The SSO docs' screenshots, taken with Chromium from a running stack (not a test):
 *
 *   CAIRN_STACK_FILE=/tmp/dev.json npx tsx e2e/screenshots-sso.ts
 *
 * Makes a throwaway organization "Example Corp" with an admin, stores an Okta OpenID Connect
 * connection (as Administration → Single sign-on saves it; the secret sealed like the API seals it),
 * and writes PNGs of the real screens to remix-app/public/docs-images/sso/: the settings page (OIDC and
 * SAML) and the sign-in page's "Continue with single sign-on". The organization is removed afterwards.
 */
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { createDb, ssoConnections } from '@cairn/db';
import { createOrganization } from '@cairn/db/seed';
import { encryptSecret, newId } from '@cairn/core';
import { getStack } from './harness.ts';
import { launchChromium, signInAt } from './browser-kit.ts';

const OUT = resolve(import.meta.dirname, '../remix-app/public/docs-images/sso');
const PASSWORD = 'screenshot admin passphrase';

async function main() {
  const stack = getStack();
  if (!stack.app) throw new Error('The stack runs without the web app.');
  const origin = new URL(stack.app).origin;
  const { db, sql } = createDb(stack.database_url, { max: 1 });
  const tag = Math.random().toString(36).slice(2, 7);
  const { organization, admin } = await createOrganization(db, {
    name: 'Example Corp',
    adminEmail: `admin-${tag}@admins.example.net`,
    adminPassword: PASSWORD,
  });
  const domain = `example-${tag}.com`;
  const group = newId('user_group');
  const browser = await launchChromium();
  try {
    mkdirSync(OUT, { recursive: true });
    await sql`insert into user_groups (id, organization_id, name) values (${group}, ${organization.id}, 'Finance readers')`;
    const secretKey = process.env.SECRET_KEY;
    await db.insert(ssoConnections).values({
      organization_id: organization.id,
      protocol: 'oidc',
      preset: 'okta',
      issuer: 'https://example-corp.okta.com',
      client_id: '0oa8f2example4x7',
      client_secret_sealed: secretKey ? await encryptSecret('not a real secret', secretKey) : null,
      domains: [domain],
      require_sso: false,
      jit_role: 'viewer',
      jit_group_ids: [group],
    });
    const context = await browser.newContext({ viewport: { width: 1200, height: 900 }, deviceScaleFactor: 1 });
    const page = await context.newPage();
    await signInAt(page, origin, admin.email, PASSWORD);
    await page.goto(`${origin}/app/administration/sso`);
    await page.locator('[data-testid="sso-save"]').waitFor();
    await page.screenshot({ path: `${OUT}/administration-sso-oidc.png`, fullPage: true });
    await page.click('[data-testid="sso-protocol-saml"]');
    await page.selectOption('[data-testid="sso-preset"]', 'entra');
    await page.fill(
      'input[name="metadata_url"]',
      'https://login.microsoftonline.com/<tenant id>/federationmetadata/2007-06/federationmetadata.xml?appid=<app id>',
    );
    await page.screenshot({ path: `${OUT}/administration-sso-saml.png`, fullPage: true });
    const anonymous = await browser.newContext({ viewport: { width: 900, height: 700 }, deviceScaleFactor: 1 });
    const login = await anonymous.newPage();
    await login.goto(`${origin}/app/login`);
    await login.fill('input[name="email"]', `dana@${domain}`);
    await login.screenshot({ path: `${OUT}/sign-in-sso.png` });
    console.log(`wrote ${OUT}/{administration-sso-oidc,administration-sso-saml,sign-in-sso}.png`);
  } finally {
    await browser.close();
    await sql`delete from organizations where id = ${organization.id}`;
    await sql.end({ timeout: 5 });
  }
}

await main();
