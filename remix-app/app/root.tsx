import type { ReactNode } from 'react';
import { Links, Meta, Outlet, Scripts, ScrollRestoration, useRouteLoaderData, type ShouldRevalidateFunctionArgs } from 'react-router';
import type { Route } from './+types/root';
import { ErrorPage } from './components/ErrorPage';
import { PREACT_CLIENT } from './lib/preact-client';
import { THEME_BOOT_SCRIPT, type Theme } from './state/theme-boot';
import './app.css';

export function loader({ request }: Route.LoaderArgs) {
  const q = new URL(request.url).searchParams.get('theme');
  return { theme: (q === 'dark' ? 'dark' : q === 'light' ? 'light' : null) as Theme | null };
}

/** The loader only reads `?theme=`: navigations that keep it need not ask the server again. */
export function shouldRevalidate({ currentUrl, nextUrl }: ShouldRevalidateFunctionArgs) {
  return currentUrl.searchParams.get('theme') !== nextUrl.searchParams.get('theme');
}

export const links: Route.LinksFunction = () => [{ rel: 'icon', href: '/favicon.svg', type: 'image/svg+xml' }];

export function Layout({ children }: { children: ReactNode }) {
  const data = useRouteLoaderData<typeof loader>('root');
  const theme = data?.theme ?? undefined;
  return (
    <Html lang="en" data-theme={theme}>
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="color-scheme" content="light dark" />
        <script dangerouslySetInnerHTML={{ __html: THEME_BOOT_SCRIPT }} />
        <Meta />
        <Links />
      </head>
      <body>
        {children}
        <ScrollRestoration />
        <Scripts />
      </body>
    </Html>
  );
}

/**
 * The document element. Preact hydrates `document` starting from `<html>` itself (its children are the
 * root), so the Preact client build renders only what is inside it; the attributes stay as the server
 * wrote them (the colour mode is switched on the element directly, see ThemeScope).
 */
function Html({ children, ...attributes }: { children: ReactNode; lang: string; 'data-theme': Theme | undefined }) {
  if (PREACT_CLIENT) return <>{children}</>;
  return (
    <html {...attributes} suppressHydrationWarning>
      {children}
    </html>
  );
}

export default function App() {
  return <Outlet />;
}

export function ErrorBoundary({ error }: Route.ErrorBoundaryProps) {
  return <ErrorPage error={error} />;
}
