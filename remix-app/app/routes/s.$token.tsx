import { data, isRouteErrorResponse, Link } from 'react-router';
import type { Route } from './+types/s.$token';
import { ErrorPage } from '../components/ErrorPage';

/** Reserved for public dashboard links; the sharing issue implements them. */
export function loader() {
  throw data({ message: 'Public links arrive with the sharing issue.' }, { status: 404 });
}

export function meta() {
  return [{ title: 'Public link · Cairn' }, { name: 'robots', content: 'noindex' }];
}

export default function PublicLink() {
  return null;
}

export function ErrorBoundary({ error }: Route.ErrorBoundaryProps) {
  if (isRouteErrorResponse(error) && error.status === 404) {
    return (
      <main className="error-page" data-status={404}>
        <p className="error-page__status">404</p>
        <h1>Public links are not available yet</h1>
        <p>Public links arrive with the sharing issue. Until then, sign in to see shared dashboards.</p>
        <p>
          <Link className="button button--primary" to="/app/">Sign in to Cairn</Link>
        </p>
      </main>
    );
  }
  return <ErrorPage error={error} home={{ href: '/', label: 'Go to the Cairn documentation' }} />;
}
