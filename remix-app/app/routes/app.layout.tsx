import { useEffect, useRef, useState } from 'react';
import { Form, Link, NavLink, Outlet, redirect, useLocation } from 'react-router';
import type { Route } from './+types/app.layout';
import { ErrorPage } from '../components/ErrorPage';
import { Logo } from '../components/Logo';
import { ThemeScope } from '../components/ThemeScope';
import { ThemeToggle } from '../components/ThemeToggle';
import { requireApi, TWO_FACTOR_SETUP_PATH } from '../lib/api.server';
import { displayName, loadSession } from '../lib/session-info.server';
import { useDismiss } from '../lib/use-dismiss';
import '../components/layout/topbar-menu.css';

export async function loader({ request, context }: Route.LoaderArgs) {
  const session = await loadSession(requireApi(request, context));
  // Nothing of the app until the organization's required two-factor authentication is set up (D65).
  if (session.two_factor_enrolment_required) throw redirect(TWO_FACTOR_SETUP_PATH);
  return {
    user: { name: displayName(session.user), email: session.user.email, role: session.user.role },
    organization: { name: session.organization.name, region: session.organization.region },
  };
}

function AppHeader({ user, organization }: { user?: Route.ComponentProps['loaderData']['user']; organization?: { name: string; region: string } }) {
  // Below 768 px the navigation is behind a menu button (CSS decides; the button does nothing wider).
  const [open, setOpen] = useState(false);
  const ref = useRef<HTMLDivElement>(null);
  useDismiss(open, ref, () => setOpen(false));
  const { pathname } = useLocation();
  useEffect(() => setOpen(false), [pathname]);
  return (
    <header className="topbar topbar--app">
      <Link to="/app/" className="brand">
        <Logo /> <span>Cairn</span>
      </Link>
      {organization ? (
        <span className="org-chip" title={`Region ${organization.region.toUpperCase()}`}>
          {organization.name}
          <span className="org-chip__region">{organization.region.toUpperCase()}</span>
        </span>
      ) : null}
      <div className="topbar__menu" ref={ref}>
        <button
          type="button"
          className="button button--ghost topbar__menu-button"
          aria-expanded={open}
          aria-controls="app-nav"
          onClick={() => setOpen((o) => !o)}
          data-testid="topbar-menu-button"
        >
          ☰<span className="visually-hidden"> Menu</span>
        </button>
        <nav aria-label="App" id="app-nav" className={`topbar__nav${open ? ' is-open' : ''}`} data-testid="topbar-nav">
          <NavLink to="/app/" end className="topbar__link">
            Dashboards
          </NavLink>
          {user?.role === 'admin' || user?.role === 'analyst' ? (
            <NavLink to="/app/datasources" className="topbar__link">
              Datasources
            </NavLink>
          ) : null}
          {user?.role === 'admin' ? (
            <NavLink to="/app/administration/organization" className="topbar__link">
              Organization
            </NavLink>
          ) : null}
          <NavLink to="/" className="topbar__link">
            Docs
          </NavLink>
        </nav>
      </div>
      <div className="topbar__right">
        <ThemeToggle />
        {user ? (
          <>
            <Link to="/app/account" className="user-chip" title={`${user.email} · Personal settings`} data-testid="user-chip">
              <span className="user-chip__avatar" aria-hidden="true">
                {user.name.slice(0, 1).toUpperCase()}
              </span>
              <span className="user-chip__name">{user.name}</span>
            </Link>
            <Form method="post" action="/app/logout">
              <button type="submit" className="button button--ghost button--small">
                Sign out
              </button>
            </Form>
          </>
        ) : null}
      </div>
    </header>
  );
}

export default function AppLayout({ loaderData }: Route.ComponentProps) {
  return (
    <ThemeScope>
      <div className="app-shell">
        <AppHeader user={loaderData.user} organization={loaderData.organization} />
        <Outlet />
      </div>
    </ThemeScope>
  );
}

export function ErrorBoundary({ error }: Route.ErrorBoundaryProps) {
  return (
    <ThemeScope>
      <div className="app-shell">
        <AppHeader />
        <ErrorPage error={error} home={{ href: '/app/', label: 'Back to dashboards' }} />
      </div>
    </ThemeScope>
  );
}
