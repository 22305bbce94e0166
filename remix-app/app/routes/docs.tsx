/** One docs page (every docs route is an exact path; see lib/docs-routing.ts). */
import { lazy, Suspense, useRef, type MouseEvent } from 'react';
import { data, isRouteErrorResponse, Link, redirect, useLocation, useNavigate, useRevalidator, useRouteLoaderData } from 'react-router';
import type { Route } from './+types/docs';
import type { loader as layoutLoader } from './docs.layout';
import { CrashPage, isLoadFailure, LoadFailure } from '../components/docs/CrashPage';
import { siteConfig } from '../components/docs/config';
import { docsNavigationTarget } from '../components/docs/links';
import { DOC_HTML_ATTRIBUTE, isDocumentRequest, keepServerHtml, pageHtml } from '../components/docs/pageHtml';
import { Breadcrumbs, Pagination } from '../components/docs/PageNav';
import { TocDesktop, TocMobile } from '../components/docs/toc/Toc';
import { classifyDocPath } from '../lib/docs-routing';
import { loadDocPage } from '../lib/docs.server';

// Only for pages whose diagrams the build could not draw (see docs/src/build/mermaid.ts).
const MermaidFallback = lazy(() => import('../components/docs/mermaid/MermaidFallback'));

export async function loader({ request }: Route.LoaderArgs) {
  const url = new URL(request.url);
  const target = classifyDocPath(url.pathname, url.search);
  if (target.kind === 'bad-path') throw data({ message: target.message }, { status: 400 });
  if (target.kind === 'redirect') throw redirect(target.location, 301);
  const page = await loadDocPage(target.route);
  if (!page) throw data({ message: `No documentation page lives at ${target.route}.` }, { status: 404 });
  const crash = url.searchParams.get('crash');
  if (!isDocumentRequest(request)) return { page, crash };
  keepServerHtml(page.route, page.html);
  return { page: { ...page, html: null }, crash };
}

export function meta({ data }: Route.MetaArgs) {
  if (!data) return [{ title: `Page not found | ${siteConfig.title}` }];
  const tags: Record<string, string>[] = [{ title: `${data.page.title} | ${siteConfig.title}` }];
  if (data.page.description) tags.push({ name: 'description', content: data.page.description });
  return tags;
}

declare global {
  interface Window {
    /** Test hook (DOCS_TEST_HOOKS=1 only): the next render of a docs page throws this message. */
    __CAIRN_DOCS_CRASH__?: string | null;
  }
}

/** Test hooks: `?crash=message` crashes the page everywhere, `window.__CAIRN_DOCS_CRASH__` in the browser. */
function useCrashHook(crash: string | null) {
  const layout = useRouteLoaderData<typeof layoutLoader>('docs-layout');
  if (!layout?.testHooks) return;
  const message = crash ?? (typeof window === 'undefined' ? null : (window.__CAIRN_DOCS_CRASH__ ?? null));
  if (message) {
    throw new Error(message, { cause: new Error('DOCS_TEST_HOOKS asked this page to crash while rendering.') });
  }
}

export default function DocPage({ loaderData }: Route.ComponentProps) {
  const { page, crash } = loaderData;
  useCrashHook(crash);
  const html = pageHtml(page.route, page.html);
  const navigate = useNavigate();
  const article = useRef<HTMLDivElement>(null);
  const onClick = (e: MouseEvent<HTMLDivElement>) => {
    const a = (e.target as Element).closest?.('a');
    if (!a) return;
    const to = docsNavigationTarget(
      {
        href: a.getAttribute('href'),
        target: a.getAttribute('target'),
        download: a.hasAttribute('download'),
        button: e.button,
        modifier: e.metaKey || e.ctrlKey || e.shiftKey || e.altKey,
        defaultPrevented: e.defaultPrevented,
      },
      window.location.href,
    );
    if (to === null) return;
    e.preventDefault();
    navigate(to);
  };
  const hasH1 = /<h1[\s>]/i.test(html);
  return (
    <div className="doc-page">
      <div className="doc-page__content">
        <Breadcrumbs route={page.route} />
        <TocMobile toc={page.toc} />
        <article className="markdown">
          {hasH1 ? null : <h1>{page.title}</h1>}
          <div ref={article} {...{ [DOC_HTML_ATTRIBUTE]: '' }} onClick={onClick} dangerouslySetInnerHTML={{ __html: html }} />
          {html.includes('<pre class="mermaid"') ? (
            <Suspense fallback={null}>
              <MermaidFallback root={article} html={html} />
            </Suspense>
          ) : null}
        </article>
        <Pagination route={page.route} />
      </div>
      <TocDesktop toc={page.toc} />
    </div>
  );
}

function NotFound({ status, message }: { status: number; message?: string }) {
  const bad = status === 400;
  return (
    <div className="doc-page doc-page--error" data-status={status}>
      <div className="doc-page__content markdown">
        <h1>{bad ? 'Bad request' : 'Page not found'}</h1>
        {bad ? (
          <p className="doc-error__detail">{message}</p>
        ) : (
          <>
            <p>We could not find what you were looking for.</p>
            <p>
              The address may be mistyped, or the page moved. Start again from the <Link to="/">documentation home</Link> or use the sidebar.
            </p>
          </>
        )}
      </div>
    </div>
  );
}

export function ErrorBoundary({ error }: Route.ErrorBoundaryProps) {
  const revalidator = useRevalidator();
  const location = useLocation();
  if (isRouteErrorResponse(error) && (error.status === 404 || error.status === 400)) {
    return <NotFound key={location.pathname} status={error.status} message={(error.data as { message?: string })?.message} />;
  }
  if (isLoadFailure(error)) return <LoadFailure error={error} retry={() => void revalidator.revalidate()} />;
  return <CrashPage error={error} tryAgain={() => void revalidator.revalidate()} />;
}
