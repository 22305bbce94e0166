import { eq, sql as dsql } from 'drizzle-orm';
import { ApiError, hashPassword, isRegion, newId, type Region } from '@cairn/core';
import { datasources, organizations, userGroupMembers, userGroups, users } from '../schema/index.ts';
import type { Db } from '../client.ts';
import { SAMPLE_SHOP_SCHEMA } from '../sample-shop/constants.ts';
import { audit, pgErrorCode, SYSTEM_ACTOR, type Actor } from './audit.ts';
import { createSampleDashboard, type SampleDashboard } from './sample-dashboard.ts';

export type OrganizationRow = typeof organizations.$inferSelect;
export type UserRow = typeof users.$inferSelect;
export type DatasourceRow = typeof datasources.$inferSelect;

export interface CreateOrganizationInput {
  name: string;
  region?: Region;
  adminEmail: string;
  /** A readable random password is generated (and returned) when omitted. */
  adminPassword?: string;
  adminFirstname?: string;
  adminLastname?: string;
}

export interface CreateOrganizationResult {
  organization: OrganizationRow;
  admin: UserRow;
  /** The admin's password in clear text: the given one or the generated one. Not stored anywhere. */
  adminPassword: string;
  sampleDatasource: DatasourceRow;
  sampleDashboard: SampleDashboard;
}

export const SAMPLE_DATASOURCE_NAME = 'Sample data';
export const MIN_PASSWORD_LENGTH = 8;
const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Letters and digits that cannot be mistaken for one another (no 0/O, 1/l/I). */
const READABLE = 'abcdefghjkmnpqrstuvwxyz23456789';

/** A random password in four dash-separated groups of five readable characters (about 99 bits). */
export function generateReadablePassword(): string {
  const out: string[] = [];
  const bytes = new Uint8Array(64);
  while (out.length < 20) {
    crypto.getRandomValues(bytes);
    for (const b of bytes) {
      // 248 = 8 * 31: rejecting larger bytes keeps the draw uniform.
      if (b < 248 && out.length < 20) out.push(READABLE[b % READABLE.length]!);
    }
  }
  return [0, 5, 10, 15].map((i) => out.slice(i, i + 5).join('')).join('-');
}

function validate(input: CreateOrganizationInput): { name: string; email: string; region: Region } {
  const problems: ApiError[] = [];
  const name = typeof input.name === 'string' ? input.name.trim() : '';
  if (!name) problems.push(new ApiError('invalid_attribute', 'The organization name must not be empty.'));
  else if (name.length > 200) problems.push(new ApiError('invalid_attribute', 'The organization name is longer than 200 characters.'));
  const email = typeof input.adminEmail === 'string' ? input.adminEmail.trim() : '';
  if (!EMAIL_RE.test(email)) problems.push(new ApiError('invalid_attribute', `"${email}" is not a valid email address.`));
  const region = input.region ?? 'eu';
  if (!isRegion(region)) problems.push(new ApiError('invalid_attribute', `Unknown region "${String(region)}"; use eu or us.`));
  if (input.adminPassword !== undefined && input.adminPassword.length < MIN_PASSWORD_LENGTH) {
    problems.push(new ApiError('invalid_attribute', `The admin password must have at least ${MIN_PASSWORD_LENGTH} characters.`));
  }
  if (problems.length > 0) {
    const [first, ...more] = problems;
    throw new ApiError(first!.code, first!.message, { more });
  }
  return { name, email, region };
}

/**
 * Creates an organization (no seat or datasource limit) with its admin, the built-in groups "All Users" and
 * "All Analysts" (the admin a member of both), the "Sample data" datasource and the sample dashboard.
 * One transaction; every created row gets an audit entry. Throws ApiError invalid_attribute for bad input
 * and conflict when a user with that email already exists.
 */
export async function createOrganization(db: Db, input: CreateOrganizationInput, opts: { actor?: Actor } = {}): Promise<CreateOrganizationResult> {
  const actor = opts.actor ?? SYSTEM_ACTOR;
  const { name, email, region } = validate(input);
  const adminPassword = input.adminPassword ?? generateReadablePassword();
  const passwordHash = await hashPassword(adminPassword);

  const taken = await db
    .select({ id: users.id })
    .from(users)
    .where(eq(dsql`lower(${users.email})`, email.toLowerCase()))
    .limit(1);
  if (taken.length > 0) throw new ApiError('conflict', `A user with the email ${email} already exists.`);

  try {
    return await db.transaction(async (tx) => {
      const [organization] = await tx
        .insert(organizations)
        .values({ id: newId('organization'), name, region })
        .returning();
      const orgId = organization!.id;
      const log = (resourceType: string, resourceId: string, details?: Record<string, unknown>) =>
        audit(tx, actor, { organizationId: orgId, action: 'create', resourceType, resourceId, details });
      await log('organization', orgId, { name, region });

      const [admin] = await tx
        .insert(users)
        .values({
          id: newId('user'),
          organization_id: orgId,
          email,
          firstname: input.adminFirstname?.trim() ?? '',
          lastname: input.adminLastname?.trim() ?? '',
          role: 'admin',
          password_hash: passwordHash,
        })
        .returning();
      await log('user', admin!.id, { email, role: 'admin' });

      const groups = await tx
        .insert(userGroups)
        .values([
          { id: newId('user_group'), organization_id: orgId, name: 'All Users', built_in_behavior: 'all_users' as const },
          { id: newId('user_group'), organization_id: orgId, name: 'All Analysts', built_in_behavior: 'all_analysts' as const },
        ])
        .returning();
      for (const g of groups) await log('user_group', g.id, { name: g.name });
      await tx.insert(userGroupMembers).values(groups.map((g) => ({ organization_id: orgId, user_group_id: g.id, user_id: admin!.id })));

      const [sampleDatasource] = await tx
        .insert(datasources)
        .values({
          id: newId('datasource'),
          organization_id: orgId,
          name: SAMPLE_DATASOURCE_NAME,
          database_type: 'postgres',
          connection_mode: 'direct',
          is_sample: true,
          default_schema_name: SAMPLE_SHOP_SCHEMA,
          included_schemas: [SAMPLE_SHOP_SCHEMA],
          data_time_zone: 'UTC',
        })
        .returning();
      await log('datasource', sampleDatasource!.id, { name: SAMPLE_DATASOURCE_NAME, is_sample: true });

      const sampleDashboard = await createSampleDashboard(tx, actor, {
        organizationId: orgId,
        ownerUserId: admin!.id,
        datasourceId: sampleDatasource!.id,
      });
      return { organization: organization!, admin: admin!, adminPassword, sampleDatasource: sampleDatasource!, sampleDashboard };
    });
  } catch (err) {
    // Another writer took the email between the check and the insert.
    if (pgErrorCode(err) === '23505') throw new ApiError('conflict', `A user with the email ${email} already exists.`);
    throw err;
  }
}
