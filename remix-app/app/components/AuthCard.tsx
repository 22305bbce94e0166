import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { Logo } from './Logo';

/** The frame of the signed-out pages (sign-in, invitation, forgot and reset password): brand, card, optional foot line. */
export function AuthCard({ children, foot }: { children: ReactNode; foot?: ReactNode }) {
  return (
    <main className="auth-page">
      <div className="auth-card">
        <Link to="/" className="brand brand--large">
          <Logo size={30} /> <span>Cairn</span>
        </Link>
        {children}
      </div>
      {foot ? <p className="auth-page__foot">{foot}</p> : null}
    </main>
  );
}
