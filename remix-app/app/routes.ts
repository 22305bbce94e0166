import { index, layout, route, type RouteConfig } from '@react-router/dev/routes';

export default [
  // The analyst app.
  route('app/login', 'routes/app.login.tsx'),
  route('app/logout', 'routes/app.logout.tsx'),
  layout('routes/app.layout.tsx', [
    route('app', 'routes/app.index.tsx'),
    route('app/dashboards/:id', 'routes/app.dashboard.tsx'),
    route('app/administration/organization', 'routes/app.administration.organization.tsx'),
    route('app/*', 'routes/app.not-found.tsx'),
  ]),
  // Public links (reserved; the sharing issue fills it in).
  route('s/:token', 'routes/s.$token.tsx'),
  // Everything else is the documentation site.
  index('routes/docs.tsx', { id: 'docs-index' }),
  route('*', 'routes/docs.tsx'),
] satisfies RouteConfig;
