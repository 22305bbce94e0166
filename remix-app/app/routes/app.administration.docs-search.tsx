/**
 * `/app/administration/docs-search`: what readers search for in the docs, for admins (the app's session
 * check, then `mayReadInsights`). Top queries, queries that found nothing, most chosen pages.
 */
import { data, Link } from 'react-router';
import type { Route } from './+types/app.administration.docs-search';
import { ErrorPage } from '../components/ErrorPage';
import '../components/docs/search/insights-report.css';
import { requireApi } from '../lib/api.server';
import { insightsEnv, loadReport, mayReadInsights } from '../lib/docs-insights.server';
import { loadSession } from '../lib/session-info.server';

const PERIODS = [7, 30, 90] as const;

export function meta() {
  return [{ title: 'Docs search insights · Cairn' }];
}

export async function loader({ request, context }: Route.LoaderArgs) {
  const session = await loadSession(requireApi(request, context));
  const env = insightsEnv(context);
  if (!mayReadInsights(session.user, session.organization.id, env.DOCS_INSIGHTS_ORGANIZATIONS)) {
    throw data({ code: 'forbidden', message: 'Only administrators can see what readers search for in the docs.' }, { status: 403 });
  }
  const asked = Number(new URL(request.url).searchParams.get('days'));
  const days = (PERIODS as readonly number[]).includes(asked) ? asked : 30;
  return { days, report: await loadReport(env, days) };
}

function Empty({ children }: { children: string }) {
  return <p className="muted">{children}</p>;
}

export default function DocsSearchInsights({ loaderData }: Route.ComponentProps) {
  const { days, report } = loaderData;
  return (
    <main className="page page--narrow insights-page">
      <header className="page-header">
        <div>
          <p className="eyebrow">Administration</p>
          <h1>Docs search insights</h1>
          <p className="page-header__desc muted">
            What readers typed into the search of the <Link to="/">documentation</Link>, counted once they stopped typing, and what they opened. Use the queries
            without results to find what the docs are missing.
          </p>
        </div>
        <nav aria-label="Period" className="page-header__meta">
          {PERIODS.map((p) => (
            <Link
              key={p}
              to={`?days=${p}`}
              aria-current={p === days ? 'page' : undefined}
              className={`button button--small${p === days ? '' : ' button--ghost'}`}
            >
              {p} days
            </Link>
          ))}
        </nav>
      </header>
      {!report ? (
        <div className="notice">Search insights are not configured on this deployment (no DOCS_INSIGHTS binding).</div>
      ) : (
        <>
          <section className="card" aria-labelledby="insights-totals">
            <h2 id="insights-totals">Since {report.since}</h2>
            <dl className="facts" data-testid="insights-totals">
              <div>
                <dt>Searches</dt>
                <dd>{report.totals.searches}</dd>
              </div>
              <div>
                <dt>Without results</dt>
                <dd>{report.totals.noResults}</dd>
              </div>
              <div>
                <dt>Results opened</dt>
                <dd>{report.totals.clicks}</dd>
              </div>
            </dl>
          </section>
          <section className="card" aria-labelledby="insights-top">
            <h2 id="insights-top">Top queries</h2>
            {report.topQueries.length === 0 ? (
              <Empty>No searches yet.</Empty>
            ) : (
              <table className="insights-table" data-testid="insights-top-queries">
                <thead>
                  <tr>
                    <th scope="col">Query</th>
                    <th scope="col">Searches</th>
                    <th scope="col">Without results</th>
                    <th scope="col">Results opened</th>
                  </tr>
                </thead>
                <tbody>
                  {report.topQueries.map((q) => (
                    <tr key={q.query}>
                      <td>{q.query}</td>
                      <td>{q.searches}</td>
                      <td>{q.noResults}</td>
                      <td>{q.clicks}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </section>
          <section className="card" aria-labelledby="insights-empty">
            <h2 id="insights-empty">Queries with no results</h2>
            {report.noResultQueries.length === 0 ? (
              <Empty>Every search found something.</Empty>
            ) : (
              <table className="insights-table" data-testid="insights-no-results">
                <thead>
                  <tr>
                    <th scope="col">Query</th>
                    <th scope="col">Searches without results</th>
                  </tr>
                </thead>
                <tbody>
                  {report.noResultQueries.map((q) => (
                    <tr key={q.query}>
                      <td>{q.query}</td>
                      <td>{q.searches}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </section>
          <section className="card" aria-labelledby="insights-pages">
            <h2 id="insights-pages">Pages opened from search</h2>
            {report.topPages.length === 0 ? (
              <Empty>No result was opened yet.</Empty>
            ) : (
              <table className="insights-table" data-testid="insights-pages">
                <thead>
                  <tr>
                    <th scope="col">Page</th>
                    <th scope="col">Opened</th>
                  </tr>
                </thead>
                <tbody>
                  {report.topPages.map((p) => (
                    <tr key={p.route}>
                      <td>
                        <Link to={p.route}>{p.route}</Link>
                      </td>
                      <td>{p.clicks}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </section>
        </>
      )}
    </main>
  );
}

export function ErrorBoundary({ error }: Route.ErrorBoundaryProps) {
  return <ErrorPage error={error} home={{ href: '/app/', label: 'Back to dashboards' }} />;
}
