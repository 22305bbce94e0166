import { and, eq, inArray, ne, sql } from 'drizzle-orm';
import { z } from 'zod';
import { ApiError, decryptSecret, encryptSecret, ROLES } from '@cairn/core';
import { ssoConnections, userGroups } from '@cairn/db';
import type { PgDatabase } from 'drizzle-orm/pg-core';

// Any drizzle Postgres database: the API's pooled one, or the CLI's direct client.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type PooledDb = PgDatabase<any, any>;

/**
 * An organization's single sign-on connection (ARCHITECTURE D57): its settings, the fixed addresses an
 * identity provider is registered with, and the lookup by e-mail domain the sign-in page uses.
 */
export type SsoConnection = typeof ssoConnections.$inferSelect;

const PRESETS = ['google', 'entra', 'okta', 'generic'] as const;

/** The web app's fixed SSO addresses (issue 20), registered at the identity provider before setup. */
export function ssoAddresses(appUrl: string | undefined, organizationId: string) {
  const app = (appUrl ?? '').replace(/\/+$/, '');
  return {
    oidc_redirect_uri: `${app}/app/sso/oidc/callback`,
    saml_acs_url: `${app}/app/sso/saml/acs`,
    saml_metadata_url: `${app}/app/sso/saml/metadata?org=${encodeURIComponent(organizationId)}`,
    /** The SAML service provider's entity id is its metadata address. */
    saml_entity_id: `${app}/app/sso/saml/metadata?org=${encodeURIComponent(organizationId)}`,
  };
}

export function requireAppUrl(appUrl: string | undefined): string {
  if (!appUrl) throw new ApiError('service_unavailable', 'Single sign-on needs the web app address (APP_URL) of this server; the operator has not set it.');
  return appUrl;
}

const DOMAIN = /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

export const connectionBody = z
  .object({
    protocol: z.enum(['oidc', 'saml']),
    preset: z.enum(PRESETS).default('generic'),
    /** SAML: the IdP entity id, taken from the metadata when omitted there. */
    issuer: z.string().trim().max(500).optional(),
    client_id: z.string().trim().max(500).nullish(),
    /** Omitted or null on an update keeps the stored secret. */
    client_secret: z.string().max(2000).nullish(),
    metadata_url: z.string().trim().url().max(1000).nullish(),
    sso_url: z.string().trim().url().max(1000).nullish(),
    certificate: z.string().trim().max(20_000).nullish(),
    domains: z
      .array(z.string().trim().toLowerCase().regex(DOMAIN, 'must be an e-mail domain such as example.com.'))
      .min(1, 'name at least one e-mail domain.')
      .max(50),
    require_sso: z.boolean().default(false),
    jit_role: z.enum(ROLES).nullish(),
    jit_group_ids: z.array(z.string().max(100)).max(50).default([]),
  })
  .strict();
export type ConnectionInput = z.infer<typeof connectionBody>;

/** A PEM certificate or its bare base64 body → the PEM form xml-crypto takes. */
function normalizeCertificate(text: string): string {
  const body = text.replace(/-----(BEGIN|END) CERTIFICATE-----/g, '').replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]+=*$/.test(body) || body.length < 100) {
    throw new ApiError('invalid_attribute', "certificate: must be the identity provider's X.509 signing certificate (PEM or base64).", {
      source: { pointer: '/certificate' },
    });
  }
  return `-----BEGIN CERTIFICATE-----\n${body.match(/.{1,64}/g)!.join('\n')}\n-----END CERTIFICATE-----\n`;
}

export async function loadConnection(db: PooledDb, organizationId: string): Promise<SsoConnection | null> {
  const [row] = await db.select().from(ssoConnections).where(eq(ssoConnections.organization_id, organizationId)).limit(1);
  return row ?? null;
}

/** The connection whose domains hold the address's domain, if any (domains are unique across organizations). */
export async function connectionForEmail(db: PooledDb, email: string): Promise<SsoConnection | null> {
  const domain = email.slice(email.lastIndexOf('@') + 1).toLowerCase();
  if (!domain) return null;
  const [row] = await db
    .select()
    .from(ssoConnections)
    .where(sql`${ssoConnections.domains} @> ${JSON.stringify([domain])}::jsonb`)
    .limit(1);
  return row ?? null;
}

export function emailInDomains(conn: Pick<SsoConnection, 'domains'>, email: string): boolean {
  const at = email.lastIndexOf('@');
  return at > 0 && conn.domains.includes(email.slice(at + 1).toLowerCase());
}

export async function clientSecret(conn: SsoConnection, secretKey: string): Promise<string | null> {
  return conn.client_secret_sealed ? decryptSecret(conn.client_secret_sealed, secretKey) : null;
}

