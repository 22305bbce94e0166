import { isRouteErrorResponse, Link } from 'react-router';

interface Props {
  error: unknown;
  /** Where "back" goes: the app for app pages, the docs home for docs pages. */
  home?: { href: string; label: string };
}

const COPY: Record<number, { title: string; text: string }> = {
  400: { title: 'Bad request', text: 'The request could not be understood.' },
  403: { title: 'You don’t have access', text: 'Your role does not allow you to open this page. Ask an administrator of your organization for access.' },
  404: { title: 'Page not found', text: 'There is nothing at this address. It may have been moved or deleted.' },
  422: { title: 'Something is not right', text: 'The request could not be processed.' },
  503: { title: 'Temporarily unavailable', text: 'A Cairn service did not answer. Please try again in a moment.' },
};

function errorInfo(error: unknown): { status: number; title: string; text: string; detail?: string } {
  if (isRouteErrorResponse(error)) {
    const copy = COPY[error.status] ?? { title: `Error ${error.status}`, text: 'The request failed.' };
    const payload = error.data as { message?: unknown } | string | null;
    const detail = typeof payload === 'string' ? payload : typeof payload?.message === 'string' ? payload.message : undefined;
    return { status: error.status, ...copy, detail: detail && detail !== copy.text ? detail : undefined };
  }
  const dev = import.meta.env.DEV && error instanceof Error ? error.message : undefined;
  return { status: 500, title: 'Something went wrong', text: 'An unexpected error occurred. It has been logged.', detail: dev };
}

export function ErrorPage({ error, home = { href: '/', label: 'Go to the documentation' } }: Props) {
  const info = errorInfo(error);
  return (
    <main className="error-page" data-status={info.status}>
      <p className="error-page__status">{info.status}</p>
      <h1>{info.title}</h1>
      <p>{info.text}</p>
      {info.detail ? <p className="error-page__detail">{info.detail}</p> : null}
      <p>
        <Link className="button button--primary" to={home.href}>
          {home.label}
        </Link>
      </p>
    </main>
  );
}
