/** Breadcrumbs above a page and the previous/next links below it, both from the docs sidebar. */
import { Link, useRouteLoaderData } from 'react-router';
import type { SidebarGroupData } from './navbar/resolve';

function useSidebar(): SidebarGroupData[] {
  return useRouteLoaderData<{ sidebar: SidebarGroupData[] }>('docs-layout')?.sidebar ?? [];
}

export function Breadcrumbs({ route }: { route: string }) {
  const sidebar = useSidebar();
  if (route === '/') return null;
  const group = sidebar.find((g) => g.items.some((i) => i.route === route));
  const page = group?.items.find((i) => i.route === route);
  return (
    <nav aria-label="Breadcrumbs" className="breadcrumbs">
      <ol>
        <li>
          <Link to="/" aria-label="Documentation home" className="breadcrumbs__link">
            <svg width="16" height="16" viewBox="0 0 24 24" aria-hidden="true">
              <path
                d="M10 19v-5h4v5c0 .55.45 1 1 1h3c.55 0 1-.45 1-1v-7h1.7c.46 0 .68-.57.33-.87L12.67 3.6a1 1 0 0 0-1.34 0l-8.36 7.53c-.34.3-.13.87.33.87H5v7c0 .55.45 1 1 1h3c.55 0 1-.45 1-1z"
                fill="currentColor"
              />
            </svg>
          </Link>
        </li>
        {group ? <li className="breadcrumbs__item">{group.label}</li> : null}
        {page ? (
          <li className="breadcrumbs__item" aria-current="page">
            {page.title}
          </li>
        ) : null}
      </ol>
    </nav>
  );
}

export function Pagination({ route }: { route: string }) {
  const flat = useSidebar().flatMap((g) => g.items);
  const i = flat.findIndex((p) => p.route === route);
  if (i === -1) return null;
  const prev = flat[i - 1];
  const next = flat[i + 1];
  if (!prev && !next) return null;
  return (
    <nav aria-label="Docs pages" className="pagination-nav">
      {prev ? (
        <Link to={prev.route} prefetch="intent" className="pagination-nav__link pagination-nav__link--prev">
          <span className="pagination-nav__sublabel">Previous</span>
          <span className="pagination-nav__label">« {prev.title}</span>
        </Link>
      ) : (
        <span />
      )}
      {next ? (
        <Link to={next.route} prefetch="intent" className="pagination-nav__link pagination-nav__link--next">
          <span className="pagination-nav__sublabel">Next</span>
          <span className="pagination-nav__label">{next.title} »</span>
        </Link>
      ) : null}
    </nav>
  );
}