/** The connection as the admin page and CLI show it: never the client secret, only whether one is set. */
export function serializeConnection(conn: SsoConnection, appUrl: string | undefined) {
  return {
    organization_id: conn.organization_id,
    protocol: conn.protocol,
    preset: conn.preset,
    issuer: conn.issuer,
    client_id: conn.client_id,
    client_secret_set: Boolean(conn.client_secret_sealed),
    metadata_url: conn.metadata_url,
    sso_url: conn.sso_url,
    certificate: conn.certificate,
    domains: conn.domains,
    require_sso: conn.require_sso,
    jit_role: conn.jit_role,
    jit_group_ids: conn.jit_group_ids,
    updated_at: conn.updated_at.toISOString(),
    addresses: ssoAddresses(appUrl, conn.organization_id),
  };
}

/**
 * Checks and stores the connection (one per organization). The caller resolves SAML metadata first
 * (saml.ts readIdpMetadata), so `sso_url` and `certificate` are filled for SAML.
 */
export async function saveConnection(db: PooledDb, organizationId: string, input: ConnectionInput, secretKey: string): Promise<SsoConnection> {
  const existing = await loadConnection(db, organizationId);
  const fail = (field: string, detail: string) => new ApiError('invalid_attribute', `${field}: ${detail}`, { source: { pointer: `/${field}` } });
  if (!input.issuer) throw fail('issuer', 'is required.');
  if (input.protocol === 'oidc') {
    if (!/^https?:\/\//.test(input.issuer)) throw fail('issuer', "must be the provider's issuer URL (https://…).");
    if (!input.client_id) throw fail('client_id', 'is required for OpenID Connect.');
    if (!input.client_secret && !existing?.client_secret_sealed) throw fail('client_secret', 'is required for OpenID Connect.');
  } else {
    if (!input.sso_url) throw fail('sso_url', 'is required for SAML (or give metadata_url).');
    if (!input.certificate) throw fail('certificate', 'is required for SAML (or give metadata_url).');
  }
  if (input.jit_role === 'admin') throw fail('jit_role', 'new users are created as viewer or analyst; make admins by hand.');
  const domains = [...new Set(input.domains)];
  const [claimed] = await db
    .select({ org: ssoConnections.organization_id, domains: ssoConnections.domains })
    .from(ssoConnections)
    .where(
      and(
        ne(ssoConnections.organization_id, organizationId),
        sql`${ssoConnections.domains} ?| array[${sql.join(
          domains.map((d) => sql`${d}`),
          sql`, `,
        )}]::text[]`,
      ),
    )
    .limit(1);
  if (claimed) {
    const taken = domains.filter((d) => claimed.domains.includes(d));
    throw new ApiError('conflict', `domains: ${taken.join(', ')} ${taken.length === 1 ? 'is' : 'are'} covered by another organization's single sign-on.`, {
      source: { pointer: '/domains' },
    });
  }
  const groupIds = [...new Set(input.jit_group_ids)];
  if (groupIds.length) {
    const found = await db
      .select({ id: userGroups.id })
      .from(userGroups)
      .where(and(eq(userGroups.organization_id, organizationId), inArray(userGroups.id, groupIds), sql`${userGroups.built_in_behavior} is null`));
    const missing = groupIds.filter((g) => !found.some((f) => f.id === g));
    if (missing.length)
      throw new ApiError('invalid_attribute', `jit_group_ids: no group ${missing.join(', ')} in this organization (built-in groups fill themselves).`, {
        source: { pointer: '/jit_group_ids' },
      });
  }
  const values = {
    protocol: input.protocol,
    preset: input.preset,
    issuer: input.issuer,
    client_id: input.protocol === 'oidc' ? (input.client_id ?? null) : null,
    client_secret_sealed:
      input.protocol === 'oidc' ? (input.client_secret ? await encryptSecret(input.client_secret, secretKey) : (existing?.client_secret_sealed ?? null)) : null,
    metadata_url: input.metadata_url ?? null,
    sso_url: input.protocol === 'saml' ? (input.sso_url ?? null) : null,
    certificate: input.protocol === 'saml' && input.certificate ? normalizeCertificate(input.certificate) : null,
    domains,
    require_sso: input.require_sso,
    jit_role: input.jit_role ?? null,
    jit_group_ids: groupIds,
    updated_at: new Date(),
  };
  const [row] = await db
    .insert(ssoConnections)
    .values({ organization_id: organizationId, ...values })
    .onConflictDoUpdate({ target: ssoConnections.organization_id, set: values })
    .returning();
  return row!;
}
