/**
 * The rule of "require two-factor authentication" (D65), apart from the routes (org-security.ts) so that
 * authenticate.ts can apply it without importing them.
 */
import { eq } from 'drizzle-orm';
import { ApiError } from '@cairn/core';
import { sessions, type organizations, type users } from '@cairn/db';
import type { PooledDb } from '../lib/db.ts';

export type Settings = Record<string, unknown> | null | undefined;
type SessionRow = Pick<typeof sessions.$inferSelect, 'sign_in_method'>;

/** The organization's setting, kept in `organizations.settings` (no column: one boolean). */
export const requiresTwoFactor = (settings: Settings) => settings?.require_two_factor === true;

/** Whether this session must enrol in two-factor authentication before it may do anything else. */
export function mustEnrol(settings: Settings, user: Pick<typeof users.$inferSelect, 'otp_app_enabled'>, session: SessionRow): boolean {
  if (!requiresTwoFactor(settings) || user.otp_app_enabled) return false;
  return session.sign_in_method !== 'oidc' && session.sign_in_method !== 'saml';
}

/** What a session that must enrol may still call: its own session, signing out, and the enrolment. */
const ENROLMENT_ROUTES = new Set([
  'GET /auth/session',
  'DELETE /auth/session',
  'GET /auth/two-factor',
  'POST /auth/two-factor',
  'POST /auth/two-factor/confirm',
]);

/** Called by authenticate for a session that must enrol: anything but the enrolment calls is a 403. */
export function refuseUntilEnrolled(method: string, path: string): void {
  if (ENROLMENT_ROUTES.has(`${method} ${path}`)) return;
  throw new ApiError('forbidden', 'Your organization requires two-factor authentication: set up an authenticator app first (POST /auth/two-factor).', {
    meta: { reason: 'two_factor_enrolment_required' },
  });
}

/** For `GET /auth/session`: the same rule, read for the caller's session. */
export async function enrolmentRequiredFor(
  db: PooledDb,
  org: typeof organizations.$inferSelect,
  user: typeof users.$inferSelect,
  sessionId: string,
): Promise<boolean> {
  if (!requiresTwoFactor(org.settings) || user.otp_app_enabled) return false;
  const [s] = await db.select({ sign_in_method: sessions.sign_in_method }).from(sessions).where(eq(sessions.id, sessionId)).limit(1);
  return s ? mustEnrol(org.settings, user, s) : false;
}
