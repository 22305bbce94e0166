/**
 * The account actions that more than one page runs (personal settings, and the enrolment page an
 * organization's 2FA requirement leads to): one API call each, answered in the forms' shape.
 */
import type { ApiClient } from './api.server';
import { accountAnswer, type AccountAnswer, type TwoFactorEnrolment } from './account';

export type AccountCall = (method: string, path: string, body?: unknown) => Promise<{ status: number; body: unknown }>;

/** Calls the API for an account form; a session that ended meanwhile goes to the sign-in page, as everywhere in the app. */
export function accountCaller(api: ApiClient): AccountCall {
  return async (method, path, body) => {
    const res = await api.raw(method, path, body === undefined ? {} : { body });
    if (res.status === 401) throw api.toResponse({ status: 401, code: 'unauthorized', message: '' });
    return res;
  };
}

/** Starts enrolment: a new secret for the authenticator app (not on until a code confirms it). */
export async function startTwoFactor(call: AccountCall, okMessage: string): Promise<AccountAnswer> {
  const res = await call('POST', '/auth/two-factor');
  const out = accountAnswer('two-factor', res, okMessage);
  if (out.ok) out.enrolment = res.body as TwoFactorEnrolment;
  return out;
}

/**
 * Confirms enrolment with the app's first code: the recovery codes come back (shown once). A wrong code
 * keeps the secret on the page from the form (the API does not show it again).
 */
export async function confirmTwoFactor(call: AccountCall, form: { code: string; secret: string; otpauth_uri: string }): Promise<AccountAnswer> {
  const res = await call('POST', '/auth/two-factor/confirm', { code: form.code });
  const out = accountAnswer('two-factor', res, 'Two-factor authentication is on.');
  if (out.ok) out.recovery_codes = (res.body as { recovery_codes: string[] }).recovery_codes;
  else out.enrolment = { secret: form.secret, otpauth_uri: form.otpauth_uri };
  return out;
}
