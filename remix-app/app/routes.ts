import { index, layout, route, type RouteConfig } from '@react-router/dev/routes';
import { SEARCH_TAGS } from '@cairn/docs/search-tags';

export default [
  // The analyst app.
  route('app/login', 'routes/app.login.tsx'),
  route('app/logout', 'routes/app.logout.tsx'),
  route('app/invitation/:token', 'routes/app.invitation.$token.tsx'),
  // Password reset: ask for a link, then choose a new password with it (no sign-in).
  route('app/forgot-password', 'routes/app.forgot-password.tsx'),
  route('app/reset-password/:token', 'routes/app.reset-password.$token.tsx'),
  // Enrolment that an organization's "require two-factor authentication" holds a session at (D65).
  route('app/two-factor-setup', 'routes/app.two-factor-setup.tsx'),
  // Single sign-on's fixed addresses (registered at the identity provider; ARCHITECTURE D57).
  route('app/sso/oidc/callback', 'routes/app.sso.oidc.callback.tsx'),
  route('app/sso/saml/acs', 'routes/app.sso.saml.acs.tsx'),
  route('app/sso/saml/metadata', 'routes/app.sso.saml.metadata.tsx'),
  // A report's data as a CSV or XLSX file (the report menu's downloads).
  route('app/reports/:id/download', 'routes/app.reports.$id.download.tsx'),
  route('app/reports/:id/refresh', 'routes/app.reports.$id.refresh.tsx'),
  // Exports: PDF/PNG/CSV jobs (start, poll, file) and a dashboard's data of every report as one file.
  route('app/exports', 'routes/app.exports.tsx'),
  route('app/exports/:id', 'routes/app.exports.$id.tsx'),
  route('app/exports/:id/file', 'routes/app.exports.$id.file.tsx'),
  route('app/dashboards/:id/download', 'routes/app.dashboards.$id.download.tsx'),
  route('app/dashboards/:id/thumbnail', 'routes/app.dashboards.$id.thumbnail.tsx'),
  // Resource routes the dashboard page calls from the browser (status polls, result rows).
  route('app/dashboards/:id/status', 'routes/app.dashboard-status.tsx'),
  route('app/dashboards/:id/series-colors', 'routes/app.dashboard-series-colors.tsx'),
  // The dashboard menu's "Download backup" (a form post answered with the backup file).
  route('app/dashboards/:id/backup', 'routes/app.dashboard.$id.backup.tsx'),
  route('app/data/*', 'routes/app.dashboard-data.tsx'),
  // The dashboard list's group management (create, rename, delete, sort, a dashboard's groups).
  route('app/dashboard-groups', 'routes/app.dashboard-groups.tsx'),
  // The report editor's runs and the schema browser (resource routes called from the browser).
  route('app/reports/executions', 'routes/app.reports.executions.tsx'),
  route('app/reports/executions/:id', 'routes/app.reports.execution.tsx'),
  route('app/reports/executions/:id/data', 'routes/app.reports.execution-data.tsx'),
  route('app/reports/executions/:id/download', 'routes/app.reports.execution-download.tsx'),
  // The report editor's filter bar: a query-driven dropdown's options.
  route('app/reports/filter-options/:id', 'routes/app.reports.filter-options.tsx'),
  route('app/datasources/:id/schema', 'routes/app.datasources.schema.tsx'),
  layout('routes/app.layout.tsx', [
    route('app', 'routes/app.index.tsx'),
    route('app/dashboards/:id', 'routes/app.dashboard.tsx'),
    route('app/dashboards/:id/settings', 'routes/app.dashboard.$id.settings.tsx'),
    // Report editor, dashboard edit mode and datasources.
    route('app/reports/new', 'routes/app.reports.editor.tsx', { id: 'report-new' }),
    route('app/reports/:id', 'routes/app.reports.editor.tsx', { id: 'report-edit' }),
    route('app/dashboards/:id/edit', 'routes/app.dashboard.$id.edit.tsx', [
      index('routes/app.dashboard.$id.edit.layout.tsx'),
      route('filters', 'routes/app.dashboard.$id.edit.filters.tsx'),
      route('snippets', 'routes/app.dashboard.$id.edit.snippets.tsx'),
    ]),
    route('app/datasources', 'routes/app.datasources.tsx'),
    route('app/datasources/new', 'routes/app.datasources.form.tsx', { id: 'datasource-new' }),
    route('app/datasources/:id', 'routes/app.datasources.form.tsx', { id: 'datasource-edit' }),
    route('app/administration/organization', 'routes/app.administration.organization.tsx'),
    route('app/administration/docs-search', 'routes/app.administration.docs-search.tsx'),
    route('app/administration', 'routes/app.administration.tsx'),
    route('app/administration/users', 'routes/app.administration.users.tsx'),
    route('app/administration/groups', 'routes/app.administration.groups.tsx'),
    route('app/administration/api-keys', 'routes/app.administration.api-keys.tsx'),
    route('app/administration/agents', 'routes/app.administration.agents.tsx'),
    route('app/administration/sso', 'routes/app.administration.sso.tsx'),
    route('app/administration/security', 'routes/app.administration.security.tsx'),
    route('app/administration/audit-log', 'routes/app.administration.audit-log.tsx'),
    route('app/administration/sharing-links', 'routes/app.administration.sharing-links.tsx'),
    route('app/administration/alerts', 'routes/app.administration.alerts.tsx'),
    route('app/administration/alerts/new', 'routes/app.administration.alerts.$id.tsx', { id: 'alert-new' }),
    route('app/administration/alerts/:id', 'routes/app.administration.alerts.$id.tsx', { id: 'alert-edit' }),
    route('app/administration/schedules', 'routes/app.administration.schedules.tsx'),
    route('app/dashboards/:id/share', 'routes/app.dashboard.$id.share.tsx'),
    route('app/dashboards/:id/schedules', 'routes/app.dashboard.$id.schedules.tsx'),
    route('app/dashboards/:id/share/links/:linkId', 'routes/app.dashboard.$id.share.link.tsx'),
    route('app/account', 'routes/app.account.tsx'),
    route('app/*', 'routes/app.not-found.tsx'),
  ]),
  // Public sharing links: the page, its status poll and its downloads (no sign-in).
  route('s/:token', 'routes/s.$token.tsx'),
  route('s/:token/status', 'routes/s.$token.status.tsx'),
  route('s/:token/download/:reportId', 'routes/s.$token.download.tsx'),
  // The print view the PDF/PNG renderer opens (render token in the address), and its status poll.
  route('render/:token', 'routes/render.$token.tsx'),
  route('render/:token/status', 'routes/render.$token.status.tsx'),
  // The docs search: an index file per tag (`/search-index-{tag}.json`) and the insights endpoint.
  ...SEARCH_TAGS.map((tag) => route(`search-index-${tag}.json`, 'routes/search-index.ts', { id: `search-index-${tag}` })),
  route('docs-insights', 'routes/docs-insights.ts'),
  // Everything else is the documentation site: one frame (navbar, sidebar, footer) around its pages.
  layout('routes/docs.layout.tsx', { id: 'docs-layout' }, [index('routes/docs.tsx', { id: 'docs-index' }), route('*', 'routes/docs.tsx', { id: 'docs-page' })]),
] satisfies RouteConfig;
