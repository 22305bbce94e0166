import { Link } from 'react-router';
import { AuthCard } from './AuthCard';

/** The page an SSO sign-in ends on when it is refused: why, and the way back. */
export function SsoRefused({ error, reason }: { error: string; reason?: string | null }) {
  return (
    <AuthCard foot={<Link to="/">Documentation</Link>}>
      <h1>Single sign-on failed</h1>
      <div className="alert alert--error" role="alert" data-testid="sso-error" data-reason={reason ?? undefined}>
        {error}
      </div>
      <p>
        <Link to="/app/login" className="button button--block">
          Back to sign-in
        </Link>
      </p>
    </AuthCard>
  );
}
