/** What the personal-settings and password-reset pages share: action answers and session labels. */
import { errorsByField, type ApiErrorItem } from './editor-forms.ts';

export type AccountIntent = 'name' | 'password' | 'sessions' | 'two-factor';

/** A new authenticator secret while it waits for its first code (POST /auth/two-factor). */
export interface TwoFactorEnrolment {
  secret: string;
  otpauth_uri: string;
}

/** Two-factor answers also carry the enrolment in progress or the recovery codes, shown once. */
interface TwoFactorExtras {
  enrolment?: TwoFactorEnrolment;
  recovery_codes?: string[];
}

export type AccountAnswer =
  | ({ ok: true; intent: AccountIntent; message: string } & TwoFactorExtras)
  | ({ ok: false; intent: AccountIntent; errors: Record<string, string[]> } & TwoFactorExtras);

/** An API answer as the form shows it: a message when it worked, else the API's errors by field. */
export function accountAnswer(intent: AccountIntent, res: { status: number; body: unknown }, okMessage: string): AccountAnswer {
  if (res.status >= 200 && res.status < 300) return { ok: true, intent, message: okMessage };
  const errors = (res.body as { errors?: ApiErrorItem[] } | null)?.errors;
  const byField = errorsByField(errors?.length ? errors : [{ detail: `The request failed with status ${res.status}.` }]);
  // Shown under its field, a message need not name the field again ("new_password: must be…").
  for (const [field, messages] of Object.entries(byField)) byField[field] = messages.map((m) => (m.startsWith(`${field}: `) ? m.slice(field.length + 2) : m));
  return { ok: false, intent, errors: byField };
}

/** A refusal of the app itself (not the API's) on one field, in the same shape. */
export function fieldProblem(intent: AccountIntent, field: string, message: string): AccountAnswer {
  return { ok: false, intent, errors: { [field]: [message] } };
}

/** "Firefox on Linux" from a User-Agent header; "Unknown browser" when it says nothing recognisable. */
export function browserOf(userAgent: string | null | undefined): string {
  const ua = userAgent ?? '';
  const browser = /Edg\//.test(ua) ? 'Edge' : /Firefox\//.test(ua) ? 'Firefox' : /Chrom(e|ium)\//.test(ua) ? 'Chrome' : /Safari\//.test(ua) ? 'Safari' : null;
  const os = /Android/.test(ua)
    ? 'Android'
    : /iPhone|iPad/.test(ua)
      ? 'iOS'
      : /Windows/.test(ua)
        ? 'Windows'
        : /Mac OS X|Macintosh/.test(ua)
          ? 'macOS'
          : /Linux/.test(ua)
            ? 'Linux'
            : null;
  if (!browser) return os ? `Unknown browser on ${os}` : 'Unknown browser';
  return os ? `${browser} on ${os}` : browser;
}
