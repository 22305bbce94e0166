import { sql } from 'drizzle-orm';
import { bigint, bigserial, boolean, index, integer, jsonb, pgTable, primaryKey, text, uniqueIndex } from 'drizzle-orm/pg-core';
import type { Grant, Role } from '@cairn/core';
import { createdAt, orgId, ts, updatedAt } from './common.ts';

export const organizations = pgTable('organizations', {
  id: text().primaryKey(),
  name: text().notNull(),
  /** The organization time zone (IANA name). */
  time_zone: text().notNull().default('UTC'),
  /** The region whose servers hold this organization's data. */
  region: text().$type<'eu' | 'us'>().notNull().default('eu'),
  plan: text().notNull().default('business'),
  /**
   * Limits the operator may set (`npm run cairn -- org limits`); NULL: no limit. Analyst seats: admins
   * count as analysts, deactivated users do not.
   */
  plan_analyst_seats: integer(),
  /** Datasources the organization may have (the sample data datasource does not count); NULL: no limit. */
  plan_datasources: integer(),
  settings: jsonb().$type<Record<string, unknown>>().notNull().default({}),
  /**
   * The organization's SSH key pair for tunnelled datasources (ARCHITECTURE D51): made on first use
   * (worker-api engine/ssh-key.ts), the public key as an authorized_keys line, the private key sealed
   * with SECRET_KEY (encryptSecret). NULL until then.
   */
  ssh_public_key: text(),
  ssh_private_key_encrypted: text(),
  created_at: createdAt(),
  updated_at: updatedAt(),
});

export const users = pgTable(
  'users',
  {
    id: text().primaryKey(),
    organization_id: orgId().references(() => organizations.id, { onDelete: 'cascade' }),
    email: text().notNull(),
    firstname: text().notNull().default(''),
    lastname: text().notNull().default(''),
    role: text().$type<Role>().notNull().default('viewer'),
    password_hash: text(),
    otp_app_enabled: boolean().notNull().default(false),
    otp_phone_enabled: boolean().notNull().default(false),
    /** The authenticator-app secret, sealed (AES-GCM); pending while otp_app_enabled is false. */
    otp_secret_encrypted: text(),
    /** The last 30-second step a code was accepted for: a code works once. */
    otp_last_step: bigint({ mode: 'number' }),
    /** SHA-256 (hex) of the unused recovery codes. */
    otp_recovery_hashes: jsonb().$type<string[]>().notNull().default([]),
    time_zone: text(),
    invited_by_user_id: text(),
    invitation_token_hash: text(),
    invitation_created_at: ts(),
    invitation_accepted_at: ts(),
    deactivated_at: ts(),
    last_login_at: ts(),
    created_at: createdAt(),
    updated_at: updatedAt(),
  },
  (t) => [
    // One account per address across Cairn; pending invitations do not count (migration 0009), so an
    // invitation answers the same whether or not the address has an account elsewhere.
    uniqueIndex('users_email_unique').on(sql`lower(${t.email})`).where(sql`${t.invitation_created_at} IS NULL OR ${t.invitation_accepted_at} IS NOT NULL`),
    uniqueIndex('users_org_email_unique').on(t.organization_id, sql`lower(${t.email})`),
    index('users_org_idx').on(t.organization_id),
  ],
);

/** Web-app sign-in sessions. The id is the SHA-256 of the cookie token; the token itself is never stored. */
export const sessions = pgTable(
  'sessions',
  {
    id: text().primaryKey(),
    organization_id: orgId().references(() => organizations.id, { onDelete: 'cascade' }),
    user_id: text()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    expires_at: ts().notNull(),
    /** Written at most once a minute per session, by the API's authentication (D65). */
    last_seen_at: ts(),
    user_agent: text(),
    /** How the session began: password (also NULL, older sessions), invitation, oidc or saml (migration 0016). */
    sign_in_method: text().$type<'password' | 'invitation' | 'oidc' | 'saml'>(),
    created_at: createdAt(),
  },
  (t) => [index('sessions_user_idx').on(t.user_id)],
);

