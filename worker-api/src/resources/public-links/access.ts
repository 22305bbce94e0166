/**
 * Who may open a sharing link, checked on every public call in this order: the link exists (404),
 * the client address is on its allow-list (403 ip_not_allowed), the URL carries a valid signature when
 * the link requires a sharing secret (403 signature_*), and the browser holds a password grant when the
 * link has a password (401 password_required).
 */
import { and, asc, eq } from 'drizzle-orm';
import { ApiError, decryptSecret, wrongRegion } from '@cairn/core';
import { dashboards, dashboardSharingLinks, organizations } from '@cairn/db';
import type { PooledDb } from '../../lib/db.ts';
import type { Env } from '../../env.ts';
import type { Principal } from '../../auth/principal.ts';
import { ipAllowed } from './ip-match.ts';
import { MAX_SIGNED_URL_SECONDS, signatureProblem } from './signature.ts';
import { grantValid } from './grant.ts';

export type LinkRow = typeof dashboardSharingLinks.$inferSelect;
export type DashboardRow = typeof dashboards.$inferSelect;

/** What the caller brings: its address (as the edge saw it), the page's query string and a password grant. */
export interface Caller {
  ip: string | null;
  /** The public page's query string (without "?"), signed or not. */
  query: string;
  grant?: string;
}

/** Link tokens are 24 random bytes in base64url (32 characters); older or hand-made ones may differ in length. */
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{16,128}$/;

const unknownLink = () => new ApiError('not_found', 'No sharing link with this address exists. It may have been deleted.', { source: { parameter: 'token' } });

/**
 * The link of `token` with its dashboard. With `env` (the public calls), a link of an organization of
 * the other region is a 403 wrong_region naming that region's API server: the token is the credential.
 */
export async function loadLink(db: PooledDb, token: string, env?: Env): Promise<{ link: LinkRow; dashboard: DashboardRow }> {
  if (!TOKEN_SHAPE.test(token)) throw unknownLink();
  const [row] = await db
    .select({ link: dashboardSharingLinks, dashboard: dashboards, region: organizations.region })
    .from(dashboardSharingLinks)
    .innerJoin(dashboards, and(eq(dashboards.id, dashboardSharingLinks.dashboard_id), eq(dashboards.organization_id, dashboardSharingLinks.organization_id)))
    .innerJoin(organizations, eq(organizations.id, dashboardSharingLinks.organization_id))
    .where(eq(dashboardSharingLinks.token, token))
    .orderBy(asc(dashboardSharingLinks.created_at))
    .limit(1);
  if (!row) throw unknownLink();
  if (env && row.region !== env.REGION) throw wrongRegion(env, row.region, env.REGION, 'api');
  return { link: row.link, dashboard: row.dashboard };
}

/** The path a signature covers: the public page of the link. */
const linkPath = (token: string) => `/s/${token}`;

export async function sharingSecretOf(env: Env, link: LinkRow): Promise<string | null> {
  if (!link.sharing_secret_encrypted) return null;
  return decryptSecret(link.sharing_secret_encrypted, env.SECRET_KEY);
}

const SIGNATURE_TEXT = {
  signature_missing: 'This link opens only from the application that embeds it: the address must carry a signature and an expiry (sharing secret required).',
  signature_invalid: 'The signature of this address is not valid for this link.',
  signature_expired: 'This signed address has expired; reload the page that embeds the dashboard.',
  signature_expiry_too_far: `The signed address expires more than ${MAX_SIGNED_URL_SECONDS / 86_400} days from now; sign it with an earlier \`expires\`.`,
} as const;

/** Throws unless the caller may see the link's dashboard now. `secret`: the link's secret when already decrypted (kept.ts). */
export async function checkAccess(env: Env, link: LinkRow, caller: Caller, secret?: string | null): Promise<void> {
  if (!ipAllowed(link.ip_whitelist, caller.ip)) {
    throw new ApiError('forbidden', 'This sharing link cannot be opened from your network address.', { meta: { reason: 'ip_not_allowed' } });
  }
  if (link.sharing_secret_required) {
    const problem = await signatureProblem(
      secret !== undefined ? secret : await sharingSecretOf(env, link),
      linkPath(link.token),
      new URLSearchParams(caller.query),
    );
    if (problem) throw new ApiError('forbidden', SIGNATURE_TEXT[problem], { meta: { reason: problem } });
  }
  if (link.sharing_password_hash && !(await grantValid(env.SECRET_KEY, link.id, link.sharing_password_hash, caller.grant))) {
    throw new ApiError('unauthorized', 'This sharing link is protected by a password.', { meta: { reason: 'password_required' } });
  }
}

/**
 * The link's viewer as the API's services see them: a key-like principal whose only grant is View
 * Dashboards on the link's dashboard. Built-in user snippets are NULL for it (no user), and work it
 * causes is recorded under the link's id.
 */
export function linkPrincipal(link: LinkRow): Principal {
  return {
    kind: 'api_key',
    organizationId: link.organization_id,
    apiKeyId: link.id,
    grants: [{ permission: 'view_dashboards', resources: [{ type: 'dashboards', id: link.dashboard_id }] }],
  };
}
