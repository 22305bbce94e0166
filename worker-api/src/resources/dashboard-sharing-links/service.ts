import { and, asc, count, eq, inArray, type SQL } from 'drizzle-orm';
import { ApiError, base64url, hashPassword, newId, notFound } from '@cairn/core';
import { dashboards, dashboardSharingLinks } from '@cairn/db';
import type { ServiceContext } from '../../lib/context.ts';
import { requirePermission, type Principal } from '../../auth/principal.ts';
import { grantScope, visibleDashboards } from '../../auth/access.ts';
import { audit, changed } from '../../lib/audit.ts';
import { withTransaction } from '../../lib/transaction.ts';
import { offsetOf, type ListQuery } from '../../lib/jsonapi.ts';
import { listOrder, nameFilter, type ListSpec } from '../../lib/list.ts';
import { dashboardRelationships } from '../dashboards/relations.ts';
import { serializeDashboard } from '../dashboards/serialize.ts';
import { serializeSharingLink } from './serialize.ts';
import { parseIpWhitelist } from './ip.ts';
import type { SharingLinkWrite } from './schema.ts';

type Page = ListQuery;

/** filter[name] and sort of GET /dashboard_sharing_links. */
export const SHARING_LINK_LIST: ListSpec = {
  name: [dashboardSharingLinks.name],
  sorts: { name: dashboardSharingLinks.name, created_at: dashboardSharingLinks.created_at, updated_at: dashboardSharingLinks.updated_at },
  order: [asc(dashboardSharingLinks.created_at)],
  id: dashboardSharingLinks.id,
};
type LinkRow = typeof dashboardSharingLinks.$inferSelect;

/** A url-safe token of 192 random bits: unguessable, and the whole secret of a public link. */
function newLinkToken(): string {
  const bytes = new Uint8Array(24);
  crypto.getRandomValues(bytes);
  return base64url(bytes);
}

/**
 * Dashboards whose links the caller may manage: visible to them, and — for a key whose Manage
 * Dashboards grant names dashboards — one of those.
 */
function manageableDashboards(p: Principal): SQL {
  const visible = visibleDashboards(p);
  if (p.kind !== 'api_key') return visible;
  return and(visible, grantScope(p, 'manage_dashboards', { dashboards: dashboards.id }))!;
}

/**
 * Reading and changing links both need Manage Dashboards on the link's dashboard (the token opens the
 * dashboard to anyone, so seeing it is as strong as sharing). Links of dashboards the caller cannot see
 * do not exist for them (404).
 */
async function findLink(ctx: ServiceContext, id: string): Promise<LinkRow> {
  requirePermission(ctx.principal, 'manage_dashboards');
  const [row] = await ctx.db
    .select({ link: dashboardSharingLinks })
    .from(dashboardSharingLinks)
    .innerJoin(dashboards, eq(dashboards.id, dashboardSharingLinks.dashboard_id))
    .where(and(eq(dashboardSharingLinks.id, id), eq(dashboardSharingLinks.organization_id, ctx.principal.organizationId), visibleDashboards(ctx.principal)))
    .limit(1);
  if (!row) throw notFound('dashboard sharing link', id);
  requirePermission(ctx.principal, 'manage_dashboards', { type: 'dashboards', id: row.link.dashboard_id });
  return row.link;
}

async function withIncluded(ctx: ServiceContext, rows: LinkRow[], include: Set<string>) {
  const data = rows.map((l) => serializeSharingLink(ctx.baseUrl, l));
  if (!include.has('dashboard') || !rows.length) return { data, included: [] };
  const ds = await ctx.db
    .select()
    .from(dashboards)
    .where(and(inArray(dashboards.id, [...new Set(rows.map((l) => l.dashboard_id))]), visibleDashboards(ctx.principal)));
  const rels = await dashboardRelationships(ctx, ds);
  return { data, included: ds.map((d) => serializeDashboard(ctx.baseUrl, d, rels.get(d.id)!)) };
}

export async function listSharingLinks({ ctx, page, include }: { ctx: ServiceContext; page: Page; include: Set<string> }) {
  requirePermission(ctx.principal, 'manage_dashboards');
  const where = and(
    eq(dashboardSharingLinks.organization_id, ctx.principal.organizationId),
    manageableDashboards(ctx.principal),
    nameFilter(SHARING_LINK_LIST, page),
  );
  const base = () =>
    ctx.db
      .select({ link: dashboardSharingLinks })
      .from(dashboardSharingLinks)
      .innerJoin(dashboards, eq(dashboards.id, dashboardSharingLinks.dashboard_id))
      .where(where);
  const [rows, [total]] = await Promise.all([
    base()
      .orderBy(...listOrder(SHARING_LINK_LIST, page))
      .limit(page.size)
      .offset(offsetOf(page)),
    ctx.db.select({ n: count() }).from(dashboardSharingLinks).innerJoin(dashboards, eq(dashboards.id, dashboardSharingLinks.dashboard_id)).where(where),
  ]);
  return {
    ...(await withIncluded(
      ctx,
      rows.map((r) => r.link),
      include,
    )),
    total: total?.n ?? 0,
  };
}

export async function getSharingLink({ ctx, id, include }: { ctx: ServiceContext; id: string; include: Set<string> }) {
  const link = await findLink(ctx, id);
  const res = await withIncluded(ctx, [link], include);
  return { data: res.data[0]!, included: res.included };
}

