import type { Context } from 'hono';
import { and, eq, ne, sql } from 'drizzle-orm';
import { ApiError, newId } from '@cairn/core';
import { auditLog, organizations, userGroupMembers, users } from '@cairn/db';
import type { AppEnv } from '../../env.ts';
import { signedIn } from '../session-start.ts';
import { emailInDomains, loadConnection, connectionForEmail, type SsoConnection } from './connection.ts';
import { ssoRefused } from './refusal.ts';

/**
 * The end of every SSO sign-in: the verified e-mail address becomes a session of the connection's
 * organization — its existing user, or one created just in time (JIT) when the connection allows it.
 */
export async function finishSsoSignIn(
  c: Context<AppEnv>,
  conn: SsoConnection,
  who: { email: string; firstname?: string; lastname?: string },
  method: 'oidc' | 'saml',
  next: string | null,
) {
  const db = c.var.db;
  const email = who.email.trim();
  const org = conn.organization_id;
  if (!emailInDomains(conn, email)) {
    throw ssoRefused(`${email} is not in the e-mail domains this organization's single sign-on covers (${conn.domains.join(', ')}).`, 'email_outside_domains');
  }
  let [user] = await db
    .select()
    .from(users)
    .where(and(eq(users.organization_id, org), eq(sql`lower(${users.email})`, email.toLowerCase())))
    .limit(1);
  if (user?.deactivated_at) throw ssoRefused(`The account ${email} is deactivated in this organization; ask an administrator.`, 'user_deactivated');
  if (user && user.invitation_created_at && !user.invitation_accepted_at) {
    // Signing in through the organization's own identity provider accepts a pending invitation.
    [user] = await db
      .update(users)
      .set({ invitation_accepted_at: new Date(), invitation_token_hash: null, updated_at: new Date() })
      .where(eq(users.id, user.id))
      .returning();
  }
  if (!user) {
    const [elsewhere] = await db
      .select({ id: users.id })
      .from(users)
      .where(and(ne(users.organization_id, org), eq(sql`lower(${users.email})`, email.toLowerCase())))
      .limit(1);
    if (elsewhere) throw ssoRefused(`${email} already belongs to another Cairn organization.`, 'email_taken');
    if (!conn.jit_role) throw ssoRefused(`${email} has no account in this organization; ask an administrator to invite you.`, 'no_account');
    const id = newId('user');
    await c.var.direct().db.transaction(async (tx) => {
      if (conn.jit_role !== 'viewer') {
        const [row] = (await tx.execute(sql`select o.plan_analyst_seats as seats, (select count(*)::int from users u where u.organization_id = o.id
          and u.role in ('analyst', 'admin') and u.deactivated_at is null) as used from organizations o where o.id = ${org} for update`)) as unknown as {
          seats: number | null;
          used: number;
        }[];
        if (row && row.seats !== null && row.used >= row.seats)
          throw ssoRefused('All analyst seats of this organization are taken; ask an administrator.', 'plan_limit');
      }
      await tx.insert(users).values({
        id,
        organization_id: org,
        email,
        firstname: who.firstname?.slice(0, 200) ?? '',
        lastname: who.lastname?.slice(0, 200) ?? '',
        role: conn.jit_role!,
      });
      if (conn.jit_group_ids.length) {
        await tx.insert(userGroupMembers).values(conn.jit_group_ids.map((g) => ({ organization_id: org, user_group_id: g, user_id: id })));
      }
      await tx.insert(auditLog).values({
        organization_id: org,
        actor_type: 'system',
        actor_id: null,
        action: 'create',
        resource_type: 'users',
        resource_id: id,
        request_id: c.var.requestId,
        details: { via: `sso_${method}`, role: conn.jit_role, user_groups: conn.jit_group_ids },
      });
    });
    [user] = await db.select().from(users).where(eq(users.id, id)).limit(1);
  }
  return signedIn(c, user!, method, { next });
}

/**
 * With "require single sign-on", passwords are refused for the organization's users and for every
 * address in its domains: answered before the password is checked, so it tells nothing about accounts.
 */
export async function requireSsoRefusal(c: Context<AppEnv>, email: string, organizationId?: string): Promise<ApiError | null> {
  const conn = organizationId ? await loadConnection(c.var.db, organizationId) : await connectionForEmail(c.var.db, email);
  if (!conn?.require_sso) return null;
  const [org] = await c.var.db.select({ name: organizations.name }).from(organizations).where(eq(organizations.id, conn.organization_id));
  return new ApiError(
    'forbidden',
    `${org?.name ?? 'Your organization'} requires single sign-on: passwords are not used for this account. Choose "Continue with single sign-on".`,
    {
      meta: { reason: 'sso_required' },
    },
  );
}
