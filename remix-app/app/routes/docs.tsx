import { data, isRouteErrorResponse, NavLink, redirect } from 'react-router';
import type { Route } from './+types/docs';
import { DocsFrame } from '../components/DocsFrame';
import { ErrorPage } from '../components/ErrorPage';
import { canonicalDocPath, docSidebar, loadDocPage, type SidebarGroups } from '../lib/docs.server';

export async function loader({ request }: Route.LoaderArgs) {
  const url = new URL(request.url);
  let pathname: string;
  try {
    pathname = decodeURIComponent(url.pathname);
  } catch {
    throw data({ message: `Pathname "${url.pathname}" could not be decoded. It contains an invalid percent-encoding.` }, { status: 400 });
  }
  const canonical = canonicalDocPath(url.pathname);
  if (canonical !== null) throw redirect(canonical + url.search, 301);
  const page = await loadDocPage(pathname);
  const nav: SidebarGroups = docSidebar();
  if (!page) throw data({ message: `No documentation page lives at ${pathname}.`, nav }, { status: 404 });
  return { page, nav };
}

export function meta({ data }: Route.MetaArgs) {
  if (!data) return [{ title: 'Page not found · Cairn Docs' }];
  const tags = [{ title: `${data.page.title} · Cairn Docs` }];
  return data.page.description ? [...tags, { name: 'description', content: data.page.description }] : tags;
}

function Sidebar({ nav }: { nav: SidebarGroups }) {
  if (nav.length === 0) return null;
  return (
    <aside className="docs-sidebar" aria-label="Documentation pages">
      <nav>
        {nav.map((group) => (
          <div key={group.label} className="docs-sidebar__group">
            <p className="docs-sidebar__label">{group.label}</p>
            <ul>
              {group.items.map((item) => (
                <li key={item.route}>
                  <NavLink to={item.route} end className="docs-sidebar__link">{item.title}</NavLink>
                </li>
              ))}
            </ul>
          </div>
        ))}
      </nav>
    </aside>
  );
}

export default function DocsPage({ loaderData }: Route.ComponentProps) {
  const { page, nav } = loaderData;
  return (
    <DocsFrame sidebar={<Sidebar nav={nav} />}>
      <div className="docs-content">
        <article className="prose">
          {/* The page's h1 normally comes with its html; a page without one gets its title. */}
          {/<h1[\s>]/i.test(page.html) ? null : <h1>{page.title}</h1>}
          <div dangerouslySetInnerHTML={{ __html: page.html }} />
        </article>
        {page.toc.length > 0 ? (
          <nav className="docs-toc" aria-label="On this page">
            <p className="docs-toc__title">On this page</p>
            <ul>
              {page.toc.map((h) => (
                <li key={h.id} className={`docs-toc__item docs-toc__item--h${h.depth}`}>
                  <a href={`#${h.id}`}>{h.title}</a>
                </li>
              ))}
            </ul>
          </nav>
        ) : null}
      </div>
    </DocsFrame>
  );
}

export function ErrorBoundary({ error }: Route.ErrorBoundaryProps) {
  const nav = isRouteErrorResponse(error) ? ((error.data as { nav?: SidebarGroups })?.nav ?? []) : [];
  return (
    <DocsFrame sidebar={<Sidebar nav={nav} />}>
      <ErrorPage error={error} home={{ href: '/', label: 'Back to the documentation' }} />
    </DocsFrame>
  );
}
