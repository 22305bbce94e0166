import { boolean, index, jsonb, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import type { Role } from '@cairn/core';
import { createdAt, orgId, ts, updatedAt } from './common.ts';
import { organizations } from './organizations.ts';

/**
 * One single sign-on connection per organization (issue 20, ARCHITECTURE D57): OpenID Connect or SAML 2.0.
 * The OIDC client secret is sealed like other secrets (core encryptSecret under SECRET_KEY).
 */
export const ssoConnections = pgTable('sso_connections', {
  organization_id: text()
    .primaryKey()
    .references(() => organizations.id, { onDelete: 'cascade' }),
  protocol: text().$type<'oidc' | 'saml'>().notNull(),
  /** google, entra, okta or generic: only changes the hints the admin page shows. */
  preset: text().notNull().default('generic'),
  /** OIDC: the issuer (discovery at <issuer>/.well-known/openid-configuration). SAML: the IdP entity id. */
  issuer: text().notNull(),
  client_id: text(),
  client_secret_sealed: text(),
  /** SAML: where the IdP's metadata was read (informative) and what was taken from it. */
  metadata_url: text(),
  sso_url: text(),
  certificate: text(),
  /** Lower-case e-mail domains the connection covers. */
  domains: jsonb().$type<string[]>().notNull().default([]),
  /** true: the organization's users may not sign in with a password or reset one. */
  require_sso: boolean().notNull().default(false),
  /** Just-in-time creation: the role of a new user, null = off. */
  jit_role: text().$type<Role>(),
  jit_group_ids: jsonb().$type<string[]>().notNull().default([]),
  created_at: createdAt(),
  updated_at: updatedAt(),
});

/**
 * A sign-in that left for the identity provider: `id` is the SHA-256 of the `state` (OIDC) or of the
 * AuthnRequest id (SAML). Single use, ten minutes.
 */
export const ssoAttempts = pgTable(
  'sso_attempts',
  {
    id: text().primaryKey(),
    organization_id: orgId().references(() => organizations.id, { onDelete: 'cascade' }),
    protocol: text().$type<'oidc' | 'saml'>().notNull(),
    nonce: text(),
    code_verifier: text(),
    next: text(),
    expires_at: ts().notNull(),
    created_at: createdAt(),
  },
  (t) => [index('sso_attempts_expires_idx').on(t.expires_at)],
);

/** SAML assertion ids already used, kept until the assertion would have expired anyway (replay refusal). */
export const ssoAssertionsSeen = pgTable(
  'sso_assertions_seen',
  {
    organization_id: orgId().references(() => organizations.id, { onDelete: 'cascade' }),
    assertion_id: text().notNull(),
    expires_at: ts().notNull(),
  },
  (t) => [primaryKey({ columns: [t.organization_id, t.assertion_id] })],
);
