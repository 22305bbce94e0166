/** The docs frame around every docs route: the sidebar data loads once, not on each page change. */
import { Suspense } from 'react';
import { Outlet, useRevalidator } from 'react-router';
import type { Route } from './+types/docs.layout';
import { CrashPage } from '../components/docs/CrashPage';
import { BareDocsLayout, DocsLayout } from '../components/docs/DocsLayout';
import { docDrafts, docSidebar, docsTestHooks } from '../lib/docs.server';
import '../styles/docs.css';

export function loader({ context }: Route.LoaderArgs) {
  return { sidebar: docSidebar(), drafts: docDrafts(), testHooks: docsTestHooks(context) };
}

export function shouldRevalidate() {
  return false;
}

export default function DocsLayoutRoute({ loaderData }: Route.ComponentProps) {
  // If the frame fails while the server renders it, the browser renders it again and the error
  // boundary below shows the whole error chain (the server's copy of the error is sanitized).
  return (
    <Suspense fallback={null}>
      <DocsLayout sidebar={loaderData.sidebar} drafts={loaderData.drafts}>
        <Outlet />
      </DocsLayout>
    </Suspense>
  );
}

/** The frame itself failed (e.g. a navbar item of the config): the crash page without the frame. */
export function ErrorBoundary({ error }: Route.ErrorBoundaryProps) {
  const revalidator = useRevalidator();
  return (
    <BareDocsLayout>
      <CrashPage error={error} tryAgain={() => void revalidator.revalidate()} />
    </BareDocsLayout>
  );
}
