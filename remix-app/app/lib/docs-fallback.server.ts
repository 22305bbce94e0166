/**
 * Stand-in for `@cairn/docs/runtime` while the docs workspace has no build yet (vite.config.ts aliases
 * it here only when docs/src/runtime.ts is missing). Same interface, one page.
 */
export interface DocPage {
  route: string;
  title: string;
  description?: string;
  toc: { depth: 2 | 3; id: string; title: string }[];
  html: string;
}

const HOME: DocPage = {
  route: '/',
  title: 'Cairn documentation',
  description: 'Cairn is an open-source BI and dashboard service with a public API.',
  toc: [
    { depth: 2, id: 'getting-started', title: 'Getting started' },
    { depth: 3, id: 'sign-in', title: 'Sign in' },
  ],
  html: [
    '<h1>Cairn documentation</h1>',
    '<p>Cairn turns SQL into dashboards and serves them through a public API.</p>',
    '<h2 id="getting-started">Getting started</h2>',
    '<p>The full documentation is built by the docs workspace. This placeholder appears while it is missing.</p>',
    '<h3 id="sign-in">Sign in</h3>',
    '<p>Open <a href="/app/">the app</a> and sign in with your e-mail address and password.</p>',
  ].join('\n'),
};

export async function loadDocPage(path: string): Promise<DocPage | null> {
  return path === '/' || path === '' ? HOME : null;
}

export function docRoutes(): { route: string; title: string }[] {
  return [{ route: HOME.route, title: HOME.title }];
}

export function docSidebar(): { label: string; items: { route: string; title: string }[] }[] {
  return [{ label: 'Cairn', items: docRoutes() }];
}

export function docDrafts(): string[] {
  return [];
}
