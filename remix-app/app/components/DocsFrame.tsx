import type { ReactNode } from 'react';
import { Link, NavLink } from 'react-router';
import { Logo } from './Logo';
import { ThemeToggle } from './ThemeToggle';

export const API_DOCS_PATH = '/api/v2024-06-01';

export function DocsNavbar() {
  return (
    <header className="topbar topbar--docs">
      <Link to="/" className="brand">
        <Logo /> <span>Cairn</span> <span className="brand__tag">Docs</span>
      </Link>
      <nav aria-label="Documentation" className="topbar__nav">
        <NavLink to="/" end className="topbar__link">User Docs</NavLink>
        <NavLink to={API_DOCS_PATH} className="topbar__link">API Docs</NavLink>
      </nav>
      <div className="topbar__right">
        <ThemeToggle />
        <a href="/app/" className="button button--primary button--small">Open the app</a>
      </div>
    </header>
  );
}

export function DocsFooter() {
  return (
    <footer className="docs-footer">
      <nav aria-label="Footer" className="docs-footer__links">
        <a href="/app/login">Sign in to Cairn</a>
        <Link to="/">User Docs</Link>
        <Link to={API_DOCS_PATH}>API Docs</Link>
      </nav>
      <p>Copyright © {new Date().getFullYear()} Cairn contributors.</p>
    </footer>
  );
}

export function DocsFrame({ sidebar, children }: { sidebar?: ReactNode; children: ReactNode }) {
  return (
    <div className="docs-shell">
      <DocsNavbar />
      <div className="docs-body">
        {sidebar}
        <div className="docs-main">{children}</div>
      </div>
      <DocsFooter />
    </div>
  );
}
