/**
 * Setting up an authenticator app: a QR code of the otpauth:// link (drawn in the page), the new secret
 * (in groups of four, to type in) and the link itself (to open or paste), then the first code, which
 * turns two-factor authentication on.
 */
import { Form } from 'react-router';
import { groupSecret } from '@cairn/core/totp';
import type { TwoFactorEnrolment } from '../../lib/account';
import { CopyButton } from '../admin/ui';
import { CodeField } from './CodeField';
import { QrCode } from './QrCode';

export function TwoFactorEnrol({ enrolment, errors, busy }: { enrolment: TwoFactorEnrolment; errors: Record<string, string[]> | undefined; busy: boolean }) {
  return (
    <Form method="post" className="card account-form" aria-label="Set up two-factor authentication" data-testid="two-factor-enrol">
      <input type="hidden" name="intent" value="two-factor-confirm" />
      <input type="hidden" name="secret" value={enrolment.secret} />
      <input type="hidden" name="otpauth_uri" value={enrolment.otpauth_uri} />
      <ol className="two-factor-steps">
        <li>
          In your authenticator app, add an account and scan this code (it is drawn by this page; the key is sent nowhere else):
          <div className="two-factor-qr">
            <QrCode text={enrolment.otpauth_uri} label="QR code of the setup link for your authenticator app" testId="two-factor-qr" />
          </div>
          Or enter this key (time-based):
          <div className="two-factor-secret">
            <code data-testid="two-factor-secret">{groupSecret(enrolment.secret)}</code>
            <CopyButton text={enrolment.secret} label="Copy key" testId="two-factor-copy-secret" />
          </div>
          <span className="muted small">
            Or open the{' '}
            <a href={enrolment.otpauth_uri} data-testid="two-factor-uri-link">
              setup link
            </a>{' '}
            on a device with the app:{' '}
            <code className="two-factor-uri" data-testid="two-factor-uri">
              {enrolment.otpauth_uri}
            </code>
          </span>
        </li>
        <li>Enter the 6-digit code the app shows to finish.</li>
      </ol>
      <CodeField errors={errors} testId="two-factor-confirm" allowRecovery={false} autoFocus />
      <div className="form-actions">
        <button type="submit" className="button button--primary" disabled={busy}>
          {busy ? 'Checking…' : 'Turn on'}
        </button>
      </div>
    </Form>
  );
}