/**
 * Password reset links. The link carries `id` and a secret; only the SHA-256 of the secret is kept
 * (`token_hash`). A link works once (`used_at`) and until `expires_at`.
 */
export const passwordResets = pgTable(
  'password_resets',
  {
    id: text().primaryKey(),
    organization_id: orgId().references(() => organizations.id, { onDelete: 'cascade' }),
    user_id: text()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    token_hash: text().notNull(),
    expires_at: ts().notNull(),
    used_at: ts(),
    created_at: createdAt(),
  },
  (t) => [index('password_resets_user_idx').on(t.user_id)],
);

/**
 * After the right password of a user with two-factor authentication: a single-use challenge for the
 * code step (`id` is the SHA-256 of the token; the row is deleted when the session starts).
 */
export const signInChallenges = pgTable(
  'sign_in_challenges',
  {
    id: text().primaryKey(),
    organization_id: orgId().references(() => organizations.id, { onDelete: 'cascade' }),
    user_id: text()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    expires_at: ts().notNull(),
    created_at: createdAt(),
  },
  (t) => [index('sign_in_challenges_user_idx').on(t.user_id)],
);

export const userGroups = pgTable(
  'user_groups',
  {
    id: text().primaryKey(),
    organization_id: orgId().references(() => organizations.id, { onDelete: 'cascade' }),
    name: text().notNull(),
    description: text(),
    /** all_users / all_analysts for the two built-in groups, which keep their members by rule. */
    built_in_behavior: text().$type<'all_users' | 'all_analysts'>(),
    created_at: createdAt(),
    updated_at: updatedAt(),
  },
  (t) => [index('user_groups_org_idx').on(t.organization_id), uniqueIndex('user_groups_builtin_unique').on(t.organization_id, t.built_in_behavior)],
);

export const userGroupMembers = pgTable(
  'user_group_members',
  {
    organization_id: orgId().references(() => organizations.id, { onDelete: 'cascade' }),
    user_group_id: text()
      .notNull()
      .references(() => userGroups.id, { onDelete: 'cascade' }),
    user_id: text()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    created_at: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.user_group_id, t.user_id] }), index('ugm_user_idx').on(t.user_id)],
);

/**
 * API keys: `cairn_<region>_<key_id>_<secret>` (D53; older keys have no region part). `key_id` finds the row; only the SHA-256 of the secret is kept.
 * `permissions` is the list of grants, each optionally restricted to named resources.
 */
export const apiKeys = pgTable(
  'api_keys',
  {
    id: text().primaryKey(),
    organization_id: orgId().references(() => organizations.id, { onDelete: 'cascade' }),
    name: text().notNull(),
    key_id: text().notNull(),
    secret_hash: text().notNull(),
    permissions: jsonb().$type<Grant[]>().notNull().default([]),
    enabled: boolean().notNull().default(true),
    created_by_user_id: text(),
    last_used_at: ts(),
    created_at: createdAt(),
    updated_at: updatedAt(),
  },
  (t) => [uniqueIndex('api_keys_key_id_unique').on(t.key_id), index('api_keys_org_idx').on(t.organization_id)],
);

/** Every write through the API or the app: who, what, which resource, when. */
export const auditLog = pgTable(
  'audit_log',
  {
    id: bigserial({ mode: 'number' }).primaryKey(),
    organization_id: orgId().references(() => organizations.id, { onDelete: 'cascade' }),
    actor_type: text().$type<'api_key' | 'user' | 'system' | 'cli'>().notNull(),
    actor_id: text(),
    action: text().notNull(),
    resource_type: text().notNull(),
    resource_id: text(),
    request_id: text(),
    details: jsonb().$type<Record<string, unknown>>(),
    created_at: createdAt(),
  },
  (t) => [
    index('audit_org_time_idx').on(t.organization_id, t.created_at),
    index('audit_org_action_time_idx').on(t.organization_id, t.action, t.created_at),
    // The retention sweep (worker-api cron: AUDIT_LOG_KEPT_DAYS) finds old rows of every organization.
    index('audit_created_idx').on(t.created_at),
  ],
);
