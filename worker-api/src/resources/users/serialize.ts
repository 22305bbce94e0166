import type { users } from '@cairn/db';
import { resource, toMany, toOne } from '../../lib/jsonapi.ts';

type UserRow = typeof users.$inferSelect;

const userStatus = (u: UserRow) => (u.deactivated_at ? 'deactivated' : u.invitation_created_at && !u.invitation_accepted_at ? 'invited' : 'active');

/** `otp_*` fields only for callers with Manage Users; the password hash and tokens never. */
export function serializeUser(baseUrl: string, u: UserRow, opts: { showOtp: boolean; groupIds?: string[] }) {
  const attributes: Record<string, unknown> = {
    firstname: u.firstname,
    lastname: u.lastname,
    email: u.email,
    role: u.role,
    status: userStatus(u),
    created_at: u.created_at.toISOString(),
    deactivated_at: u.deactivated_at?.toISOString() ?? null,
    invitation_created_at: u.invitation_created_at?.toISOString() ?? null,
    invitation_accepted_at: u.invitation_accepted_at?.toISOString() ?? null,
  };
  if (opts.showOtp) {
    attributes.otp_app_enabled = u.otp_app_enabled;
    attributes.otp_phone_enabled = u.otp_phone_enabled;
  }
  return resource(baseUrl, 'users', u.id, attributes, {
    ...(opts.groupIds ? { user_groups: toMany('user_groups', opts.groupIds) } : {}),
    invited_by_user: toOne('users', u.invited_by_user_id),
  });
}
