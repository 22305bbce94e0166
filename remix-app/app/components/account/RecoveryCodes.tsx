/** The recovery codes, shown once right after two-factor authentication was turned on. */
import { CopyButton } from '../admin/ui';

export function RecoveryCodes({ codes }: { codes: string[] }) {
  return (
    <div className="alert alert--success two-factor-recovery" role="status" data-testid="two-factor-recovery">
      <p>
        <strong>Two-factor authentication is on.</strong> Keep these recovery codes somewhere safe: each one signs you in once without your app. They are not
        shown again.
      </p>
      <ul className="two-factor-codes">
        {codes.map((c) => (
          <li key={c}>
            <code data-testid="two-factor-recovery-code">{c}</code>
          </li>
        ))}
      </ul>
      <CopyButton text={codes.join('\n')} label="Copy codes" testId="two-factor-copy-codes" />
    </div>
  );
}