/** filter_bar_enabled needs toolbar_enabled and parameters_enabled (checked on the values a write leaves). */
function checkFilterBar(next: { toolbar_enabled: boolean; parameters_enabled: boolean; filter_bar_enabled: boolean }, sent: Record<string, unknown>) {
  if (!next.filter_bar_enabled || (next.toolbar_enabled && next.parameters_enabled)) return;
  const missing = [!next.toolbar_enabled && 'toolbar_enabled', !next.parameters_enabled && 'parameters_enabled'].filter(Boolean).join(' and ');
  // Point at what this request changed: the filter bar itself, or the switch it turned off.
  const culprit =
    'filter_bar_enabled' in sent
      ? 'filter_bar_enabled'
      : (['toolbar_enabled', 'parameters_enabled'].find((k) => k in sent && sent[k] === false) ?? 'filter_bar_enabled');
  throw new ApiError('invalid_attribute', `filter_bar_enabled needs ${missing} to be true as well.`, {
    source: { pointer: `/data/attributes/${culprit}` },
  });
}

/** Attribute values as columns: the password hashed, the allow list normalized. */
async function toColumns(attrs: SharingLinkWrite['attributes']) {
  const { sharing_password, ip_whitelist, ...rest } = attrs;
  const cols: Partial<typeof dashboardSharingLinks.$inferInsert> = { ...rest };
  if (sharing_password !== undefined) cols.sharing_password_hash = sharing_password === null ? null : await hashPassword(sharing_password);
  if (ip_whitelist !== undefined) {
    const parsed = ip_whitelist === null ? ({ ok: true, value: null } as const) : parseIpWhitelist(ip_whitelist);
    cols.ip_whitelist = parsed.ok ? parsed.value : null;
  }
  return cols;
}

/** Audit details: attribute names only (the password is never logged). */
const auditDetails = (body: SharingLinkWrite) => changed(body.attributes, body.relationships);

export async function createSharingLink({ ctx, input: body }: { ctx: ServiceContext; input: SharingLinkWrite }) {
  const dashboardId = body.relationships.dashboard as string;
  requirePermission(ctx.principal, 'manage_dashboards', { type: 'dashboards', id: dashboardId });
  const [dash] = await ctx.db
    .select({ id: dashboards.id })
    .from(dashboards)
    .where(and(eq(dashboards.id, dashboardId), visibleDashboards(ctx.principal)))
    .limit(1);
  if (!dash) {
    throw new ApiError('invalid_relationship', `No dashboard with id "${dashboardId}" exists in this organization.`, {
      source: { pointer: '/data/relationships/dashboard/data/id' },
    });
  }
  const a = body.attributes;
  checkFilterBar(
    {
      toolbar_enabled: a.toolbar_enabled ?? true,
      parameters_enabled: a.parameters_enabled ?? false,
      filter_bar_enabled: a.filter_bar_enabled ?? false,
    },
    a,
  );
  const id = newId('dashboard_sharing_link');
  await ctx.db.insert(dashboardSharingLinks).values({
    ...(await toColumns(a)),
    name: a.name!,
    id,
    organization_id: ctx.principal.organizationId,
    dashboard_id: dashboardId,
    token: newLinkToken(),
  });
  await audit(ctx, 'create', 'dashboard_sharing_links', id, auditDetails(body));
  return getSharingLink({ ctx, id, include: new Set() });
}

/**
 * Writes only the attributes sent. The switch rule is checked against the stored values inside a
 * transaction holding the row (SELECT … FOR UPDATE), so two concurrent updates can never combine into
 * a filter bar without toolbar or parameters.
 */
export async function updateSharingLink({ ctx, id, input: body }: { ctx: ServiceContext; id: string; input: SharingLinkWrite }) {
  await findLink(ctx, id);
  const cols = await toColumns(body.attributes);
  const org = ctx.principal.organizationId;
  await withTransaction(ctx, async ({ tx, audit }) => {
    const [cur] = await tx
      .select({
        toolbar_enabled: dashboardSharingLinks.toolbar_enabled,
        parameters_enabled: dashboardSharingLinks.parameters_enabled,
        filter_bar_enabled: dashboardSharingLinks.filter_bar_enabled,
      })
      .from(dashboardSharingLinks)
      .where(and(eq(dashboardSharingLinks.id, id), eq(dashboardSharingLinks.organization_id, org)))
      .for('update');
    if (!cur) throw notFound('dashboard sharing link', id);
    checkFilterBar({ ...cur, ...pick(body.attributes, ['toolbar_enabled', 'parameters_enabled', 'filter_bar_enabled']) }, body.attributes);
    await tx
      .update(dashboardSharingLinks)
      .set({ ...cols, updated_at: new Date() })
      .where(and(eq(dashboardSharingLinks.id, id), eq(dashboardSharingLinks.organization_id, org)));
    await audit('update', 'dashboard_sharing_links', id, auditDetails(body));
  });
  return getSharingLink({ ctx, id, include: new Set() });
}

/** The switches a request sets (left out when not sent, so the stored values stand). */
function pick(o: Record<string, unknown>, keys: string[]): Record<string, boolean> {
  return Object.fromEntries(keys.filter((k) => typeof o[k] === 'boolean').map((k) => [k, o[k] as boolean]));
}

export async function deleteSharingLink({ ctx, id }: { ctx: ServiceContext; id: string }) {
  await findLink(ctx, id);
  await ctx.db
    .delete(dashboardSharingLinks)
    .where(and(eq(dashboardSharingLinks.id, id), eq(dashboardSharingLinks.organization_id, ctx.principal.organizationId)));
  await audit(ctx, 'delete', 'dashboard_sharing_links', id);
}
