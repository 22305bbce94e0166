import { data } from 'react-router';
import type { Route } from './+types/app.not-found';
import { ErrorPage } from '../components/ErrorPage';

export function loader({ request }: Route.LoaderArgs) {
  throw data({ message: `Nothing lives at ${new URL(request.url).pathname}.` }, { status: 404 });
}

export default function NotFound() {
  return null;
}

export function ErrorBoundary({ error }: Route.ErrorBoundaryProps) {
  return <ErrorPage error={error} home={{ href: '/app/', label: 'Back to dashboards' }} />;
}
