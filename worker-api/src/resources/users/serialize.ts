import type { users } from '@cairn/db';
import { resource } from '../../lib/jsonapi.ts';

/** `otp_*` fields only for callers with Manage Users; the password hash and tokens never. */
export function serializeUser(baseUrl: string, u: typeof users.$inferSelect, opts: { showOtp: boolean }) {
  const attributes: Record<string, unknown> = {
    firstname: u.firstname,
    lastname: u.lastname,
    email: u.email,
    role: u.role,
    created_at: u.created_at.toISOString(),
    deactivated_at: u.deactivated_at?.toISOString() ?? null,
    invitation_created_at: u.invitation_created_at?.toISOString() ?? null,
    invitation_accepted_at: u.invitation_accepted_at?.toISOString() ?? null,
  };
  if (opts.showOtp) {
    attributes.otp_app_enabled = u.otp_app_enabled;
    attributes.otp_phone_enabled = u.otp_phone_enabled;
  }
  return resource(baseUrl, 'users', u.id, attributes);
}
