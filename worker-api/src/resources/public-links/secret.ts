import { and, eq } from 'drizzle-orm';
import { encryptSecret, randomString } from '@cairn/core';
import { dashboardSharingLinks } from '@cairn/db';
import type { ServiceContext } from '../../lib/context.ts';
import { audit } from '../../lib/audit.ts';
import { getSharingLink } from '../dashboard-sharing-links/service.ts';
import { loadLink, sharingSecretOf } from './access.ts';

/**
 * The sharing secret of a link: what the embedding server signs URLs with (see signature.ts). Stored
 * sealed (AES-GCM with SECRET_KEY) because it must be shown again to the people who manage the link;
 * reading and rolling it need Manage Dashboards on the link's dashboard, like reading the link itself.
 */
async function managedLink(ctx: ServiceContext, id: string) {
  const link = await getSharingLink({ ctx, id, include: new Set() });
  return loadLink(ctx.db, String(link.data.attributes.token));
}

export async function getSharingSecret(ctx: ServiceContext, id: string) {
  const { link } = await managedLink(ctx, id);
  return { sharing_secret: await sharingSecretOf(ctx.env, link), sharing_secret_required: link.sharing_secret_required };
}

/** A new secret (48 random base-62 characters); URLs signed with the old one stop working at once. */
export async function rollSharingSecret(ctx: ServiceContext, id: string) {
  const { link } = await managedLink(ctx, id);
  const secret = randomString(48);
  await ctx.db
    .update(dashboardSharingLinks)
    .set({ sharing_secret_encrypted: await encryptSecret(secret, ctx.env.SECRET_KEY), updated_at: new Date() })
    .where(and(eq(dashboardSharingLinks.id, link.id), eq(dashboardSharingLinks.organization_id, ctx.principal.organizationId)));
  await audit(ctx, 'roll_sharing_secret', 'dashboard_sharing_links', link.id);
  return { sharing_secret: secret, sharing_secret_required: link.sharing_secret_required };
}
